import { describe, expect, test } from "bun:test";
import { admissionReview } from "../support/admission-review";
import { eventually } from "../support/eventually";
import { freePort } from "../support/free-port";
import { holdRequest, readReview, startWebhook } from "./harness";

const plainPod = admissionReview({ object: { metadata: { name: "plain" }, spec: {} } });

describe("probes", () => {
  test("answer on both listeners and reject other methods", async () => {
    const webhook = await startWebhook();
    try {
      const tlsOptions = { tls: { ca: webhook.ca.cert } };
      for (const base of [webhook.admissionUrl, webhook.opsUrl]) {
        const healthz = await fetch(`${base}/healthz`, tlsOptions);
        expect([healthz.status, await healthz.text()]).toEqual([200, "ok"]);
        const readyz = await fetch(`${base}/readyz`, tlsOptions);
        expect([readyz.status, await readyz.text()]).toEqual([200, "ready"]);
        expect((await fetch(`${base}/healthz`, { ...tlsOptions, method: "POST" })).status).toBe(
          405,
        );
      }
      const metrics = await fetch(`${webhook.opsUrl}/metrics`);
      expect(metrics.headers.get("content-type")).toContain("text/plain");
      expect(await metrics.text()).toContain("process_resident_memory_bytes");
    } finally {
      await webhook.stop();
    }
  });
});

describe("listen addresses", () => {
  test("a bare :port listens on every address, IPv4 and IPv6 loopback alike", async () => {
    const admissionPort = freePort();
    const opsPort = freePort();
    const webhook = await startWebhook({
      env: { LISTEN_ADDR: `:${admissionPort}`, METRICS_ADDR: `:${opsPort}` },
      ports: { admission: admissionPort, ops: opsPort },
    });
    try {
      for (const host of ["127.0.0.1", "[::1]"]) {
        const ops = await fetch(`http://${host}:${opsPort}/healthz`);
        expect({ host, status: ops.status }).toEqual({ host, status: 200 });
        const admission = await fetch(`https://${host}:${admissionPort}/healthz`, {
          tls: { ca: webhook.ca.cert, serverName: "localhost" },
        });
        expect({ host, status: admission.status }).toEqual({ host, status: 200 });
      }
    } finally {
      await webhook.stop();
    }
  });
});

describe("graceful shutdown", () => {
  test("SIGTERM: not ready at once, serves through DRAIN_DELAY, finishes in-flight requests, exits 0", async () => {
    // The held request holds its body back past DRAIN_DELAY, so past the default 2 s body-read
    // deadline on a slow machine; it stands for a review still in flight, not a slow sender.
    const webhook = await startWebhook({
      env: { DRAIN_DELAY: "1500ms", SHUTDOWN_TIMEOUT: "5s", BODY_READ_TIMEOUT: "30s" },
    });
    const inFlight = holdRequest(webhook, JSON.stringify(plainPod));
    const inFlightGauge = () => webhook.metric("cocoon_webhook_http_requests_in_flight");
    expect(await eventually(inFlightGauge, (count) => count === 1)).toBe(1);

    const signalledAt = Date.now();
    webhook.process.kill("SIGTERM");
    expect(await webhook.logLine("shutdown: not ready, draining")).toBeDefined();
    expect((await fetch(`${webhook.opsUrl}/readyz`)).status).toBe(503);
    expect(
      (await fetch(`${webhook.admissionUrl}/readyz`, { tls: { ca: webhook.ca.cert } })).status,
    ).toBe(503);

    const duringDrain = await webhook.post("/mutate", plainPod);
    expect(duringDrain.status).toBe(200);
    expect(duringDrain.headers.get("connection")).toBe("close");
    expect((await readReview(duringDrain)).response.allowed).toBeTrue();

    // Past DRAIN_DELAY: the listener no longer accepts, the held request is still open.
    expect(await webhook.logLine("shutdown: finishing in-flight requests")).toBeDefined();
    inFlight.finish();
    const answer = await inFlight.answered;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).response.uid).toBe(plainPod.request.uid);

    expect(await webhook.process.exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(1500 + 5000);
  }, 15_000);

  test("a second signal exits at once", async () => {
    const webhook = await startWebhook({ env: { DRAIN_DELAY: "20s" } });
    webhook.process.kill("SIGTERM");
    expect(await webhook.logLine("shutdown requested")).toBeDefined();
    const secondAt = Date.now();
    webhook.process.kill("SIGINT");
    const code = await webhook.process.exited;
    expect(Date.now() - secondAt).toBeLessThan(1000);
    expect(code).not.toBe(0);
  });
});
