import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { COLLECT_ANYWAY_ABOVE_RSS_BYTES } from "../../src/http/body-budget";
import { MAX_DECODED_CONTAINERS } from "../../src/json/containers";
import { admissionReview } from "../support/admission-review";
import { eventually } from "../support/eventually";
import { anonymousRssBytes, MIB } from "../support/procfs";
import {
  concurrentChunkedReviews,
  paddedPodReviewBody,
  peakAnonymousWhile,
  reviewsBehindSlowSender,
  stalledChunkedUploads,
  startUpload,
} from "../support/uploads";
import { readError, startWebhook, type WebhookProcess } from "./harness";

/*
 * A client talking to the admission port directly, with the default limits
 * but a short read deadline: every body holds its bytes in one budget while
 * it arrives, no sender holds it past the deadline, and every broken body is
 * a bounded, rate-limited 4xx. The memory figures are the quick variant of
 * the chaos suite's (which runs the same inside a 256 MiB memory cgroup).
 */

const READ_TIMEOUT_MS = 500;
/** Stalled uploads: chunked bodies are read one at a time, so they end one deadline after another. */
const STALLED = 12;
/** The default MAX_REQUEST_BYTES. */
const MAX_REQUEST_BYTES = 5 * MIB;

let webhook: WebhookProcess;
beforeAll(async () => {
  webhook = await startWebhook({
    env: { BODY_READ_TIMEOUT: `${READ_TIMEOUT_MS}ms`, WEBHOOK_LOG_LEVEL: "info" },
  });
  // One large review first, so the figures are of a warm process.
  const warm = await webhook.post("/mutate", paddedPodReviewBody("warm", 2 * MIB));
  expect(warm.status).toBe(200);
});
afterAll(() => webhook.stop("SIGKILL"));

const target = () => ({ url: webhook.admissionUrl, ca: webhook.ca.cert });
const logLines = () => webhook.logs().map((line) => JSON.parse(line));
const responses = (code: number) =>
  webhook.metric("cocoon_webhook_http_responses_total", { path: "/mutate", code: String(code) });

describe("request bodies within one memory budget", () => {
  test("MAX_REQUEST_BYTES defaults to 5 MiB: a body one byte longer is refused before it is read", async () => {
    const answer = await webhook.post("/mutate", "x".repeat(MAX_REQUEST_BYTES + 1));
    expect(answer.status).toBe(413);
    expect((await readError(answer)).error).toContain(`MAX_REQUEST_BYTES (${MAX_REQUEST_BYTES}`);
  });

  test("aborted uploads, chunked or not, are 400s through the rate-limited 4xx log, never 500s", async () => {
    const before400 = await responses(400);
    const ABORTS = 40;
    for (let index = 0; index < ABORTS; index++) {
      const chunked = index % 2 === 0;
      const upload = startUpload(target(), "/mutate", chunked ? undefined : 600_000);
      upload.write("x".repeat(300_000));
      await Bun.sleep(20); // deliberate: the webhook reads part of the body first
      upload.abort();
      await upload.closed;
    }
    await eventually(
      () => responses(400),
      (count) => count >= before400 + ABORTS,
    );
    expect(await responses(500)).toBe(0);
    const lines = logLines();
    expect(lines.filter((line) => line.msg === "unhandled error")).toEqual([]);
    const rejected = lines.filter((line) => line.msg === "request rejected" && line.status === 400);
    expect(rejected.length).toBeGreaterThan(0);
    expect(rejected[0].reason).toStartWith("request body could not be read");
    expect(lines.filter((line) => line.level === "error")).toEqual([]);
  }, 30_000);

  test(`${STALLED} stalled chunked uploads of almost MAX_REQUEST_BYTES each hold no more than the budget, and each ends in 408`, async () => {
    const pid = webhook.process.pid;
    const before = anonymousRssBytes(pid);
    const { result: answers, peakBytes } = await peakAnonymousWhile(pid, async () => {
      const stalled = stalledChunkedUploads(target(), STALLED, MAX_REQUEST_BYTES - 64 * 1024);
      // Small reviews pass meanwhile.
      const pod = await webhook.post("/mutate", admissionReview({ object: { metadata: {} } }));
      expect(pod.status).toBe(200);
      return stalled;
    });
    console.log(
      `${STALLED} stalled chunked uploads: anonymous memory ${Math.round(before / MIB)} → peak ${Math.round(peakBytes / MIB)} MiB`,
    );
    for (const answer of answers) {
      // The answer may be lost to a reset while the client still sends; the close is not.
      if (answer.status !== 0) expect(answer.status).toBe(408);
    }
    expect(answers.filter((answer) => answer.status === 408).length).toBeGreaterThan(0);
    // Before, each was buffered whole before any budget applied: 7 MiB apiece.
    expect(peakBytes - before).toBeLessThan(48 * MIB);
  }, 30_000);

  test("60 concurrent complete chunked reviews of 4.5 MB are all answered, one budget's worth at a time", async () => {
    const pid = webhook.process.pid;
    const before = anonymousRssBytes(pid);
    const { result: answers, peakBytes } = await peakAnonymousWhile(pid, () =>
      concurrentChunkedReviews(target(), 60, 4.5e6),
    );
    console.log(
      `60 chunked 4.5 MB reviews: anonymous memory ${Math.round(before / MIB)} → peak ${Math.round(peakBytes / MIB)} MiB`,
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(60).fill(200));
    // Before, each was buffered whole before its turn: 60 × 7 MiB. Now one budget's worth is
    // held at a time, and the decoded reviews' garbage builds up until the gate collects it,
    // at the latest once the process is past COLLECT_ANYWAY_ABOVE_RSS_BYTES (peaks of 147–157
    // MiB anonymous measured).
    expect(peakBytes).toBeLessThan(COLLECT_ANYWAY_ABOVE_RSS_BYTES);
  }, 60_000);

  test("a Content-Length sender that trickles is answered 408 at the read deadline; the reviews behind it are answered", async () => {
    const before408 = await responses(408);
    const { behind, waitedMs, slow } = await reviewsBehindSlowSender(
      target(),
      (body) => webhook.post("/mutate", body),
      100,
    );
    console.log(
      `three 392 KB reviews behind a slow sender answered within ${Math.round(waitedMs)} ms ` +
        `(BODY_READ_TIMEOUT ${READ_TIMEOUT_MS} ms; not asserted)`,
    );
    expect(behind).toEqual([200, 200, 200]);
    expect(slow.status).toBe(408);
    expect(JSON.parse(slow.body).error).toContain("BODY_READ_TIMEOUT");
    expect(await responses(408)).toBe(before408 + 1);
    await eventually(logLines, (lines) =>
      lines.some((line) => line.msg === "request rejected" && line.status === 408),
    );
  }, 30_000);

  test("a silent sender of a small body is answered 408 at the read deadline", async () => {
    const silent = startUpload(target(), "/mutate", 500);
    const answer = await silent.answered;
    expect(answer.status).toBe(408);
    await silent.closed;
  }, 10_000);

  test(`a review of more than ${MAX_DECODED_CONTAINERS} objects and arrays is refused before it is decoded`, async () => {
    const toolboxes = `[${Array(MAX_DECODED_CONTAINERS + 1)
      .fill("{}")
      .join(",")}]`;
    const body = JSON.stringify(admissionReview({ object: { spec: { toolboxes: [] } } })).replace(
      '"toolboxes":[]',
      `"toolboxes":${toolboxes}`,
    );
    expect(body.length).toBeLessThan(MAX_REQUEST_BYTES);
    const answer = await webhook.post("/validate-cocoonset", body);
    expect(answer.status).toBe(413);
    expect((await readError(answer)).error).toContain(
      `more than ${MAX_DECODED_CONTAINERS} JSON objects and arrays`,
    );
  }, 30_000);
});
