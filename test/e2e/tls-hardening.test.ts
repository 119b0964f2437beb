import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { createTestCa } from "../support/certs";
import { eventually } from "../support/eventually";
import { SecretVolume, serialOf, servedSerial } from "../support/secret-volume";
import { startWebhook, type WebhookProcess } from "./harness";

const HOUR = 3600_000;

/** The cipher a TLS 1.2 handshake offering only `cipher` agrees on, or "(NONE)". */
function negotiatedTls12Cipher(url: string, cipher: string): string {
  const { port } = new URL(url);
  const result = Bun.spawnSync(
    ["openssl", "s_client", "-connect", `127.0.0.1:${port}`, "-tls1_2", "-cipher", cipher],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "" } },
  );
  const line = /Cipher is (\S+)/.exec(result.stdout.toString());
  expect(line).not.toBeNull(); // openssl ran and reported on the handshake
  return line?.[1] ?? "";
}

describe("TLS 1.2 offers forward-secret AEAD suites only", () => {
  const ca = createTestCa("suites-ca");
  // RSA, so that static-RSA key exchange suites could be chosen if they were offered.
  const serving = ca.issue("suites-rsa", { keyType: "rsa" });
  let webhook: WebhookProcess;
  beforeAll(async () => {
    webhook = await startWebhook({ ca, serving });
  });
  afterAll(() => webhook.stop());

  test.each([
    "AES128-SHA",
    "AES256-GCM-SHA384",
    "AES128-GCM-SHA256",
    "ECDHE-RSA-AES128-SHA",
    "ECDHE-RSA-AES256-SHA",
  ])("refuses %s", (cipher) => {
    expect(negotiatedTls12Cipher(webhook.admissionUrl, cipher)).toBe("(NONE)");
  });

  test.each([
    "ECDHE-RSA-AES128-GCM-SHA256",
    "ECDHE-RSA-AES256-GCM-SHA384",
    "ECDHE-RSA-CHACHA20-POLY1305",
  ])("accepts %s", (cipher) => {
    expect(negotiatedTls12Cipher(webhook.admissionUrl, cipher)).toBe(cipher);
  });

  test("TLS 1.3 is unchanged", async () => {
    expect(await servedSerial(webhook.admissionUrl, ca.cert, { minVersion: "TLSv1.3" })).toBe(
      serialOf(serving),
    );
  });
});

describe("a serving certificate that is expired at start", () => {
  const ca = createTestCa("expired-start-ca");
  const now = Date.now();
  const serving = ca.issue("expired", {
    validity: { notBefore: new Date(now - 2 * HOUR), notAfter: new Date(now - HOUR) },
  });
  let webhook: WebhookProcess;
  beforeAll(async () => {
    webhook = await startWebhook({ ca, serving, startedWhen: "/healthz" });
  });
  afterAll(() => webhook.stop());

  test("/readyz answers 503 naming the problem, on both listeners", async () => {
    const ops = await fetch(`${webhook.opsUrl}/readyz`);
    expect(ops.status).toBe(503);
    expect(await ops.text()).toStartWith("not ready: the serving certificate expired at ");
    const admission = await fetch(`${webhook.admissionUrl}/readyz`, {
      tls: { rejectUnauthorized: false },
    });
    expect(admission.status).toBe(503);
  });

  test("is logged at error level at start, and its expiry is still exported", async () => {
    const errorLines = async () =>
      webhook
        .logs()
        .map((line) => JSON.parse(line))
        .filter((line) => line.level === "error");
    const errors = await eventually(errorLines, (lines) => lines.length > 0);
    expect(errors.map((line) => line.msg)).toContainEqual(
      expect.stringContaining("the serving certificate expired at"),
    );
    const expiry = await webhook.metric("cocoon_webhook_tls_certificate_expiry_timestamp_seconds");
    expect(expiry).toBeLessThan(Date.now() / 1000);
  });
});

describe("certificate files that are not usable are refused on reload, the served pair kept", () => {
  const ca = createTestCa("unusable-files-ca");
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
    volume.remove();
  });

  const failures = () =>
    webhook.metric("cocoon_webhook_tls_reloads_total", {
      result: "failure",
    });

  /** Swaps the certificate behind the volume's `..data` link, then waits for the refused reload. */
  async function expectRefused(swap: (certPath: string) => void): Promise<void> {
    const before = await failures();
    swap(join(volume.dir, "..data", "tls.crt"));
    expect(await eventually(failures, (count) => count > before, 10_000)).toBeGreaterThan(before);
    expect((await fetch(`${webhook.opsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${webhook.opsUrl}/readyz`)).status).toBe(200);
    expect(await servedSerial(webhook.admissionUrl, ca.cert)).toBe(serialOf(first));
  }

  test("a FIFO in place of tls.crt: no hang, counted, the old certificate still served", async () => {
    await expectRefused((certPath) => {
      rmSync(certPath);
      expect(Bun.spawnSync(["mkfifo", certPath]).exitCode).toBe(0);
    });
  });

  test("a symlink to /dev/zero in place of tls.crt: refused without reading it", async () => {
    await expectRefused((certPath) => {
      rmSync(certPath);
      symlinkSync("/dev/zero", certPath);
    });
  });

  test("an expired certificate is refused like a mismatched pair", async () => {
    const now = Date.now();
    const expired = ca.issue("rotated-expired", {
      validity: { notBefore: new Date(now - 2 * HOUR), notAfter: new Date(now - HOUR) },
    });
    const before = await failures();
    volume.publish(expired);
    expect(await eventually(failures, (count) => count > before, 10_000)).toBeGreaterThan(before);
    expect(await servedSerial(webhook.admissionUrl, ca.cert)).toBe(serialOf(first));
    const refusals = async () =>
      webhook
        .logs()
        .map((line) => JSON.parse(line))
        .filter((line) => line.level === "error" && /expired at/.test(line.err?.message ?? ""));
    expect((await eventually(refusals, (lines) => lines.length > 0)).length).toBeGreaterThan(0);
  });

  test("a valid pair published afterwards is served", async () => {
    const renewed = ca.issue("renewed");
    volume.publish(renewed);
    expect(
      await eventually(
        () => servedSerial(webhook.admissionUrl, ca.cert),
        (serial) => serial === serialOf(renewed),
        10_000,
      ),
    ).toBe(serialOf(renewed));
  });
});
