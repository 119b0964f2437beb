import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKubeApi } from "../../src/apiserver/client";
import { DEPLOYMENTS } from "../../src/kube/api-resources";
import { createTestCa } from "../support/certs";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { kubeApiErrorFrom, metricDeltas, withEnvironment } from "./helpers";

let apiserver: FakeApiserver;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  apiserver.setWorkload("deployments", "default", "web", { spec: { replicas: 1 } });
});
afterAll(() => apiserver.stop());

describe("apiserver certificate verification under Bun", () => {
  test("the cluster CA from the kubeconfig verifies the apiserver", async () => {
    const { api } = createKubeApi({ timeoutMs: 3000, kubeconfigPath: apiserver.kubeconfigPath });
    expect(await api.get(DEPLOYMENTS, { namespace: "default", name: "web" })).toMatchObject({
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
      spec: { replicas: 1 },
    });
  });

  test("an apiserver whose certificate another CA signed is refused", async () => {
    const otherCa = createTestCa("unrelated-ca");
    const kubeconfigPath = apiserver.writeKubeconfig({ caPem: otherCa.cert });
    const { api } = createKubeApi({ timeoutMs: 3000, kubeconfigPath });

    const deltas = await metricDeltas("get", "deployments", async () => {
      const error = await kubeApiErrorFrom(
        api.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
      );
      expect(error.message).toStartWith(
        `GET deployments default/web: TLS: unable to verify the certificate of the apiserver ${apiserver.url}`,
      );
      expect(error.message).toContain("certificate");
      expect(error.status).toBeUndefined();
    });

    expect(deltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
    expect(apiserver.requests).toHaveLength(1);
  });

  test("NODE_TLS_REJECT_UNAUTHORIZED=0 does not turn verification off", async () => {
    const kubeconfigPath = apiserver.writeKubeconfig({ caPem: createTestCa("unrelated-ca").cert });
    await withEnvironment({ NODE_TLS_REJECT_UNAUTHORIZED: "0" }, async () => {
      const { api } = createKubeApi({ timeoutMs: 3000, kubeconfigPath });
      const error = await kubeApiErrorFrom(
        api.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
      );
      expect(error.message).toContain("TLS: unable to verify the certificate");
    });
  });
});
