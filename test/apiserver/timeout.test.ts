import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createKubeApi } from "../../src/apiserver/client";
import { COCOONHIBERNATIONS } from "../../src/cocoon/crd-resources";
import type { KubeApi } from "../../src/contract/reads";
import { DEPLOYMENTS } from "../../src/kube/api-resources";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { kubeApiErrorFrom, metricDeltas } from "./helpers";

const TIMEOUT_MS = 300;
const MARGIN_MS = 150;

let apiserver: FakeApiserver;
let api: KubeApi;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  apiserver.setWorkload("deployments", "default", "web", { spec: { replicas: 1 } });
  api = createKubeApi({ timeoutMs: TIMEOUT_MS, kubeconfigPath: apiserver.kubeconfigPath }).api;
});
afterAll(() => apiserver.stop());
afterEach(() => apiserver.clearFailures());

async function timedFailure(call: () => Promise<unknown>) {
  const startedAt = performance.now();
  const error = await kubeApiErrorFrom(call());
  return { error, elapsedMs: performance.now() - startedAt };
}

describe("every call is bounded by the timeout", () => {
  test("a server slow to answer: error within the timeout, outcome timeout", async () => {
    apiserver.failNext({ kind: "slow", delayMs: 2000 });
    let elapsed = 0;
    const deltas = await metricDeltas("get", "deployments", async () => {
      const { error, elapsedMs } = await timedFailure(() =>
        api.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
      );
      elapsed = elapsedMs;
      expect(error.message).toBe(
        `GET deployments default/web: timed out after ${TIMEOUT_MS}ms waiting for the apiserver ${apiserver.url}`,
      );
    });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    expect(deltas).toEqual({ outcomes: { timeout: 1 }, durations: 1 });
  });

  test("a body that stalls after the headers also times out", async () => {
    apiserver.failNext({ kind: "stall-body", delayMs: 2000 });
    const deltas = await metricDeltas("list", "cocoonhibernations", async () => {
      const { error, elapsedMs } = await timedFailure(() =>
        api.list(COCOONHIBERNATIONS, "default"),
      );
      expect(error.message).toContain(`timed out after ${TIMEOUT_MS}ms`);
      expect(elapsedMs).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    });
    expect(deltas).toEqual({ outcomes: { timeout: 1 }, durations: 1 });
  });

  test("a slow answer inside the timeout succeeds", async () => {
    apiserver.failNext({ kind: "slow", delayMs: 50 });
    expect(await api.get(DEPLOYMENTS, { namespace: "default", name: "web" })).toMatchObject({
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
      spec: { replicas: 1 },
    });
  });
});

describe("connection failures", () => {
  test("a connection closed without an answer is an error naming the apiserver", async () => {
    apiserver.failAlways({ kind: "reset" });
    const deltas = await metricDeltas("get", "deployments", async () => {
      const error = await kubeApiErrorFrom(
        api.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
      );
      expect(error.message).toStartWith(
        `GET deployments default/web: cannot reach the apiserver ${apiserver.url}: ECONNRESET`,
      );
      expect(error.message).not.toContain("verbose");
    });
    expect(deltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
  });

  test("one reset on a pooled connection is retried by Bun's fetch and goes unnoticed", async () => {
    await api.get(DEPLOYMENTS, { namespace: "default", name: "web" });
    const requestsBefore = apiserver.requests.length;
    apiserver.failNext({ kind: "reset" });
    expect(await api.get(DEPLOYMENTS, { namespace: "default", name: "web" })).toMatchObject({
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
      spec: { replicas: 1 },
    });
    expect(apiserver.requests.length - requestsBefore).toBe(2);
  });

  test("a stopped apiserver is a connection error, not a hang", async () => {
    const gone = await startFakeApiserver();
    const { api: orphan } = createKubeApi({ timeoutMs: 2000, kubeconfigPath: gone.kubeconfigPath });
    const url = gone.url;
    await gone.stop();
    const error = await kubeApiErrorFrom(orphan.list(COCOONHIBERNATIONS, "default"));
    expect(error.message).toStartWith(
      `LIST cocoonhibernations in default: cannot reach the apiserver ${url}`,
    );
  });
});
