import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { createKubeApi, MAX_OBJECT_ANSWER_BYTES } from "../../src/apiserver/client";
import {
  LIST_PAGE_LIMIT,
  MAX_LIST_BYTES,
  MAX_LISTED_OBJECTS,
} from "../../src/apiserver/list-pages";
import { COCOONHIBERNATIONS } from "../../src/cocoon/crd-resources";
import type { KubeApi } from "../../src/contract/reads";
import { DEPLOYMENTS, NODES, PODS, STATEFULSETS } from "../../src/kube/api-resources";
import {
  type FakeApiserver,
  startDecoyServer,
  startFakeApiserver,
} from "../support/fake-apiserver";
import { kubeApiErrorFrom, metricDeltas } from "./helpers";

let apiserver: FakeApiserver;
let api: KubeApi;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  api = createKubeApi({ timeoutMs: 3000, kubeconfigPath: apiserver.kubeconfigPath }).api;
});
afterAll(() => apiserver.stop());
afterEach(() => apiserver.clearFailures());

describe("get: a Deployment or StatefulSet", () => {
  test("returns the parsed object, sent with the bearer token, Accept: application/json and no encoding accepted", async () => {
    const deployment = { kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 3 } };
    apiserver.setWorkload("deployments", "default", "web", deployment);

    const deltas = await metricDeltas("get", "deployments", async () => {
      expect(await api.get(DEPLOYMENTS, { namespace: "default", name: "web" })).toEqual({
        ...deployment,
        apiVersion: "apps/v1",
        metadata: { name: "web", namespace: "default" },
      });
    });

    expect(deltas).toEqual({ outcomes: { success: 1 }, durations: 1 });
    const request = apiserver.requests.at(-1);
    expect(request).toEqual({
      method: "GET",
      path: "/apis/apps/v1/namespaces/default/deployments/web",
      authorization: `Bearer ${apiserver.token}`,
      accept: "application/json",
      acceptEncoding: "identity",
    });
  });

  test.each([
    ["default", "."],
    ["default", ".."],
    ["default", ""],
    ["default", "x/y?z"],
    ["default", "%2e"],
    ["default", "Web"],
    ["default", "a".repeat(254)],
    ["..", "web"],
    ["a b", "web"],
    ["a.b", "web"],
    ["", "web"],
  ])("refuses namespace %p name %p before any request", async (namespace, name) => {
    const sent = apiserver.requests.length;
    const deltas = await metricDeltas("get", "statefulsets", async () => {
      const error = await kubeApiErrorFrom(api.get(STATEFULSETS, { namespace, name }));
      expect(error.message).toMatch(
        /is not a valid (namespace|object) name .*so the apiserver was not asked$/,
      );
    });
    expect(deltas).toEqual({ outcomes: {}, durations: 0 });
    expect(apiserver.requests.length).toBe(sent);
  });

  test("a dotted name is a valid subdomain", async () => {
    apiserver.setWorkload("deployments", "default", "web.v2", { spec: {} });
    expect(await api.get(DEPLOYMENTS, { namespace: "default", name: "web.v2" })).toMatchObject({
      metadata: { name: "web.v2" },
    });
  });

  test("404 is undefined, counted as not_found", async () => {
    const deltas = await metricDeltas("get", "statefulsets", async () => {
      expect(
        await api.get(STATEFULSETS, { namespace: "default", name: "missing" }),
      ).toBeUndefined();
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
        const error = await kubeApiErrorFrom(
          api.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
        );
        expect(error.status).toBe(status);
        message = error.message;
      });
      expect(message).toStartWith(`GET deployments default/web: apiserver answered ${answered}: `);
      expect(message).toContain("etcd is unhappy");
      expect(message).toContain(hint);
      expect(deltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
    },
  );

  test("a 404 that does not name the object (a proxy's, a path not served) is an error, not a missing object", async () => {
    apiserver.setWorkload("deployments", "default", "web", { spec: {} });
    apiserver.failNext({ kind: "status", status: 404, message: "page not found" });
    const deltas = await metricDeltas("get", "deployments", async () => {
      const error = await kubeApiErrorFrom(
        api.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
      );
      expect(error.status).toBe(404);
      expect(error.message).toStartWith(
        "GET deployments default/web: apiserver answered 404 Not Found (page not found) without naming the apps/v1 Deployment default/web asked for",
      );
    });
    expect(deltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
  });

  test("a wrong token is a 401 KubeApiError", async () => {
    const wrong = apiserver.writeKubeconfig({ token: "not-the-token" });
    const { api: unauthorized } = createKubeApi({ timeoutMs: 3000, kubeconfigPath: wrong });
    const error = await kubeApiErrorFrom(
      unauthorized.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
    );
    expect(error.status).toBe(401);
    expect(error.message).toContain("apiserver answered 401 Unauthorized");
  });

  test.each([301, 302, 303, 307, 308] as const)(
    "a %d redirect to a path that would answer 404 is an error, never followed",
    async (status) => {
      apiserver.failNext({
        kind: "redirect",
        status,
        location: "/apis/apps/v1/namespaces/default/deployments/missing",
      });
      const sent = apiserver.requests.length;
      const deltas = await metricDeltas("get", "deployments", async () => {
        const error = await kubeApiErrorFrom(
          api.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
        );
        expect(error.status).toBe(status);
        expect(error.message).toStartWith(
          `GET deployments default/web: apiserver answered ${status} (a redirect to "/apis/apps/v1/namespaces/default/deployments/missing"); redirects are not followed`,
        );
      });
      expect(deltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
      expect(apiserver.requests.length).toBe(sent + 1);
    },
  );

  test("a redirect to a plain-HTTP server answering {} is an error, and the server is never asked", async () => {
    const decoy = startDecoyServer(200, {});
    try {
      apiserver.failNext({ kind: "redirect", status: 302, location: `${decoy.url}/anything` });
      const error = await kubeApiErrorFrom(
        api.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
      );
      expect(error.message).toContain("302 (a redirect to");
      expect(decoy.hits()).toBe(0);
    } finally {
      await decoy.stop();
    }
  });

  test.each([
    ["without", false],
    ["with", true],
  ])(
    "an oversized body %s Content-Length is an error, read no further than the cap",
    async (_with, declareLength) => {
      const before = apiserver.sentBytes;
      const bodyBytes = 256 * 1024 * 1024;
      apiserver.failNext({ kind: "oversized", bytes: bodyBytes, declareLength });
      const error = await kubeApiErrorFrom(
        api.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
      );
      expect(error.message).toBe(
        `GET deployments default/web: apiserver answered 200 with a body larger than ${MAX_OBJECT_ANSWER_BYTES} bytes; such an answer is refused unread`,
      );
      // Socket and fetch buffers let the server push some megabytes past the cap
      // (up to ~15 MiB on a loaded machine); reading stops long before the end.
      expect(apiserver.sentBytes - before).toBeLessThan(bodyBytes / 4);
    },
  );

  test.each([
    ["a Status body", { apiVersion: "v1", kind: "Status", status: "Failure", message: "x" }],
    ["{}", {}],
    [
      "a ConfigMap",
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "web", namespace: "default" } },
    ],
    [
      "tolerations as an object",
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web", namespace: "default" },
        spec: { template: { spec: { tolerations: {} } } },
      },
    ],
  ])("a 200 with %s is an error", async (_name, body) => {
    apiserver.failNext({ kind: "answer", body });
    const deltas = await metricDeltas("get", "deployments", async () => {
      const error = await kubeApiErrorFrom(
        api.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
      );
      expect(error.message).toEndWith("the answer is not trusted");
    });
    expect(deltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
  });

  test("JSON that is not an object is a KubeApiError", async () => {
    apiserver.setWorkload("deployments", "default", "odd", ["not", "an", "object"]);
    const error = await kubeApiErrorFrom(
      api.get(DEPLOYMENTS, { namespace: "default", name: "odd" }),
    );
    expect(error.message).toBe(
      "GET deployments default/odd: apiserver answered 200 with JSON that is not an object",
    );
  });
});

describe("list: CocoonHibernations, page by page", () => {
  const hibernation = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonHibernation",
    metadata: { name },
    ...extra,
  });

  test("returns the items of the namespace's list", async () => {
    const items = [hibernation("vm-0", { spec: { desire: "Hibernate" } })];
    apiserver.setHibernations("team-a", items);

    const deltas = await metricDeltas("list", "cocoonhibernations", async () => {
      expect(await api.list(COCOONHIBERNATIONS, "team-a")).toEqual(items);
      expect(await api.list(COCOONHIBERNATIONS, "empty")).toEqual([]);
    });

    expect(deltas).toEqual({ outcomes: { success: 2 }, durations: 2 });
    expect(apiserver.requests.at(-2)?.path).toBe(
      `/apis/cocoonset.cocoonstack.io/v1/namespaces/team-a/cocoonhibernations?limit=${LIST_PAGE_LIMIT}`,
    );
  });

  test("follows metadata.continue page by page, counted as one call", async () => {
    const items = Array.from({ length: 7 }, (_, index) => hibernation(`vm-${index}`));
    apiserver.setHibernations("paged", items);
    apiserver.setListPageSize(3);
    try {
      const sent = apiserver.requests.length;
      const deltas = await metricDeltas("list", "cocoonhibernations", async () => {
        expect(await api.list(COCOONHIBERNATIONS, "paged")).toEqual(items);
      });
      expect(deltas).toEqual({ outcomes: { success: 1 }, durations: 1 });
      expect(apiserver.requests.slice(sent).map((request) => request.path)).toEqual([
        `/apis/cocoonset.cocoonstack.io/v1/namespaces/paged/cocoonhibernations?limit=${LIST_PAGE_LIMIT}`,
        `/apis/cocoonset.cocoonstack.io/v1/namespaces/paged/cocoonhibernations?limit=${LIST_PAGE_LIMIT}&continue=offset-3`,
        `/apis/cocoonset.cocoonstack.io/v1/namespaces/paged/cocoonhibernations?limit=${LIST_PAGE_LIMIT}&continue=offset-6`,
      ]);
    } finally {
      apiserver.setListPageSize(undefined);
    }
  });

  const listPage = (items: unknown[], continueToken?: string) => ({
    kind: "answer" as const,
    body: {
      apiVersion: "cocoonset.cocoonstack.io/v1",
      kind: "CocoonHibernationList",
      metadata: continueToken ? { continue: continueToken } : {},
      items,
    },
  });

  /** Pages of `items` without end, each with a continue token no page had before. */
  const endlessPages = (items: unknown[]) => {
    let page = 0;
    return { ...listPage(items), body: () => listPage(items, `page-${++page}`).body };
  };

  test("a list that never ends is refused after the page bound", async () => {
    apiserver.failAlways(endlessPages([]));
    const sent = apiserver.requests.length;
    const pages = MAX_LISTED_OBJECTS / LIST_PAGE_LIMIT;
    const error = await kubeApiErrorFrom(api.list(COCOONHIBERNATIONS, "team-a"));
    expect(error.message).toBe(
      `LIST cocoonhibernations in team-a: the list did not end after ${pages} pages of ${LIST_PAGE_LIMIT}; refusing to read more`,
    );
    expect(apiserver.requests.length - sent).toBe(pages);
  });

  test("a continue token that comes back is refused at once", async () => {
    apiserver.failAlways(listPage([], "again"));
    const sent = apiserver.requests.length;
    const error = await kubeApiErrorFrom(api.list(COCOONHIBERNATIONS, "team-a"));
    expect(error.message).toBe(
      "LIST cocoonhibernations in team-a: page 2 carries a continue token an earlier page " +
        "carried, so the list would never end; refusing to read more (the apiserver, or " +
        "something in between, answers the same pages again)",
    );
    expect(apiserver.requests.length - sent).toBe(2);
  });

  test("a page with more items than the limit asked for fails, counted as an error", async () => {
    apiserver.failNext(
      listPage(Array.from({ length: LIST_PAGE_LIMIT + 1 }, (_, index) => hibernation(`h${index}`))),
    );
    const deltas = await metricDeltas("list", "cocoonhibernations", async () => {
      const error = await kubeApiErrorFrom(api.list(COCOONHIBERNATIONS, "team-a"));
      expect(error.message).toBe(
        `LIST cocoonhibernations in team-a: apiserver answered 200 with a page of ${LIST_PAGE_LIMIT + 1} items ` +
          `where at most ${LIST_PAGE_LIMIT} were asked for; the answer is not trusted`,
      );
    });
    expect(deltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
  });

  test("a list past MAX_LISTED_OBJECTS fails before the last page's items are kept", async () => {
    const pageSize = 300; // 50 000 is not a whole number of pages of 300
    const { api: paged } = createKubeApi({
      timeoutMs: 10_000,
      kubeconfigPath: apiserver.kubeconfigPath,
      listPageSize: pageSize,
    });
    const page = Array.from({ length: pageSize }, (_, index) => hibernation(`h${index}`));
    apiserver.failAlways(endlessPages(page));
    const sent = apiserver.requests.length;
    const error = await kubeApiErrorFrom(paged.list(COCOONHIBERNATIONS, "team-a"));
    expect(error.message).toBe(
      `LIST cocoonhibernations in team-a: the list holds more than ${MAX_LISTED_OBJECTS} objects; refusing to read more`,
    );
    expect(apiserver.requests.length - sent).toBe(Math.ceil(MAX_LISTED_OBJECTS / pageSize));
  });

  test("a list whose pages together pass MAX_LIST_BYTES fails", async () => {
    const fat = (index: number) => hibernation(`h${index}`, { padding: "x".repeat(70_000) });
    apiserver.failAlways(endlessPages(Array.from({ length: 100 }, (_, index) => fat(index))));
    const sent = apiserver.requests.length;
    const error = await kubeApiErrorFrom(api.list(COCOONHIBERNATIONS, "team-a"));
    expect(error.message).toBe(
      `LIST cocoonhibernations in team-a: the pages so far come to more than ${MAX_LIST_BYTES} bytes; refusing to read more`,
    );
    expect(apiserver.requests.length - sent).toBe(Math.ceil(MAX_LIST_BYTES / 7_000_000));
  });

  test("APISERVER_LIST_PAGE_SIZE sets the limit each page asks for", async () => {
    const { api: small } = createKubeApi({
      timeoutMs: 3000,
      kubeconfigPath: apiserver.kubeconfigPath,
      listPageSize: 2,
    });
    const items = Array.from({ length: 5 }, (_, index) => hibernation(`vm-${index}`));
    apiserver.setHibernations("small-pages", items);
    const sent = apiserver.requests.length;
    expect(await small.list(COCOONHIBERNATIONS, "small-pages")).toEqual(items);
    expect(apiserver.requests.slice(sent).map((request) => request.path)).toEqual([
      "/apis/cocoonset.cocoonstack.io/v1/namespaces/small-pages/cocoonhibernations?limit=2",
      "/apis/cocoonset.cocoonstack.io/v1/namespaces/small-pages/cocoonhibernations?limit=2&continue=offset-2",
      "/apis/cocoonset.cocoonstack.io/v1/namespaces/small-pages/cocoonhibernations?limit=2&continue=offset-4",
    ]);
  });

  test("every page spends one shared APISERVER_TIMEOUT budget", async () => {
    const { api: quick } = createKubeApi({
      timeoutMs: 500,
      kubeconfigPath: apiserver.kubeconfigPath,
    });
    apiserver.setHibernations("paged", [{}, {}, {}, {}]);
    apiserver.setListPageSize(1);
    // Each page alone fits the budget; the four together do not.
    apiserver.failAlways({ kind: "slow", delayMs: 200 });
    try {
      const deltas = await metricDeltas("list", "cocoonhibernations", async () => {
        const error = await kubeApiErrorFrom(quick.list(COCOONHIBERNATIONS, "paged"));
        expect(error.message).toBe(
          `LIST cocoonhibernations in paged: timed out after 500ms waiting for the apiserver ${apiserver.url}`,
        );
      });
      expect(deltas).toEqual({ outcomes: { timeout: 1 }, durations: 1 });
    } finally {
      apiserver.setListPageSize(undefined);
    }
  });

  test.each([
    [
      "a redirect to an empty list",
      {
        kind: "redirect",
        status: 307,
        location: "/apis/cocoonset.cocoonstack.io/v1/namespaces/empty/cocoonhibernations",
      },
    ],
    ["a Status body", { kind: "answer", body: { apiVersion: "v1", kind: "Status", message: "x" } }],
    ["{}", { kind: "answer", body: {} }],
    [
      "a list of another kind",
      { kind: "answer", body: { apiVersion: "v1", kind: "PodList", items: [] } },
    ],
    ["an oversized page", { kind: "oversized", bytes: 32 * 1024 * 1024 }],
    ["a gzip-encoded page", { kind: "encoded", encoding: "gzip", body: gzipSync("{}") }],
    ["a zstd-encoded page", { kind: "encoded", encoding: "zstd", body: new Uint8Array(8) }],
  ] as const)("%s is an error", async (_name, failure) => {
    apiserver.failNext(failure);
    const error = await kubeApiErrorFrom(api.list(COCOONHIBERNATIONS, "team-a"));
    expect(error.message).toStartWith("LIST cocoonhibernations in team-a: apiserver answered ");
  });

  test("refuses an invalid namespace before any request", async () => {
    const sent = apiserver.requests.length;
    const error = await kubeApiErrorFrom(api.list(COCOONHIBERNATIONS, ".."));
    expect(error.message).toContain('the namespace ".." is not a valid namespace name');
    expect(apiserver.requests.length).toBe(sent);
  });

  test("404 (CRD not installed) is an error, not an empty list", async () => {
    apiserver.failNext({
      kind: "status",
      status: 404,
      message: "the server could not find the requested resource",
    });
    const deltas = await metricDeltas("list", "cocoonhibernations", async () => {
      const error = await kubeApiErrorFrom(api.list(COCOONHIBERNATIONS, "team-a"));
      expect(error.status).toBe(404);
      expect(error.message).toBe(
        "LIST cocoonhibernations in team-a: apiserver answered 404 Not Found: the server could not find the requested resource",
      );
    });
    expect(deltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
  });
});

describe("get: a Node or a Pod", () => {
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
      expect(await api.get(NODES, { name: "vk-1" })).toEqual(node);
      expect(await api.get(NODES, { name: "missing" })).toBeUndefined();
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
      expect(await api.get(PODS, { namespace: "team-a", name: "demo-0" })).toEqual(pod);
      expect(await api.get(PODS, { namespace: "team-a", name: "missing" })).toBeUndefined();
    });
    expect(deltas).toEqual({ outcomes: { success: 1, not_found: 1 }, durations: 2 });
    expect(apiserver.requests.at(-2)?.path).toBe("/api/v1/namespaces/team-a/pods/demo-0");
  });

  test("a 500 is a KubeApiError counted as error", async () => {
    apiserver.failNext({ kind: "status", status: 500, message: "etcd is unhappy" });
    const deltas = await metricDeltas("get", "nodes", async () => {
      const error = await kubeApiErrorFrom(api.get(NODES, { name: "vk-1" }));
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
    const error = await kubeApiErrorFrom(api.get(NODES, { name: "vk-1" }));
    expect(error.message).toStartWith("GET nodes vk-1: apiserver answered 200 with ");
  });

  test.each<[string, unknown]>([
    ["another namespace", { ...pod, metadata: { name: "demo-0", namespace: "team-b" } }],
    ["no namespace", { ...pod, metadata: { name: "demo-0" } }],
    ["another name", { ...pod, metadata: { name: "demo-1", namespace: "team-a" } }],
    ["a Node", { ...pod, kind: "Node" }],
  ])("a 2xx pod answer with %s is a KubeApiError", async (_name, body) => {
    apiserver.setPod("team-a", "demo-0", body);
    const error = await kubeApiErrorFrom(api.get(PODS, { namespace: "team-a", name: "demo-0" }));
    expect(error.message).toStartWith("GET pods team-a/demo-0: apiserver answered 200 with ");
  });
});
