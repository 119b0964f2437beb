import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createKubeApi } from "../../src/kube/api";
import type { KubeApi } from "../../src/kube/port";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { kubeApiErrorFrom, metricDeltas } from "./helpers";

let apiserver: FakeApiserver;
let api: KubeApi;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  api = createKubeApi({ timeoutMs: 3000, kubeconfigPath: apiserver.kubeconfigPath }).api;
});
afterAll(() => apiserver.stop());
afterEach(() => apiserver.clearFailures());

describe("getWorkload", () => {
  test("returns the parsed object, sent with the bearer token and Accept: application/json", async () => {
    const deployment = { kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 3 } };
    apiserver.setWorkload("deployments", "default", "web", deployment);

    const deltas = await metricDeltas("get", "deployments", async () => {
      expect(await api.getWorkload("deployments", "default", "web")).toEqual(deployment);
    });

    expect(deltas).toEqual({ outcomes: { success: 1 }, durations: 1 });
    const request = apiserver.requests.at(-1);
    expect(request).toEqual({
      method: "GET",
      path: "/apis/apps/v1/namespaces/default/deployments/web",
      authorization: `Bearer ${apiserver.token}`,
      accept: "application/json",
    });
  });

  test("URL-encodes the namespace and name", async () => {
    await api.getWorkload("statefulsets", "a b", "x/y?z");
    expect(apiserver.requests.at(-1)?.path).toBe(
      "/apis/apps/v1/namespaces/a%20b/statefulsets/x%2Fy%3Fz",
    );
  });

  test("404 is undefined, counted as not_found", async () => {
    const deltas = await metricDeltas("get", "statefulsets", async () => {
      expect(await api.getWorkload("statefulsets", "default", "missing")).toBeUndefined();
    });
    expect(deltas).toEqual({ outcomes: { not_found: 1 }, durations: 1 });
  });

  test.each([
    [403, "403 Forbidden", "RBAC"],
    [500, "500 Internal Server Error", "etcd is unhappy"],
    [429, "429 Too Many Requests", "etcd is unhappy"],
  ])(
    "%d is a KubeApiError with the status and the Status message",
    async (status, answered, hint) => {
      apiserver.failNext({ kind: "status", status, message: "etcd is unhappy" });
      let message = "";
      const deltas = await metricDeltas("get", "deployments", async () => {
        const error = await kubeApiErrorFrom(api.getWorkload("deployments", "default", "web"));
        expect(error.status).toBe(status);
        message = error.message;
      });
      expect(message).toStartWith(`GET deployments default/web: apiserver answered ${answered}: `);
      expect(message).toContain("etcd is unhappy");
      expect(message).toContain(hint);
      expect(deltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
    },
  );

  test("a 404 injected as a failure is not found, like the real one", async () => {
    apiserver.setWorkload("deployments", "default", "web", { spec: {} });
    apiserver.failNext({ kind: "status", status: 404 });
    expect(await api.getWorkload("deployments", "default", "web")).toBeUndefined();
  });

  test("a wrong token is a 401 KubeApiError", async () => {
    const wrong = apiserver.writeKubeconfig({ token: "not-the-token" });
    const { api: unauthorized } = createKubeApi({ timeoutMs: 3000, kubeconfigPath: wrong });
    const error = await kubeApiErrorFrom(unauthorized.getWorkload("deployments", "default", "web"));
    expect(error.status).toBe(401);
    expect(error.message).toContain("apiserver answered 401 Unauthorized");
  });

  test("JSON that is not an object is a KubeApiError", async () => {
    apiserver.setWorkload("deployments", "default", "odd", ["not", "an", "object"]);
    const error = await kubeApiErrorFrom(api.getWorkload("deployments", "default", "odd"));
    expect(error.message).toBe(
      "GET deployments default/odd: apiserver answered 200 with JSON that is not an object",
    );
  });
});

describe("listHibernations", () => {
  test("returns the items of the namespace's list", async () => {
    const items = [{ metadata: { name: "vm-0" }, spec: { desire: "Hibernate" } }];
    apiserver.setHibernations("team-a", items);

    const deltas = await metricDeltas("list", "cocoonhibernations", async () => {
      expect(await api.listHibernations("team-a")).toEqual(items);
      expect(await api.listHibernations("empty")).toEqual([]);
    });

    expect(deltas).toEqual({ outcomes: { success: 2 }, durations: 2 });
    expect(apiserver.requests.at(-2)?.path).toBe(
      "/apis/cocoonset.cocoonstack.io/v1/namespaces/team-a/cocoonhibernations",
    );
  });

  test("404 (CRD not installed) is an error, not an empty list", async () => {
    apiserver.failNext({
      kind: "status",
      status: 404,
      message: "the server could not find the requested resource",
    });
    const deltas = await metricDeltas("list", "cocoonhibernations", async () => {
      const error = await kubeApiErrorFrom(api.listHibernations("team-a"));
      expect(error.status).toBe(404);
      expect(error.message).toBe(
        "LIST cocoonhibernations in team-a: apiserver answered 404 Not Found: the server could not find the requested resource",
      );
    });
    expect(deltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
  });
});

describe("getNode and getPod", () => {
  const node = { apiVersion: "v1", kind: "Node", metadata: { name: "vk-1" }, spec: { taints: [] } };
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "demo-0", namespace: "team-a" },
    spec: { containers: [] },
  };

  test("GET /api/v1/nodes/NAME returns the node, counted as get nodes", async () => {
    apiserver.setNode("vk-1", node);
    const deltas = await metricDeltas("get", "nodes", async () => {
      expect(await api.getNode("vk-1")).toEqual(node);
      expect(await api.getNode("missing")).toBeUndefined();
    });
    expect(deltas).toEqual({ outcomes: { success: 1, not_found: 1 }, durations: 2 });
    expect(apiserver.requests.at(-2)).toMatchObject({
      path: "/api/v1/nodes/vk-1",
      authorization: `Bearer ${apiserver.token}`,
    });
  });

  test("GET /api/v1/namespaces/NS/pods/NAME returns the pod, counted as get pods", async () => {
    apiserver.setPod("team-a", "demo-0", pod);
    const deltas = await metricDeltas("get", "pods", async () => {
      expect(await api.getPod("team-a", "demo-0")).toEqual(pod);
      expect(await api.getPod("team-a", "missing")).toBeUndefined();
    });
    expect(deltas).toEqual({ outcomes: { success: 1, not_found: 1 }, durations: 2 });
    expect(apiserver.requests.at(-2)?.path).toBe("/api/v1/namespaces/team-a/pods/demo-0");
  });

  test("a 500 is a KubeApiError counted as error", async () => {
    apiserver.failNext({ kind: "status", status: 500, message: "etcd is unhappy" });
    const deltas = await metricDeltas("get", "nodes", async () => {
      const error = await kubeApiErrorFrom(api.getNode("vk-1"));
      expect(error.message).toStartWith("GET nodes vk-1: apiserver answered 500");
    });
    expect(deltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
  });

  test.each<[string, unknown]>([
    ["an empty object", {}],
    ["a Status", { apiVersion: "v1", kind: "Status", status: "Success", metadata: {} }],
    ["another kind", { ...node, kind: "ConfigMap" }],
    ["another apiVersion", { ...node, apiVersion: "v2" }],
    ["another name", { ...node, metadata: { name: "vk-2" } }],
    ["a namespaced object", { ...node, metadata: { name: "vk-1", namespace: "default" } }],
  ])("a 2xx node answer that is %s is a KubeApiError, never a node", async (_name, body) => {
    apiserver.setNode("vk-1", body);
    const error = await kubeApiErrorFrom(api.getNode("vk-1"));
    expect(error.message).toStartWith("GET nodes vk-1: apiserver answered 200 with ");
  });

  test.each<[string, unknown]>([
    ["another namespace", { ...pod, metadata: { name: "demo-0", namespace: "team-b" } }],
    ["no namespace", { ...pod, metadata: { name: "demo-0" } }],
    ["another name", { ...pod, metadata: { name: "demo-1", namespace: "team-a" } }],
    ["a Node", { ...pod, kind: "Node" }],
  ])("a 2xx pod answer with %s is a KubeApiError", async (_name, body) => {
    apiserver.setPod("team-a", "demo-0", body);
    const error = await kubeApiErrorFrom(api.getPod("team-a", "demo-0"));
    expect(error.message).toStartWith("GET pods team-a/demo-0: apiserver answered 200 with ");
  });
});
