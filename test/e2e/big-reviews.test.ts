import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { maxSizeBurst, percentile } from "../chaos/support";
import { maxSizeUpdate } from "../support/max-size-reviews";
import { MIB } from "../support/procfs";
import { startWebhook, type WebhookProcess } from "./harness";

/*
 * The quick variant of the chaos suite's max-size reviews (which runs 1, 4
 * and 8 of every shape inside a 256 MiB memory cgroup): four of the largest
 * CocoonSet UPDATEs the apiserver can send, at once, with plain pod reviews
 * beside them, in a process without a memory limit, where nothing but the
 * webhook itself bounds its heap.
 */

const PARALLEL = 4;
/**
 * The heap of a warm process, under the manifests' 256 MiB limit with room
 * for the binary's own pages. Each large review is decoded alone and its
 * memory collected before the next: one review (a million tiny objects) takes
 * about 70 MiB of heap, and the process stays near 140–185 MiB. Decoded side
 * by side with their garbage left for later, four took 590 MiB.
 */
const ANONYMOUS_MEMORY_LIMIT = 224 * MIB;

let webhook: WebhookProcess;
beforeAll(async () => {
  webhook = await startWebhook({ env: { WEBHOOK_LOG_LEVEL: "info" } });
});
afterAll(async () => {
  await webhook.stop("SIGKILL");
});

describe("max-size reviews", () => {
  test(`${PARALLEL} at once are answered with a bounded heap, and pod reviews beside them`, async () => {
    const review = maxSizeUpdate("empty toolboxes");
    // One first, so the figures are of a warm process (its first review also compiles code).
    await maxSizeBurst(webhook, review, 1);
    const { big, pods, peakAnonymousBytes } = await maxSizeBurst(webhook, review, PARALLEL);
    const latencies = pods.map((pod) => pod.latencyMs);
    console.log(
      `max-size reviews: ${PARALLEL} answered within ${Math.round(Math.max(...big.map((each) => each.latencyMs)))} ms; ` +
        `peak anonymous memory ${Math.round(peakAnonymousBytes / MIB)} MiB; pod reviews beside them ` +
        `p99 ${Math.round(percentile(latencies, 99))} ms (n=${latencies.length}; timings are not asserted)`,
    );

    expect(big.filter((each) => !each.ok)).toEqual([]);
    expect(pods.filter((pod) => !pod.ok)).toEqual([]);
    expect(peakAnonymousBytes).toBeLessThan(ANONYMOUS_MEMORY_LIMIT);
  }, 30_000);
});
