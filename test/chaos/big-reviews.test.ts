import { afterAll, describe, expect, test } from "bun:test";
import { MAX_SIZE_SHAPES, type MaxSizeShape, maxSizeUpdate } from "../support/max-size-reviews";
import { memoryCgroupUnavailable } from "../support/memory-cgroup";
import { MIB, peakRssBytes, resetPeakRss } from "../support/procfs";
import {
  CHAOS_ENABLED,
  maxSizeBurst,
  percentile,
  recordFigures,
  round,
  startWebhookInMemoryCgroup,
} from "./support";

/*
 * The largest reviews the apiserver can send, 1, 4 and 8 at once, answered
 * by the binary inside a memory cgroup of the manifests' limit, while a
 * plain pod review is sent every 20 ms beside them. Memory is asserted
 * (no OOM kill, every review answered); latencies are figures only.
 */

/** limits.memory of manifests/base/deployment.yaml. */
const MEMORY_LIMIT_BYTES = 256 * MIB;
const PARALLEL = [1, 4, 8] as const;
const unavailable = CHAOS_ENABLED ? memoryCgroupUnavailable() : undefined;

if (CHAOS_ENABLED && unavailable) {
  console.warn(
    `\n*** SKIPPED: max-size reviews in a ${MEMORY_LIMIT_BYTES / MIB} MiB memory cgroup: ${unavailable} ***\n`,
  );
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
        const { webhook, cgroup } = await startWebhookInMemoryCgroup(
          "cocoon-chaos",
          MEMORY_LIMIT_BYTES,
          cleanups,
        );
        const review = maxSizeUpdate(shape);
        const pid = webhook.process.pid;
        const rows: Record<string, string | number> = {
          "request bytes": JSON.stringify(review).length,
          "RSS at ready MiB": round(peakRssBytes(pid) / MIB),
        };
        const problems: string[] = [];
        // One review first, so the figures are of a warm process.
        await maxSizeBurst(webhook, review, 1);

        for (const parallel of PARALLEL) {
          resetPeakRss(pid);
          cgroup.resetPeak();
          const { big, pods, peakAnonymousBytes } = await maxSizeBurst(webhook, review, parallel);
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
