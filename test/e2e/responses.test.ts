import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import packageJson from "../../package.json";
import { RUNTIME_SERIES } from "../../src/observability/metrics";
import { admissionReview } from "../support/admission-review";
import { eventually } from "../support/eventually";
import { sampleValue, startWebhook, type WebhookProcess } from "./harness";

const MAX_REQUEST_BYTES = 4096;

let webhook: WebhookProcess;
let startedAt: number;
beforeAll(async () => {
  startedAt = Date.now() / 1000;
  webhook = await startWebhook({ env: { MAX_REQUEST_BYTES: String(MAX_REQUEST_BYTES) } });
});
afterAll(() => webhook.stop());

const responses = (path: string, code: number) =>
  webhook.metric("cocoon_webhook_http_responses_total", {
    path,
    code: String(code),
  });

/** The warn lines "request rejected" logged so far, parsed. */
const rejections = () =>
  webhook
    .logs()
    .map((line) => JSON.parse(line))
    .filter((line) => line.msg === "request rejected");

/** The rejection lines once one with `status` has arrived (stdout is read asynchronously); 5 s at most. */
const rejectionsWith = (status: number, count = 1) =>
  eventually(rejections, (lines) => lines.filter((line) => line.status === status).length >= count);

describe("every response is counted; every 4xx is logged", () => {
  test("a review answered 200 is counted under its route", async () => {
    const before = await responses("/mutate", 200);
    const answer = await webhook.post(
      "/mutate",
      admissionReview({ object: { metadata: { name: "p" } } }),
    );
    expect(answer.status).toBe(200);
    expect(await responses("/mutate", 200)).toBe(before + 1);
  });

  test("a declared body over MAX_REQUEST_BYTES: 413 with a JSON error, counted and logged with the client", async () => {
    const answer = await webhook.post("/validate", "x".repeat(MAX_REQUEST_BYTES + 1));
    expect(answer.status).toBe(413);
    expect(answer.headers.get("content-type")).toStartWith("application/json");
    expect(((await answer.json()) as { error: string }).error).toStartWith(
      `request body is larger than MAX_REQUEST_BYTES (${MAX_REQUEST_BYTES} bytes)`,
    );
    expect(await responses("/validate", 413)).toBe(1);
    const line = (await rejectionsWith(413)).find((entry) => entry.status === 413);
    expect(line).toMatchObject({ level: "warn", path: "/validate", method: "POST" });
    expect(line.reason).toStartWith("request body is larger than MAX_REQUEST_BYTES");
    expect(line.client).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  test("a chunked body that grows past MAX_REQUEST_BYTES: the same JSON 413", async () => {
    const chunk = new TextEncoder().encode("x".repeat(1024));
    const body = new ReadableStream({
      start(controller) {
        for (let sent = 0; sent <= MAX_REQUEST_BYTES; sent += chunk.length)
          controller.enqueue(chunk);
        controller.close();
      },
    });
    const answer = await fetch(`${webhook.admissionUrl}/mutate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      tls: { ca: webhook.ca.cert },
    });
    expect(answer.status).toBe(413);
    expect(((await answer.json()) as { error: string }).error).toContain("MAX_REQUEST_BYTES");
  });

  test("unknown paths are counted as `other`, whatever they are", async () => {
    for (const path of ["/admin", "/.env", "/mutate/x"]) {
      const answer = await webhook.post(path, "{}");
      expect(answer.status).toBe(404);
      await answer.arrayBuffer();
    }
    expect(await responses("other", 404)).toBe(3);
    const text = await webhook.metrics();
    expect(text).not.toContain('path="/admin"');
    expect((await rejectionsWith(404, 3)).filter((entry) => entry.status === 404)).toHaveLength(3);
  });

  test("400, 405 and 415 are logged with what was wrong", async () => {
    await (await webhook.post("/mutate", "{}")).arrayBuffer();
    await (await webhook.post("/mutate", "{}", { "content-type": "text/plain" })).arrayBuffer();
    await (
      await fetch(`${webhook.admissionUrl}/mutate`, { tls: { ca: webhook.ca.cert } })
    ).arrayBuffer();
    await rejectionsWith(400);
    await rejectionsWith(415);
    await rejectionsWith(405);
    const byStatus = new Map(rejections().map((entry) => [entry.status, entry.reason]));
    expect(byStatus.get(400)).toBe("request body is not a valid AdmissionReview");
    expect(byStatus.get(415)).toStartWith("Content-Type must be application/json");
    expect(byStatus.get(405)).toStartWith("method GET not allowed on /mutate");
  });

  test("an in-flight gauge is exported", async () => {
    expect(await webhook.metrics()).toMatch(/^cocoon_webhook_http_requests_in_flight \d+$/m);
  });
});

describe("build info and runtime series", () => {
  test("cocoon_webhook_build_info carries the version and revision, also in the serving log line", async () => {
    const text = await webhook.metrics();
    const info = /^cocoon_webhook_build_info\{version="([^"]+)",revision="([^"]+)"\} 1$/m.exec(
      text,
    );
    expect(info?.[1]).toBe(packageJson.version);
    const serving = webhook
      .logs()
      .map((line) => JSON.parse(line))
      .find((line) => line.msg === "cocoon-webhook serving");
    expect(serving).toMatchObject({ version: packageJson.version, revision: info?.[2] });
  });

  test("exactly the runtime series that read true under Bun are exported", async () => {
    const text = await webhook.metrics();
    const runtime = [...text.matchAll(/^# TYPE ((?:process|nodejs)_\S+) /gm)].map(
      ([, name]) => name,
    );
    expect(runtime.sort()).toEqual([...RUNTIME_SERIES].sort());
  });

  test("they agree with /proc for the webhook's own process", async () => {
    const text = await webhook.metrics();
    const pid = webhook.process.pid;
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rssBytes = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
    const resident = sampleValue(text, "process_resident_memory_bytes");
    expect(resident).toBeGreaterThan(rssBytes * 0.5);
    expect(resident).toBeLessThan(rssBytes * 2);

    const openFds = readdirSync(`/proc/${pid}/fd`).length;
    expect(Math.abs(sampleValue(text, "process_open_fds") - openFds)).toBeLessThan(16);
    const limits = readFileSync(`/proc/${pid}/limits`, "utf8");
    const maxFds = Number(/Max open files\s+(\d+)/.exec(limits)?.[1]);
    expect(sampleValue(text, "process_max_fds")).toBe(maxFds);

    const started = sampleValue(text, "process_start_time_seconds");
    expect(Math.abs(started - startedAt)).toBeLessThan(10);
    const heap = sampleValue(text, "nodejs_heap_size_used_bytes");
    expect(heap).toBeGreaterThan(0);
    expect(heap).toBeLessThan(resident);
  });
});

describe("scrapes are cheap at any rate", () => {
  let cached: WebhookProcess;
  beforeAll(async () => {
    cached = await startWebhook({ env: { METRICS_RENDER_INTERVAL: "1s" } });
  });
  afterAll(() => cached.stop());

  test("scrapes within the render interval get the same rendering", async () => {
    const first = await cached.metrics();
    const during = await Promise.all(Array.from({ length: 20 }, () => cached.metrics()));
    await (
      await cached.post("/mutate", admissionReview({ object: { metadata: { name: "p" } } }))
    ).text();
    expect(await cached.metrics()).toBe(first);
    for (const text of during) expect(text).toBe(first);
    // The 1 s render interval passes.
    expect(await eventually(cached.metrics, (text) => text !== first)).not.toBe(first);
  });
});
