import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { WebhookProcess } from "../e2e/harness";
import { createTestCa, type TestCa } from "../support/certs";
import { SecretVolume, serialOf, servedSerial } from "../support/secret-volume";
import {
  CHAOS_ENABLED,
  describeFailures,
  eventually,
  percentile,
  recordFigures,
  startKeepAliveLoad,
} from "./support";

const ROTATIONS = 20;
/** The watcher polls every 1 s; cert-manager never rotates faster than that. */
const ROTATION_SPACING_MS = 1500;
const MISMATCH_AFTER = 10;
/** Longer than the listener's 1 s retire window (RETIRE_AFTER_MS), counted from detection. */
const RETIRE_SETTLE_MS = 2500;

describe.skipIf(!CHAOS_ENABLED)("chaos: certificate rotation under keep-alive load", () => {
  let ca: TestCa;
  let volume: SecretVolume | undefined;
  let firstCert = "";
  let webhook: WebhookProcess;
  let sampleValue: typeof import("../e2e/harness").sampleValue;

  beforeAll(async () => {
    ca = createTestCa("chaos-rotation-ca");
    const first = ca.issue("first");
    firstCert = first.cert;
    volume = new SecretVolume(first);
    const harness = await import("../e2e/harness");
    sampleValue = harness.sampleValue;
    webhook = await harness.startWebhook({
      ca,
      serving: { ...first, certFile: volume.certFile, keyFile: volume.keyFile },
      env: { WEBHOOK_LOG_LEVEL: "info" },
    });
  });
  afterAll(async () => {
    await webhook?.stop("SIGKILL");
    volume?.remove();
    if (ca) rmSync(ca.dir, { recursive: true, force: true });
  });

  const reloads = async (result: "success" | "failure") =>
    sampleValue(await webhook.metrics(), "cocoon_webhook_tls_reloads_total", { result });

  test(`${ROTATIONS} rotations (Secret-volume swaps and in-place rewrites) and one mismatched pair: zero failed requests`, async () => {
    const secret = volume;
    if (!secret) throw new Error("no Secret volume");
    // Issued up front: openssl runs synchronously and would stall the clients mid-run.
    const issued = Array.from({ length: ROTATIONS }, (_, i) => ca.issue(`rotated-${i}`));
    const mismatchA = ca.issue("mismatch-a");
    const mismatchB = ca.issue("mismatch-b");
    const target = { url: webhook.admissionUrl, ca: ca.cert };
    const load = startKeepAliveLoad(target, { fetchClients: 4, agentClients: 4, maxMs: 180_000 });
    const successBefore = await reloads("success");
    const failureBefore = await reloads("failure");
    const served = () => servedSerial(webhook.admissionUrl, ca.cert);

    const observeMs: number[] = [];
    const observed: boolean[] = [];
    let mismatchKeptOld = false;
    let mismatchCounted = false;
    let lastRotationAt = 0;
    let lastIssued = firstCert;
    const spaced = async () => {
      const wait = lastRotationAt + ROTATION_SPACING_MS - Date.now();
      if (wait > 0) await Bun.sleep(wait);
      lastRotationAt = Date.now();
    };

    for (let rotation = 0; rotation < ROTATIONS; rotation++) {
      if (rotation === MISMATCH_AFTER) {
        await spaced();
        // Let the previous rotation's listener retire, so every handshake sees one certificate.
        await Bun.sleep(RETIRE_SETTLE_MS);
        const servingBefore = serialOf({ cert: lastIssued });
        secret.publish({ cert: mismatchA.cert, key: mismatchB.key });
        const failures = await eventually(
          () => reloads("failure"),
          (count) => count > failureBefore,
          5000,
        );
        mismatchCounted = failures === failureBefore + 1;
        const afterMismatch = await Promise.all(Array.from({ length: 5 }, served));
        mismatchKeptOld = afterMismatch.every((serial) => serial === servingBefore);
      }
      await spaced();
      const next = issued[rotation];
      if (!next) throw new Error(`no certificate for rotation ${rotation}`);
      lastIssued = next.cert;
      const rotatedAt = performance.now();
      if (rotation % 2 === 0) secret.publish(next);
      else secret.rewriteInPlace(next);
      const serial = await eventually(served, (value) => value === serialOf(next), 6000);
      observed.push(serial === serialOf(next));
      observeMs.push(performance.now() - rotatedAt);
    }

    await Bun.sleep(2000); // the last retired listener finishes its drain window under load
    // Once retired, no listener serves an older certificate: every fresh handshake gets the last one.
    const lastSerial = serialOf({ cert: lastIssued });
    const settled = await Promise.all(Array.from({ length: 20 }, served));
    const staleAfterRetire = settled.filter((serial) => serial !== lastSerial).length;
    await load.stop();
    const failed = describeFailures(load.outcomes);
    const successDelta = (await reloads("success")) - successBefore;
    const failureDelta = (await reloads("failure")) - failureBefore;
    const closes = load.outcomes.filter((outcome) => outcome.connectionClose).length;
    const latencies = load.outcomes.map((outcome) => outcome.latencyMs);

    recordFigures("rotation under load", {
      clients: "4 Bun fetch + 4 node:https keepAlive (wrk not installed)",
      rotations: ROTATIONS,
      "rotations observed on a fresh handshake": observed.filter(Boolean).length,
      "time to observe, p50 ms": percentile(observeMs, 50),
      "time to observe, max ms": Math.max(...observeMs),
      "requests answered": load.outcomes.length,
      "requests failed": failed.length,
      "responses with Connection: close": closes,
      "request latency p50 ms": percentile(latencies, 50),
      "request latency p99 ms": percentile(latencies, 99),
      "request latency max ms": Math.max(...latencies),
      "reloads success (delta)": successDelta,
      "reloads failure (delta)": failureDelta,
      "mismatched pair kept old certificate": mismatchKeptOld,
      "stale certificates on 20 fresh handshakes after the last retire": staleAfterRetire,
    });
    if (failed.length > 0) {
      console.log(failed.slice(0, 20).join("\n"));
    }

    expect(failed).toEqual([]);
    expect(observed).toEqual(Array.from({ length: ROTATIONS }, () => true));
    expect(mismatchKeptOld).toBeTrue();
    expect(staleAfterRetire).toBe(0);
    expect(mismatchCounted).toBeTrue();
    expect(failureDelta).toBe(1);
    expect(successDelta).toBe(ROTATIONS);
    expect(load.outcomes.length).toBeGreaterThan(1000);
    expect(webhook.process.exitCode).toBeNull();
  }, 240_000);
});
