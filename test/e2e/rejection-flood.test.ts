import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { REJECTION_LOG_LIMIT } from "../../src/observability/rejection-log";
import { eventually } from "../support/eventually";
import { startWebhook, type WebhookProcess } from "./harness";

/*
 * A flood of junk requests: every response is counted, but only a fixed
 * number of `request rejected` lines is written per window, then one line
 * saying how many were not and of which kinds, each line bounded.
 */

const PER_KIND = 200;
const CLIENTS = 8;
const LOG_LINE_LIMIT = 4096;

const JUNK: Record<string, { path: string; body: string; contentType: string }> = {
  "404": { path: `/${"p".repeat(15_000)}`, body: "{}", contentType: "application/json" },
  "400": { path: "/mutate", body: "not json", contentType: "application/json" },
  "415": { path: "/validate", body: "{}", contentType: `text/${"t".repeat(15_000)}` },
};

let webhook: WebhookProcess;
beforeAll(async () => {
  webhook = await startWebhook({ env: { WEBHOOK_LOG_LEVEL: "info" } });
});
afterAll(async () => {
  await webhook.stop("SIGKILL");
});

describe("a flood of 4xx answers", () => {
  test("is counted in full, logged at a fixed rate with bounded lines, and summed up", async () => {
    const before = Object.fromEntries(
      await Promise.all(
        Object.entries(JUNK).map(
          async ([code, { path }]) =>
            [
              code,
              await webhook.metric("cocoon_webhook_http_responses_total", {
                path: path.length > 100 ? "other" : path,
                code,
              }),
            ] as const,
        ),
      ),
    );
    const sends = Object.entries(JUNK).flatMap(([code, junk]) =>
      Array.from({ length: PER_KIND }, () => ({ code, ...junk })),
    );
    const startedAt = performance.now();
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let index = client; index < sends.length; index += CLIENTS) {
          const send = sends[index];
          if (!send) continue;
          const response = await fetch(`${webhook.admissionUrl}${send.path}`, {
            method: "POST",
            headers: { "content-type": send.contentType },
            body: send.body,
            tls: { ca: webhook.ca.cert },
            signal: AbortSignal.timeout(10_000),
          });
          await response.arrayBuffer();
          statuses.push(response.status);
        }
      }),
    );
    const windows = Math.ceil((performance.now() - startedAt) / REJECTION_LOG_LIMIT.intervalMs) + 1;

    for (const [code, { path }] of Object.entries(JUNK)) {
      const label = { path: path.length > 100 ? "other" : path, code };
      expect(await webhook.metric("cocoon_webhook_http_responses_total", label)).toBe(
        (before[code] ?? 0) + PER_KIND,
      );
    }
    expect(statuses.filter((status) => status >= 400 && status < 500)).toHaveLength(sends.length);

    // Exiting writes the summary of the window still open.
    expect(await webhook.stop("SIGTERM")).toBe(0);
    const summaries = await eventually(
      () => webhook.logs().filter((line) => line.includes("were not logged one by one")),
      (lines) => lines.length > 0,
    );
    const lines = webhook.logs().filter((line) => line.includes('"msg":"request rejected"'));
    expect(lines.length).toBeLessThanOrEqual(REJECTION_LOG_LIMIT.lines * windows);
    for (const line of [...lines, ...summaries]) expect(line.length).toBeLessThan(LOG_LINE_LIMIT);

    const suppressedByStatus: Record<string, number> = {};
    for (const summary of summaries) {
      const { byStatus } = JSON.parse(summary) as { byStatus: Record<string, number> };
      for (const [code, count] of Object.entries(byStatus)) {
        suppressedByStatus[code] = (suppressedByStatus[code] ?? 0) + count;
      }
    }
    for (const code of Object.keys(JUNK)) {
      const logged = lines.filter((line) => line.includes(`"status":${code}`)).length;
      expect(logged + (suppressedByStatus[code] ?? 0)).toBe(PER_KIND);
    }
  }, 30_000);
});
