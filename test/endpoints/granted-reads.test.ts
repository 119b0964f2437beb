import { describe, expect, test } from "bun:test";
import { COCOONHIBERNATIONS } from "../../src/cocoon/crd-resources";
import { grantedReadsOnly, type KubeApi, KubeApiError } from "../../src/contract/reads";
import { ENDPOINTS, type EndpointKey } from "../../src/endpoints";
import { DEPLOYMENTS, NODES } from "../../src/kube/api-resources";
import { FakeKube } from "../support/fake-kube";

const readsOf = (endpoint: EndpointKey, kube: KubeApi) =>
  grantedReadsOnly(ENDPOINTS[endpoint].label, ENDPOINTS[endpoint].reads, kube);

describe("a handler reads the apiserver only as its module lists", () => {
  test("a listed read goes to the apiserver", async () => {
    const kube = new FakeKube().withNode("vk-1", { metadata: { name: "vk-1" } });
    expect(await readsOf("podGate", kube).get(NODES, { name: "vk-1" })).toBeDefined();
    expect(await readsOf("cocoonHibernation", kube).list(COCOONHIBERNATIONS, "a")).toEqual([]);
  });

  test("any other read is a bug, never an apiserver failure, and is not made", async () => {
    const kube = new FakeKube();
    const refused = readsOf("cocoonSet", kube).get(DEPLOYMENTS, {
      namespace: "a",
      name: "web",
    });
    await expect(refused).rejects.toThrow("does not list and RBAC does not grant");
    await expect(refused).rejects.not.toBeInstanceOf(KubeApiError);
    await expect(readsOf("podGate", kube).list(COCOONHIBERNATIONS, "a")).rejects.toThrow(
      "mutate would list cocoonhibernations",
    );
    expect(kube.calls).toEqual([]);
  });
});
