import { afterAll, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { connect } from "node:tls";
import { createTestCa, type KeyPair } from "../support/certs";

/*
 * A canary for the Bun limitation certificate rotation works around: under
 * the pinned Bun, `server.reload({ tls })` keeps serving the certificate the
 * server started with. The admission listener therefore rotates by starting a
 * second server on the same port and steering new connections to it
 * (src/server/bun-tls-reload-workaround.ts, driven by
 * src/server/admission-listener.ts). The day this test fails, a reload swaps
 * the certificate by itself: the simpler path that module's header describes
 * (one `server.reload({ fetch, tls })` in AdmissionListener.rotate) replaces it.
 */

const ca = createTestCa("tls-reload-canary");
const first = ca.issue("first", { commonName: "first" });
const second = ca.issue("second", { commonName: "second" });

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  tls: { cert: first.cert, key: first.key },
  fetch: () => new Response("ok"),
});
afterAll(() => server.stop(true));

const fingerprintOf = (pair: KeyPair) => new X509Certificate(pair.cert).fingerprint256;

/** The certificate a fresh TLS connection is served, by its SHA-256 fingerprint. */
function servedFingerprint(): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: server.port, ca: ca.cert }, () => {
      const served = socket.getPeerX509Certificate()?.fingerprint256 ?? "";
      socket.end();
      resolve(served);
    });
    socket.on("error", reject);
  });
}

test("under the pinned Bun, server.reload({ tls }) still serves the first certificate", async () => {
  expect(await servedFingerprint()).toBe(fingerprintOf(first));
  server.reload({
    fetch: () => new Response("ok"),
    tls: { cert: second.cert, key: second.key },
  });
  const served = await servedFingerprint();
  if (served === fingerprintOf(second)) {
    throw new Error(
      `Bun ${Bun.version} serves the reloaded certificate: rotate with server.reload({ fetch, tls }) ` +
        "in AdmissionListener.rotate and delete src/server/bun-tls-reload-workaround.ts, the " +
        "listener's second server, TLS_ROTATION_STEERING and the steering metrics",
    );
  }
  expect(served).toBe(fingerprintOf(first));
});
