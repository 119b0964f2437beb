import { afterEach, describe, expect, test } from "bun:test";
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AdmissionListener } from "../../src/server/admission-listener";
import { loadTlsPair } from "../../src/server/tls-pair";
import { tlsFilesFingerprint, watchTlsFiles } from "../../src/server/tls-watcher";
import { createTestCa } from "../support/certs";

const ca = createTestCa("listener-unit-ca");
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("watchTlsFiles", () => {
  test("a change made after the baseline was taken but before watching began is still seen", async () => {
    const first = ca.issue("watch-first");
    const certFile = join(ca.dir, "watched.crt");
    const keyFile = join(ca.dir, "watched.key");
    copyFileSync(first.certFile, certFile);
    copyFileSync(first.keyFile, keyFile);
    const loaded = tlsFilesFingerprint([certFile, keyFile]);

    const rotated = ca.issue("watch-rotated");
    writeFileSync(certFile, rotated.cert);
    writeFileSync(keyFile, rotated.key);

    let changes = 0;
    cleanups.push(watchTlsFiles([certFile, keyFile], loaded, 10, () => changes++));
    await Bun.sleep(100);
    expect(changes).toBe(1);
  });
});

describe("AdmissionListener", () => {
  test("a listener started by a rotation during shutdown drains too", async () => {
    const first = ca.issue("drain-first");
    const listener = new AdmissionListener(
      {
        address: { hostname: "127.0.0.1", port: 0 },
        maxRequestBodySize: 1024,
        fetch: () => new Response("ok"),
      },
      loadTlsPair(first.certFile, first.keyFile),
    );
    cleanups.push(() => listener.stop(100));
    listener.beginDrain();
    const next = ca.issue("drain-next");
    listener.rotate(loadTlsPair(next.certFile, next.keyFile));

    const seen = new Set<string | null>();
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await fetch(`https://localhost:${listener.port}/`, {
        tls: { ca: ca.cert },
        keepalive: false,
      });
      await response.text();
      seen.add(response.headers.get("connection"));
    }
    expect([...seen]).toEqual(["close"]);
  });
});
