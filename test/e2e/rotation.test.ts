import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, rmSync } from "node:fs";
import { describeFailures, startMixedLoad } from "../chaos/support";
import { admissionReview } from "../support/admission-review";
import { createTestCa } from "../support/certs";
import { eventually, waitUntil } from "../support/eventually";
import { listeningSocketsOnPort } from "../support/procfs";
import { SecretVolume, serialOf, servedSerial } from "../support/secret-volume";
import { dropPrivileges, privilegesOf, tcpMigrateReq } from "../support/unprivileged";
import { sampleValue, startWebhook, type WebhookProcess } from "./harness";

const ROTATIONS = 8;
const BURST_REWRITES = 15;

const privileges = dropPrivileges();
const ca = createTestCa("rotation-e2e-ca");

async function startRotating(env: Record<string, string> = {}) {
  const first = ca.issue(`first-${crypto.randomUUID()}`);
  const volume = new SecretVolume(first);
  chmodSync(volume.dir, 0o755); // readable by the unprivileged user
  const webhook = await startWebhook({
    ca,
    serving: volume.servingOf(first),
    env: { WEBHOOK_LOG_LEVEL: "info", ...env },
    wrap: privileges.wrap,
  });
  return { volume, webhook };
}

describe("certificate rotation under mixed load", () => {
  let webhook: WebhookProcess;
  let volume: SecretVolume;

  beforeAll(async () => {
    console.log(`rotation e2e: ${privileges.note}; tcp_migrate_req=${tcpMigrateReq()}`);
    ({ webhook, volume } = await startRotating());
  });
  afterAll(async () => {
    await webhook?.stop("SIGKILL");
    volume?.remove();
  });

  test("fresh-connection, keep-alive and pausing clients see zero failures through rotations one after another and a burst of rewrites; never more than two listening sockets", async () => {
    const { pid } = webhook.process;
    if (privileges.wrap.length > 0) {
      const running = privilegesOf(pid);
      expect(running.uid).toBe(65532);
      expect(running.effectiveCapabilities).toBe(0n);
      expect(running.noNewPrivs).toBeTrue();
    }
    const port = Number(new URL(webhook.admissionUrl).port);
    const metrics = webhook.metric;
    expect(await metrics("cocoon_webhook_tls_rotation_steering")).toBe(1);
    const reloadsBefore = await metrics("cocoon_webhook_tls_reloads_total", { result: "success" });

    const issued = Array.from({ length: ROTATIONS + BURST_REWRITES }, (_, i) =>
      ca.issue(`rotated-${i}`),
    );
    const load = startMixedLoad(
      { url: webhook.admissionUrl, ca: ca.cert },
      { freshClients: 6, keepAliveClients: 2, pausingClients: 4, pauseMaxMs: 1500, maxMs: 40_000 },
    );
    let maxListening = 0;
    const sampler = setInterval(() => {
      maxListening = Math.max(maxListening, listeningSocketsOnPort(port, pid).length);
    }, 20);

    // Each rotation follows as soon as the previous one is served.
    for (let rotation = 0; rotation < ROTATIONS; rotation++) {
      const next = issued[rotation];
      if (!next) throw new Error("no certificate");
      if (rotation % 2 === 0) volume.publish(next);
      else volume.rewriteInPlace(next);
      await eventually(
        () => servedSerial(webhook.admissionUrl, ca.cert),
        (serial) => serial === serialOf(next),
      );
    }
    // A burst: rewritten back to back, applied once the files settle (test/server/tls.test.ts
    // steps a clock through bursts that span many polls).
    const burst = issued.slice(ROTATIONS);
    for (const next of burst) volume.publish(next);
    const last = burst.at(-1);
    if (!last) throw new Error("no certificate");
    const served = await eventually(
      () => servedSerial(webhook.admissionUrl, ca.cert),
      (serial) => serial === serialOf(last),
    );
    // The last retired listening socket closes under load.
    const listening = () => listeningSocketsOnPort(port, pid).length;
    await waitUntil(() => listening() === 1, 10_000);
    expect(listening()).toBe(1);
    clearInterval(sampler);
    await load.stop();

    const failed = describeFailures(load.outcomes);
    const byKind = new Map<string, number>();
    for (const outcome of load.outcomes) {
      const kind = load.kindOf.get(outcome) ?? "?";
      byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    }
    const reloads =
      (await metrics("cocoon_webhook_tls_reloads_total", { result: "success" })) - reloadsBefore;
    console.log(
      `rotation e2e: ${load.outcomes.length} requests (${[...byKind].map(([k, n]) => `${k} ${n}`).join(", ")}), ${failed.length} failed, ${reloads} rotations applied, at most ${maxListening} listening sockets`,
    );
    if (failed.length > 0) console.log(failed.slice(0, 20).join("\n"));

    expect(failed).toEqual([]);
    expect(served).toBe(serialOf(last));
    expect(maxListening).toBeLessThanOrEqual(2);
    // Each spaced rotation is applied; the burst of 15 rewrites is debounced to one or two.
    expect(reloads).toBeGreaterThanOrEqual(ROTATIONS);
    expect(reloads).toBeLessThanOrEqual(ROTATIONS + 2);
    expect(byKind.get("fresh") ?? 0).toBeGreaterThan(100);
    expect(byKind.get("pausing") ?? 0).toBeGreaterThan(10);
    expect(await metrics("cocoon_webhook_tls_rotation_steering")).toBe(1);
    expect(webhook.process.exitCode).toBeNull();
  }, 60_000);
});

describe("certificate rotation with steering turned off", () => {
  test("says so once in the log and the metrics, and still rotates and serves", async () => {
    const { webhook, volume } = await startRotating({ TLS_ROTATION_STEERING: "off" });
    try {
      const metricsText = await webhook.metrics();
      expect(sampleValue(metricsText, "cocoon_webhook_tls_rotation_steering")).toBe(0);
      expect(
        sampleValue(metricsText, "cocoon_webhook_tls_rotation_steering_fallbacks_total", {
          reason: "disabled",
        }),
      ).toBe(1);
      const warnings = webhook.logs().filter((line) => line.includes("without listener steering"));
      expect(warnings.length).toBe(1);
      expect(warnings[0]).toContain('"reason":"disabled"');

      const next = ca.issue("fallback-next");
      volume.publish(next);
      const serial = await eventually(
        () => servedSerial(webhook.admissionUrl, ca.cert),
        (served) => served === serialOf(next),
      );
      expect(serial).toBe(serialOf(next));
      const answer = await webhook.post(
        "/mutate",
        admissionReview({
          uid: "fallback",
          username: "alice",
          object: { metadata: { name: "plain" }, spec: { containers: [] } },
        }),
      );
      expect(answer.status).toBe(200);
    } finally {
      await webhook.stop("SIGKILL");
      volume.remove();
    }
  }, 20_000);
});

afterAll(() => rmSync(ca.dir, { recursive: true, force: true }));
