import { describe, expect, test } from "bun:test";
import { verifiedListPage, verifiedObject } from "../../src/apiserver/verified-answers";
import { COCOONHIBERNATIONS } from "../../src/cocoon/crd-resources";
import { KubeApiError } from "../../src/contract/reads";
import { DEPLOYMENTS, NODES } from "../../src/kube/api-resources";

const list = "LIST cocoonhibernations in default";
const get = "GET deployments default/web";
const HIBERNATION_LIST = {
  apiVersion: "cocoonset.cocoonstack.io/v1",
  kind: "CocoonHibernationList",
};
const PAGE_SIZE = 500;
const hibernationItem = (name: string) => ({
  apiVersion: "cocoonset.cocoonstack.io/v1",
  kind: "CocoonHibernation",
  metadata: { name },
});
const WEB = { namespace: "default", name: "web" };
const web = (extra: Record<string, unknown> = {}) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default" },
  ...extra,
});
const answer = (body: unknown, status = 200) => ({
  status,
  body: typeof body === "string" ? body : JSON.stringify(body),
});
const hibernationList = (extra: Record<string, unknown> = {}) => ({
  ...HIBERNATION_LIST,
  ...extra,
});

describe("verifiedObject", () => {
  test("the object asked for, with its fields typed", () => {
    const deployment = web({ spec: { replicas: 3, template: { spec: { tolerations: [{}] } } } });
    expect(verifiedObject(get, answer(deployment), DEPLOYMENTS, WEB)).toEqual(deployment);
  });

  test.each<[string, unknown, string]>([
    [
      "{}",
      {},
      "an object without apiVersion and kind instead of the apps/v1 Deployment default/web asked for",
    ],
    [
      "a Status body",
      { apiVersion: "v1", kind: "Status", status: "Success", message: "all fine" },
      "a v1 Status (all fine) instead of",
    ],
    [
      "a ConfigMap of the same name",
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "web", namespace: "default" } },
      "v1 ConfigMap default/web instead of",
    ],
    ["a StatefulSet", web({ kind: "StatefulSet" }), "apps/v1 StatefulSet default/web instead of"],
    ["another version", web({ apiVersion: "apps/v1beta1" }), "apps/v1beta1 Deployment default/web"],
    [
      "another name",
      web({ metadata: { name: "other", namespace: "default" } }),
      "apps/v1 Deployment default/other instead of",
    ],
    [
      "another namespace",
      web({ metadata: { name: "web", namespace: "prod" } }),
      "apps/v1 Deployment prod/web instead of",
    ],
    ["no metadata", web({ metadata: undefined }), "apps/v1 Deployment instead of"],
    [
      "tolerations written as an object",
      web({
        spec: { template: { spec: { tolerations: { key: "virtual-kubelet.io/provider" } } } },
      }),
      "a malformed apps/v1 Deployment default/web: spec.template.spec.tolerations: expected a list of objects",
    ],
    [
      "a toleration that is not an object",
      web({ spec: { template: { spec: { tolerations: ["virtual-kubelet.io/provider"] } } } }),
      "spec.template.spec.tolerations: expected a list of objects",
    ],
    [
      "replicas as a string",
      web({ spec: { replicas: "3" } }),
      "a malformed apps/v1 Deployment default/web: spec.replicas",
    ],
    ["replicas not whole", web({ spec: { replicas: 1.5 } }), "spec.replicas"],
    ["spec as a list", web({ spec: [] }), "a malformed apps/v1 Deployment default/web: spec"],
  ])("%s is not trusted", (_name, body, expected) => {
    const error = (() => {
      try {
        verifiedObject(get, answer(body), DEPLOYMENTS, WEB);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).message).toStartWith(`${get}: apiserver answered 200 with `);
    expect((error as KubeApiError).message).toContain(expected);
    expect((error as KubeApiError).message).toEndWith("; the answer is not trusted");
  });

  test("a cluster-scoped object must carry no namespace", () => {
    const node = { name: "vk-1" };
    const body = { apiVersion: "v1", kind: "Node", metadata: { name: "vk-1" } };
    expect(verifiedObject("GET nodes vk-1", answer(body), NODES, node)).toEqual(body);
    const namespaced = { ...body, metadata: { name: "vk-1", namespace: "default" } };
    expect(() => verifiedObject("GET nodes vk-1", answer(namespaced), NODES, node)).toThrow(
      "v1 Node default/vk-1 instead of the v1 Node vk-1 asked for",
    );
  });

  test("a non-2xx status is a status error, whatever the body", () => {
    expect(() => verifiedObject(get, answer(web(), 500), DEPLOYMENTS, WEB)).toThrow(
      `${get}: apiserver answered 500 Internal Server Error`,
    );
  });

  test("a body that is not JSON is an error quoting its start", () => {
    expect(() => verifiedObject(get, answer("<html>proxy error</html>"), DEPLOYMENTS, WEB)).toThrow(
      `${get}: apiserver answered 200 with a body that is not JSON: <html>proxy error</html>`,
    );
  });
});

/** The apiserver's answer to a GET of a missing object. */
const notFound = (details: Record<string, unknown>) =>
  answer(
    {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'deployments.apps "web" not found',
      reason: "NotFound",
      details,
      code: 404,
    },
    404,
  );
const WEB_NOT_FOUND = { name: "web", group: "apps", kind: "deployments" };

describe("verifiedObject on a 404", () => {
  test("the apiserver's NotFound Status naming the object asked for", () => {
    expect(verifiedObject(get, notFound(WEB_NOT_FOUND), DEPLOYMENTS, WEB)).toBeUndefined();
  });

  test("a core-group object: the Status names no group", () => {
    const node = { name: "vk-1" };
    expect(
      verifiedObject("GET nodes vk-1", notFound({ name: "vk-1", kind: "nodes" }), NODES, node),
    ).toBeUndefined();
    const withGroup = (group: unknown) => notFound({ name: "vk-1", kind: "nodes", group });
    expect(verifiedObject("GET nodes vk-1", withGroup(""), NODES, node)).toBeUndefined();
    // A null or mistyped group names no group at all, the core one included.
    for (const group of [null, 0]) {
      expect(() => verifiedObject("GET nodes vk-1", withGroup(group), NODES, node)).toThrow(
        "without naming the v1 Node vk-1 asked for",
      );
    }
  });

  test("a NotFound Status under any other status is not a missing object", () => {
    for (const status of [200, 410, 500]) {
      expect(() =>
        verifiedObject(get, { ...notFound(WEB_NOT_FOUND), status }, DEPLOYMENTS, WEB),
      ).toThrow(`${get}: apiserver answered ${status}`);
    }
  });

  test.each<[string, ReturnType<typeof answer>]>([
    [
      "a Status without details (a path the apiserver does not serve)",
      answer({ kind: "Status", apiVersion: "v1", reason: "NotFound", code: 404 }, 404),
    ],
    ["another name", notFound({ ...WEB_NOT_FOUND, name: "other" })],
    ["another group", notFound({ ...WEB_NOT_FOUND, group: "extensions" })],
    ["another resource", notFound({ ...WEB_NOT_FOUND, kind: "statefulsets" })],
    [
      "another reason",
      answer({ kind: "Status", apiVersion: "v1", reason: "Gone", details: WEB_NOT_FOUND }, 404),
    ],
    ["a proxy's HTML page", answer("<html>404 page not found</html>", 404)],
    ["an empty body", answer("", 404)],
  ])("a 404 with %s is an error, never a missing object", (_name, given) => {
    let thrown: unknown;
    try {
      verifiedObject(get, given, DEPLOYMENTS, WEB);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(KubeApiError);
    expect((thrown as KubeApiError).status).toBe(404);
    expect((thrown as KubeApiError).message).toStartWith(
      `${get}: apiserver answered 404 Not Found`,
    );
    expect((thrown as KubeApiError).message).toContain(
      "without naming the apps/v1 Deployment default/web asked for",
    );
  });
});

describe("verifiedListPage", () => {
  test("items and the continue token", () => {
    const items = [hibernationItem("a")];
    expect(
      verifiedListPage(
        list,
        answer(hibernationList({ metadata: { continue: "t1" }, items })),
        COCOONHIBERNATIONS,
        PAGE_SIZE,
      ),
    ).toEqual({ items, continueToken: "t1" });
    expect(
      verifiedListPage(
        list,
        answer(hibernationList({ metadata: { continue: "" }, items })),
        COCOONHIBERNATIONS,
        PAGE_SIZE,
      ),
    ).toEqual({ items, continueToken: undefined });
  });

  test("items: null reads as an empty list", () => {
    expect(
      verifiedListPage(
        list,
        answer(hibernationList({ items: null })),
        COCOONHIBERNATIONS,
        PAGE_SIZE,
      ),
    ).toEqual({
      items: [],
      continueToken: undefined,
    });
  });

  test.each<[string, unknown, string]>([
    ["a list without items", hibernationList(), "a malformed CocoonHibernationList: items"],
    [
      "items that are not objects",
      hibernationList({ items: [{}, 7] }),
      "items: expected a list of objects",
    ],
    ["items as an object", hibernationList({ items: {} }), "items: expected a list of objects"],
    [
      "a continue token that is not a string",
      hibernationList({ items: [], metadata: { continue: 5 } }),
      "metadata.continue",
    ],
    [
      "{}",
      {},
      "an object without apiVersion and kind instead of the cocoonset.cocoonstack.io/v1 CocoonHibernationList asked for",
    ],
    [
      "a Status",
      { apiVersion: "v1", kind: "Status", message: "gone" },
      "a v1 Status (gone) instead of",
    ],
    [
      "another list kind",
      { apiVersion: "v1", kind: "PodList", items: [] },
      "v1 PodList instead of",
    ],
    [
      "an item of another kind",
      hibernationList({ items: [hibernationItem("a"), { apiVersion: "v1", kind: "Pod" }] }),
      "a CocoonHibernationList whose items[1] is v1 Pod, not a cocoonset.cocoonstack.io/v1 CocoonHibernation",
    ],
    [
      "an item of another version",
      hibernationList({
        items: [{ ...hibernationItem("a"), apiVersion: "cocoonset.cocoonstack.io/v2" }],
      }),
      "items[0] is cocoonset.cocoonstack.io/v2 CocoonHibernation a, not a",
    ],
    [
      "an item without apiVersion and kind",
      hibernationList({ items: [{ metadata: { name: "a" } }] }),
      "items[0] is an object without apiVersion and kind",
    ],
  ])("%s is not trusted", (_name, body, expected) => {
    expect(() => verifiedListPage(list, answer(body), COCOONHIBERNATIONS, PAGE_SIZE)).toThrow(
      expected,
    );
  });
});

describe("status errors", () => {
  test("a status error quotes a non-Status body, shortened", () => {
    const answer = { status: 502, body: `bad gateway ${"x".repeat(500)}` };
    let error = new KubeApiError("not thrown");
    try {
      verifiedListPage(list, answer, COCOONHIBERNATIONS, PAGE_SIZE);
    } catch (thrown) {
      if (thrown instanceof KubeApiError) error = thrown;
    }
    expect(error.status).toBe(502);
    expect(error.message).toStartWith(`${list}: apiserver answered 502 Bad Gateway: bad gateway x`);
    expect(error.message.length).toBeLessThan(300);
  });
});
