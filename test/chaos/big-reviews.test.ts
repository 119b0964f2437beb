import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { WebhookProcess } from "../e2e/harness";
import { MAX_SIZE_SHAPES, type MaxSizeShape, maxSizeUpdate } from "../support/max-size-reviews";
import {
  createMemoryCgroup,
  type MemoryCgroup,
  memoryCgroupUnavailable,
  uncachedCopy,
} from "../support/memory-cgroup";
import { anonymousRssBytes, MIB, peakRssBytes, resetPeakRss } from "../support/procfs";
import {
  CHAOS_ENABLED,
  type Outcome,
  percentile,
  plainPodReview,
  postWithFetch,
  recordFigures,
  round,
} from "./support";

/*
 * The largest reviews the apiserver can send, 1, 4 and 8 at once, answered
 * by the binary inside a memory cgroup of the manifests' limit, while a
 * plain pod review is sent every POD_EVERY_MS beside them. Memory is asserted
 * (no OOM kill, every review answered); latencies are figures only.
 */

/** limits.memory of manifests/base/deployment.yaml. */
const MEMORY_LIMIT_BYTES = 256 * MIB;
const PARALLEL = [1, 4, 8] as const;
const POD_EVERY_MS = 20;
const ANONYMOUS_SAMPLE_MS = 5;
const unavailable = CHAOS_ENABLED ? memoryCgroupUnavailable() : undefined;

if (CHAOS_ENABLED && unavailable) {
  console.warn(
    `\n*** SKIPPED: max-size reviews in a ${MEMORY_LIMIT_BYTES / MIB} MiB memory cgroup: ${unavailable} ***\n`,
  );
}

interface Burst {
  readonly big: Outcome[];
  readonly pods: Outcome[];
  readonly peakAnonymousBytes: number;
}

/**
 * `parallel` max-size reviews at once, and plain pod reviews at a fixed rate
 * until they are answered; the process's anonymous memory is sampled meanwhile.
 */
async function burst(webhook: WebhookProcess, body: string, uid: string, parallel: number) {
  const target = { url: webhook.admissionUrl, ca: webhook.ca.cert };
  const pods: Promise<Outcome>[] = [];
  let peakAnonymousBytes = 0;
  const sampler = setInterval(() => {
    peakAnonymousBytes = Math.max(peakAnonymousBytes, anonymousRssBytes(webhook.process.pid));
  }, ANONYMOUS_SAMPLE_MS);
  let sending = true;
  const podLoop = (async () => {
    while (sending) {
      const podUid = crypto.randomUUID();
      pods.push(postWithFetch(target, "/mutate", plainPodReview(podUid), podUid));
      await Bun.sleep(POD_EVERY_MS); // deliberate: the offered rate of pod reviews
    }
  })();
  const big = await Promise.all(
    Array.from({ length: parallel }, () =>
      postWithFetch(target, "/validate-cocoonset?timeout=5s", body, uid),
    ),
  );
  sending = false;
  clearInterval(sampler);
  await podLoop;
  return { big, pods: await Promise.all(pods), peakAnonymousBytes } satisfies Burst;
}

describe.skipIf(!CHAOS_ENABLED || unavailable !== undefined)(
  `chaos: max-size reviews inside a ${MEMORY_LIMIT_BYTES / MIB} MiB memory cgroup`,
  () => {
    const cleanups: (() => Promise<void> | void)[] = [];
    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    test.each(MAX_SIZE_SHAPES.map((shape) => [shape]))(
      "%s: 1, 4 and 8 at once are answered, never OOM-killed; pod reviews beside them",
      async (shape: MaxSizeShape) => {
        const { BINARY, startWebhook } = await import("../e2e/harness");
        const cgroup: MemoryCgroup = createMemoryCgroup("cocoon-chaos", MEMORY_LIMIT_BYTES);
        const dir = mkdtempSync(join(tmpdir(), "cocoon-chaos-binary-"));
        const binary = uncachedCopy(BINARY, join(dir, "cocoon-webhook"));
        const webhook = await startWebhook({
          wrap: cgroup.wrap,
          binary,
          env: { WEBHOOK_LOG_LEVEL: "info" },
        });
        cleanups.push(async () => {
          await webhook.stop("SIGKILL");
          cgroup.remove();
          rmSync(dir, { recursive: true, force: true });
        });
        const review = maxSizeUpdate(shape);
        const body = JSON.stringify(review);
        const pid = webhook.process.pid;
        const rows: Record<string, string | number> = {
          "request bytes": body.length,
          "RSS at ready MiB": round(peakRssBytes(pid) / MIB),
        };
        const problems: string[] = [];
        // One review first, so the figures are of a warm process.
        await burst(webhook, body, review.request.uid, 1);

        for (const parallel of PARALLEL) {
          resetPeakRss(pid);
          cgroup.resetPeak();
          const { big, pods, peakAnonymousBytes } = await burst(
            webhook,
            body,
            review.request.uid,
            parallel,
          );
          const latencies = pods.filter((pod) => pod.ok).map((pod) => pod.latencyMs);
          rows[`${parallel} at once: peak RSS / anonymous / cgroup (with page cache) MiB`] =
            `${round(peakRssBytes(pid) / MIB)} / ${round(peakAnonymousBytes / MIB)} / ` +
            `${round(cgroup.peakBytes() / MIB)}`;
          rows[`${parallel} at once: answered within ms`] = round(
            Math.max(...big.map((each) => each.latencyMs)),
          );
          rows[`${parallel} at once: pod review p50 / p99 / max ms (n)`] =
            `${round(percentile(latencies, 50))} / ${round(percentile(latencies, 99))} / ` +
            `${round(Math.max(0, ...latencies))} (${latencies.length})`;
          for (const each of [...big, ...pods].filter((outcome) => !outcome.ok)) {
            problems.push(`${parallel} at once: ${each.error}`);
          }
        }
        rows["OOM kills"] = cgroup.oomKills();
        recordFigures(`max-size CocoonSet UPDATE (${shape}), 256 MiB cgroup`, rows);
        if (problems.length) console.log(problems.slice(0, 20).join("\n"));
        expect(cgroup.oomKills()).toBe(0);
        expect(webhook.process.exitCode).toBeNull();
        expect(problems).toEqual([]);
      },
      180_000,
    );
  },
);
