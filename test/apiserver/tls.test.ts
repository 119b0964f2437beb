import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { createKubeApi } from "../../src/apiserver/client";
import { DEPLOYMENTS } from "../../src/kube/api-resources";
import { capturingLogger } from "../support/capturing-logger";
import { createTestCa } from "../support/certs";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { kubeconfigYaml } from "../support/kubeconfig";
import { kubeApiErrorFrom, kubeconfigWithCluster, metricDeltas, withEnvironment } from "./helpers";

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

  test("tls-server-name is the name the certificate is verified against", async () => {
    const web = { namespace: "default", name: "web" };
    const named = (name: string) =>
      createKubeApi({
        timeoutMs: 3000,
        kubeconfigPath: kubeconfigWithCluster(apiserver.kubeconfigPath, {
          "tls-server-name": name,
        }),
      }).api;
    expect(await named("localhost").get(DEPLOYMENTS, web)).toMatchObject({ kind: "Deployment" });
    const error = await kubeApiErrorFrom(named("elsewhere.example").get(DEPLOYMENTS, web));
    expect(error.message).toStartWith(
      `GET deployments default/web: TLS: unable to verify the certificate of the apiserver ${apiserver.url}`,
    );
  });

  test("insecure-skip-tls-verify is ignored with a warning: the apiserver is still verified", async () => {
    const { log, lines } = capturingLogger("warn");
    const kubeconfigPath = kubeconfigWithCluster(
      apiserver.writeKubeconfig({ caPem: createTestCa("unrelated-ca").cert }),
      { "insecure-skip-tls-verify": true },
    );
    const { api } = createKubeApi({ timeoutMs: 3000, kubeconfigPath, log });
    expect(lines.map(({ level, msg, cluster }) => ({ level, msg, cluster }))).toEqual([
      {
        level: 40,
        msg: "insecure-skip-tls-verify is ignored: the apiserver certificate is always verified",
        cluster: "test",
      },
    ]);
    const error = await kubeApiErrorFrom(
      api.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
    );
    expect(error.message).toContain("TLS: unable to verify the certificate");
  });

  test("an http:// apiserver is reached without TLS, with a warning saying so", async () => {
    const plain = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        Response.json({
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "web", namespace: "default" },
          spec: { replicas: 1 },
        }),
    });
    try {
      const server = `http://127.0.0.1:${plain.port}`;
      const kubeconfigPath = `${apiserver.kubeconfigPath}.plain-http.yaml`;
      writeFileSync(kubeconfigPath, kubeconfigYaml(server, apiserver.ca.cert, { token: "t" }));
      const { log, lines } = capturingLogger("warn");
      const { api } = createKubeApi({ timeoutMs: 3000, kubeconfigPath, log });
      expect(lines.map(({ level, msg, server }) => ({ level, msg, server }))).toEqual([
        { level: 40, msg: "the apiserver is reached over plain HTTP, without TLS", server },
      ]);
      expect(await api.get(DEPLOYMENTS, { namespace: "default", name: "web" })).toMatchObject({
        spec: { replicas: 1 },
      });
    } finally {
      await plain.stop(true);
    }
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
