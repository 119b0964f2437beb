import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import tls from "node:tls";
import { IDLE_TIMEOUT_SECONDS } from "../../src/server/admission-listener";
import { admissionReview } from "../support/admission-review";
import { eventually } from "../support/eventually";
import { startWebhook, type WebhookProcess } from "./harness";

/*
 * Two timeouts, for two different things. A connection that has not sent a
 * whole request head is closed by Bun's HTTP server after about 10 s (a fixed
 * header timeout; the apiserver writes its request as soon as the handshake
 * is done, so only a stalled or hostile client meets it). A keep-alive
 * connection idle between requests is closed only after IDLE_TIMEOUT_SECONDS,
 * longer than the apiserver client's own 90 s, so the client closes it first.
 * The full 120 s is observed by the chaos soak.
 */

/** The apiserver's HTTP client closes idle connections after this long. */
const APISERVER_CLIENT_IDLE_SECONDS = 90;
/** Bun's header timeout is 10 s, checked on a timer of a few seconds. */
const HEADER_TIMEOUT_BOUND_MS = 20_000;

interface WatchedConnection {
  readonly socket: tls.TLSSocket;
  closedAfterMs: number | undefined;
}

function connect(webhook: WebhookProcess, firstBytes?: string): Promise<WatchedConnection> {
  const { hostname, port } = new URL(webhook.admissionUrl);
  const openedAt = performance.now();
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { host: hostname, port: Number(port), ca: webhook.ca.cert, servername: hostname },
      () => {
        if (firstBytes) socket.write(firstBytes);
        resolve(watched);
      },
    );
    const watched: WatchedConnection = { socket, closedAfterMs: undefined };
    socket.on("error", reject);
    socket.on("close", () => {
      watched.closedAfterMs = performance.now() - openedAt;
    });
  });
}

let webhook: WebhookProcess;
beforeAll(async () => {
  webhook = await startWebhook();
});
afterAll(async () => {
  await webhook.stop();
});

describe("connection timeouts", () => {
  test("the keep-alive timeout outlives the apiserver client's", () => {
    expect(IDLE_TIMEOUT_SECONDS).toBeGreaterThan(APISERVER_CLIENT_IDLE_SECONDS);
  });

  test("a TLS connection that never sends a request is closed by the header timeout; a pooled one idle as long stays open", async () => {
    const silent = await connect(webhook);
    const body = JSON.stringify(admissionReview({ object: { spec: {} } }));
    const pooled = await connect(
      webhook,
      `POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const answered = await eventually(
      () => pooled.socket.bytesRead > 0,
      Boolean,
      HEADER_TIMEOUT_BOUND_MS,
    );
    expect(answered).toBeTrue();

    await eventually(
      () => silent.closedAfterMs,
      (closed) => closed !== undefined,
      HEADER_TIMEOUT_BOUND_MS,
      250,
    );
    expect(silent.closedAfterMs ?? Number.POSITIVE_INFINITY).toBeLessThan(HEADER_TIMEOUT_BOUND_MS);
    expect(pooled.closedAfterMs).toBeUndefined();
    pooled.socket.destroy();
  }, 30_000);
});
