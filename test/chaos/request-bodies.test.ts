import { afterAll, describe, expect, test } from "bun:test";
import { MAX_DECODED_CONTAINERS } from "../../src/json/containers";
import { admissionReview } from "../support/admission-review";
import { memoryCgroupUnavailable } from "../support/memory-cgroup";
import { MIB, peakRssBytes, resetPeakRss } from "../support/procfs";
import {
  concurrentChunkedReviews,
  reviewsBehindSlowSender,
  stalledChunkedUploads,
} from "../support/uploads";
import { CHAOS_ENABLED, recordFigures, round, startWebhookInMemoryCgroup } from "./support";

/*
 * A client talking to the admission port directly, against the binary with
 * its default limits inside a memory cgroup of the manifests' limit: stalled
 * and concurrent chunked uploads, the densest review it accepts, and a slow
 * sender ahead of a large review. Memory is asserted (no OOM kill, every
 * request answered as it should be); the figures go to docs/reliability.md.
 */

/** limits.memory of manifests/base/deployment.yaml. */
const MEMORY_LIMIT_BYTES = 256 * MIB;
/** The default MAX_REQUEST_BYTES. */
const MAX_REQUEST_BYTES = 5 * MIB;
const unavailable = CHAOS_ENABLED ? memoryCgroupUnavailable() : undefined;

if (CHAOS_ENABLED && unavailable) {
  console.warn(
    `\n*** SKIPPED: hostile uploads in a ${MEMORY_LIMIT_BYTES / MIB} MiB memory cgroup: ${unavailable} ***\n`,
  );
}

/** A CocoonSet CREATE of `count` empty toolboxes: three bytes of JSON each. */
function emptyToolboxes(count: number): string {
  const review = admissionReview({
    kind: { group: "cocoonset.cocoonstack.io", version: "v1", kind: "CocoonSet" },
    resource: { group: "cocoonset.cocoonstack.io", version: "v1", resource: "cocoonsets" },
    namespace: "team-a",
    name: "dense",
    object: { metadata: { name: "dense" }, spec: { agent: { image: "a:1" }, toolboxes: [] } },
  });
  return JSON.stringify(review).replace(
    '"toolboxes":[]',
    `"toolboxes":[${Array(count).fill("{}").join(",")}]`,
  );
}

describe.skipIf(!CHAOS_ENABLED || unavailable !== undefined)(
  `chaos: hostile uploads inside a ${MEMORY_LIMIT_BYTES / MIB} MiB memory cgroup`,
  () => {
    const cleanups: (() => Promise<void> | void)[] = [];
    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    test("stalled and concurrent chunked uploads, the densest accepted review and a slow sender: never OOM-killed", async () => {
      const { webhook, cgroup } = await startWebhookInMemoryCgroup(
        "cocoon-chaos-bodies",
        MEMORY_LIMIT_BYTES,
        cleanups,
      );
      const pid = webhook.process.pid;
      const target = { url: webhook.admissionUrl, ca: webhook.ca.cert };
      const rows: Record<string, string | number> = {};
      const problems: string[] = [];
      const peakMib = () => round(peakRssBytes(pid) / MIB);
      const measure = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
        resetPeakRss(pid);
        const startedAt = performance.now();
        const result = await run();
        rows[`${name}: peak RSS MiB`] = peakMib();
        rows[`${name}: took s`] = round((performance.now() - startedAt) / 1000);
        return result;
      };
      rows["RSS at ready MiB"] = peakMib();

      // 1. Thirty chunked uploads of about 6.9 MiB each without a final chunk.
      const stalled = await measure("30 stalled chunked uploads of 6.9 MiB", () =>
        stalledChunkedUploads(target, 30, Math.round(6.9 * MIB)),
      );
      rows["30 stalled chunked uploads of 6.9 MiB: answers"] = summary(stalled);
      if (stalled.some((answer) => answer.status !== 413 && answer.status !== 0))
        problems.push(`stalled uploads: ${summary(stalled)}`);

      // 2. Sixty complete chunked reviews of 4.5 MB at once.
      const concurrent = await measure("60 concurrent chunked 4.5 MB reviews", () =>
        concurrentChunkedReviews(target, 60, 4.5e6),
      );
      rows["60 concurrent chunked 4.5 MB reviews: answers"] = summary(concurrent);
      if (concurrent.some((answer) => answer.status !== 200))
        problems.push(`concurrent chunked reviews: ${summary(concurrent)}`);

      // 3. The densest review accepted, and one past the cap of the same bytes.
      const densest = emptyToolboxes(MAX_DECODED_CONTAINERS - 16);
      const accepted = await measure(
        `${MAX_DECODED_CONTAINERS - 16} empty toolboxes`,
        async () => (await webhook.post("/validate-cocoonset", densest)).status,
      );
      rows[`densest accepted review: bytes`] = densest.length;
      if (accepted !== 200) problems.push(`densest accepted review: ${accepted}`);
      const denser = emptyToolboxes(Math.floor((MAX_REQUEST_BYTES - 1024) / 3));
      const refused = await measure(
        `${Math.floor((MAX_REQUEST_BYTES - 1024) / 3)} empty toolboxes`,
        async () => (await webhook.post("/validate-cocoonset", denser)).status,
      );
      if (refused !== 413) problems.push(`a review past the container cap: ${refused}, not 413`);

      // 4. A Content-Length sender that trickles, ahead of three 392 KB reviews.
      const slowSender = await reviewsBehindSlowSender(
        target,
        (body) => webhook.post("/mutate", body),
        500,
      );
      rows["three 392 KB reviews behind a slow sender: answered within ms"] = round(
        slowSender.waitedMs,
      );
      rows["the slow sender's answer"] = slowSender.slow.status;
      if (slowSender.behind.some((status) => status !== 200))
        problems.push(`reviews behind a slow sender: ${slowSender.behind}`);
      if (slowSender.slow.status !== 408) problems.push(`slow sender: ${slowSender.slow.status}`);

      rows["cgroup peak MiB"] = round(cgroup.peakBytes() / MIB);
      rows["OOM kills"] = cgroup.oomKills();
      recordFigures("hostile uploads, 256 MiB cgroup", rows);
      if (problems.length) console.log(problems.join("\n"));
      expect(cgroup.oomKills()).toBe(0);
      expect(webhook.process.exitCode).toBeNull();
      expect(problems).toEqual([]);
    }, 180_000);
  },
);

/** `413 × 29, 0 × 1`: how many answers had each status. */
function summary(answers: readonly { status: number }[]): string {
  const counts = new Map<number, number>();
  for (const { status } of answers) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${status} × ${count}`).join(", ");
}
