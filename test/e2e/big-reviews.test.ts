import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { percentile, plainPodReview, postWithFetch } from "../chaos/support";
import { maxSizeUpdate } from "../support/max-size-reviews";
import { anonymousRssBytes, MIB } from "../support/procfs";
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
const POD_EVERY_MS = 20;

let webhook: WebhookProcess;
beforeAll(async () => {
  webhook = await startWebhook({ env: { WEBHOOK_LOG_LEVEL: "info" } });
});
afterAll(async () => {
  await webhook.stop("SIGKILL");
});

describe("max-size reviews", () => {
  test(`${PARALLEL} at once are answered with a bounded heap, and pod reviews beside them`, async () => {
    const target = { url: webhook.admissionUrl, ca: webhook.ca.cert };
    const review = maxSizeUpdate("empty toolboxes");
    const body = JSON.stringify(review);
    // One first, so the figures are of a warm process (its first review also compiles code).
    await postWithFetch(target, "/validate-cocoonset", body, review.request.uid);
    let peakAnonymous = 0;
    const sampler = setInterval(() => {
      peakAnonymous = Math.max(peakAnonymous, anonymousRssBytes(webhook.process.pid));
    }, 5);
    const pods: ReturnType<typeof postWithFetch>[] = [];
    let sending = true;
    const podLoop = (async () => {
      while (sending) {
        const uid = crypto.randomUUID();
        pods.push(postWithFetch(target, "/mutate", plainPodReview(uid), uid));
        await Bun.sleep(POD_EVERY_MS); // deliberate: the offered rate of pod reviews
      }
    })();
    const big = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        postWithFetch(target, "/validate-cocoonset", body, review.request.uid),
      ),
    );
    sending = false;
    await podLoop;
    clearInterval(sampler);
    const podOutcomes = await Promise.all(pods);
    const latencies = podOutcomes.map((pod) => pod.latencyMs);
    console.log(
      `max-size reviews: ${PARALLEL} answered within ${Math.round(Math.max(...big.map((each) => each.latencyMs)))} ms; ` +
        `peak anonymous memory ${Math.round(peakAnonymous / MIB)} MiB; pod reviews beside them ` +
        `p99 ${Math.round(percentile(latencies, 99))} ms (n=${latencies.length}; timings are not asserted)`,
    );

    expect(big.filter((each) => !each.ok)).toEqual([]);
    expect(podOutcomes.filter((pod) => !pod.ok)).toEqual([]);
    expect(peakAnonymous).toBeLessThan(ANONYMOUS_MEMORY_LIMIT);
  }, 30_000);
});
