import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { admissionReview } from "../support/admission-review";
import { createTestCa } from "../support/certs";
import { eventually, waitUntil } from "../support/eventually";
import { listeningSocketsOnPort } from "../support/procfs";
import { SecretVolume, serialOf, servedSerial } from "../support/secret-volume";
import { startWebhook, type WebhookProcess } from "./harness";

describe("TLS", () => {
  const ca = createTestCa("rotation-ca");
  const first = ca.issue("first");
  const volume = new SecretVolume(first);
  let webhook: WebhookProcess;

  beforeAll(async () => {
    webhook = await startWebhook({
      ca,
      serving: volume.servingOf(first),
    });
  });
  afterAll(async () => {
    await webhook.stop();
  });

  test("refuses TLS 1.1 and accepts TLS 1.2", async () => {
    await expect(
      servedSerial(webhook.admissionUrl, ca.cert, { minVersion: "TLSv1", maxVersion: "TLSv1.1" }),
    ).rejects.toThrow();
    expect(
      await servedSerial(webhook.admissionUrl, ca.cert, {
        minVersion: "TLSv1.2",
        maxVersion: "TLSv1.2",
      }),
    ).toBeString();
  });

  test("exposes the serving certificate's expiry", async () => {
    const expiry = await webhook.metric("cocoon_webhook_tls_certificate_expiry_timestamp_seconds");
    const notAfter = new X509Certificate(first.cert).validTo;
    expect(expiry).toBe(Math.floor(new Date(notAfter).getTime() / 1000));
  });

  test("serves rotated certificates without a restart, under keep-alive load, with zero failed requests", async () => {
    const stopLoad = { stop: false };
    const body = JSON.stringify(
      admissionReview({ object: { metadata: { name: "plain" }, spec: {} } }),
    );
    const failures: string[] = [];
    let answered = 0;
    const client = async () => {
      while (!stopLoad.stop) {
        try {
          const response = await webhook.post("/mutate", body);
          if (response.status !== 200) failures.push(`HTTP ${response.status}`);
          await response.arrayBuffer();
          answered++;
        } catch (error) {
          failures.push(`${new Date().toISOString()} ${(error as Error).message.slice(0, 30)}`);
        }
      }
    };
    const clients = Array.from({ length: 4 }, client);
    const before = await webhook.metric("cocoon_webhook_tls_reloads_total", {
      result: "success",
    });

    const served = () => servedSerial(webhook.admissionUrl, ca.cert);
    const admissionPort = Number(new URL(webhook.admissionUrl).port);
    const seen: string[] = [];
    const rotations = [0, 1, 2].map((rotation) => ca.issue(`rotated-${rotation}`));
    for (const next of rotations) {
      volume.publish(next);
      seen.push(await eventually(served, (serial) => serial === serialOf(next)));
    }
    // A plain in-place rewrite of both files is picked up too.
    const inPlace = ca.issue("in-place");
    volume.rewriteInPlace(inPlace);
    seen.push(await eventually(served, (serial) => serial === serialOf(inPlace)));

    // The last retired listener finishes its drain window under load.
    const listening = () => listeningSocketsOnPort(admissionPort, webhook.process.pid).length;
    await waitUntil(() => listening() === 1, 10_000);
    expect(listening()).toBe(1);
    stopLoad.stop = true;
    await Promise.all(clients);

    expect(seen).toEqual([...rotations.map(serialOf), serialOf(inPlace)]);
    if (failures.length)
      console.log(
        webhook
          .logs()
          .filter((l) => l.includes("rotat"))
          .join("\n"),
      );
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(50);
    const after = await webhook.metric("cocoon_webhook_tls_reloads_total", {
      result: "success",
    });
    expect(after - before).toBeGreaterThanOrEqual(4);
  }, 30_000);

  test("keeps serving the old certificate when the new pair does not match, and counts the failure", async () => {
    const servedBefore = await servedSerial(webhook.admissionUrl, ca.cert);
    const failuresBefore = await webhook.metric("cocoon_webhook_tls_reloads_total", {
      result: "failure",
    });
    const a = ca.issue("mismatch-a");
    const b = ca.issue("mismatch-b");
    volume.publish({ cert: a.cert, key: b.key });

    const failuresAfter = await eventually(
      () =>
        webhook.metric("cocoon_webhook_tls_reloads_total", {
          result: "failure",
        }),
      (count) => count > failuresBefore,
    );
    expect(failuresAfter).toBe(failuresBefore + 1);
    expect(await servedSerial(webhook.admissionUrl, ca.cert)).toBe(servedBefore);
    expect((await webhook.post("/mutate", admissionReview({ object: { spec: {} } }))).status).toBe(
      200,
    );
    expect(webhook.logs().some((line) => line.includes("does not match"))).toBeTrue();

    // The next good pair is picked up again.
    const good = ca.issue("recovered");
    volume.publish(good);
    const recovered = await eventually(
      () => servedSerial(webhook.admissionUrl, ca.cert),
      (serial) => serial === serialOf(good),
    );
    expect(recovered).toBe(serialOf(good));
  }, 20_000);

  test("exits non-zero naming the file when the certificate is missing at start", async () => {
    const missing = join(volume.dir, "absent.crt");
    copyFileSync(first.keyFile, join(volume.dir, "present.key"));
    await expect(
      startWebhook({
        ca,
        serving: { ...first, certFile: missing, keyFile: join(volume.dir, "present.key") },
      }),
    ).rejects.toThrow(/exited with [1-9].*absent\.crt/s);
  });
});
