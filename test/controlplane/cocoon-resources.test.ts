import { beforeAll, describe, expect, test } from "bun:test";
import type { ControlPlane } from "./cluster";
import { LIST_PAGE_SIZE, ORDINARY_USER } from "./install";
import {
  admissionsDuring,
  COCOON_API,
  cocoonSet,
  createNamespace,
  expectCreated,
  hibernation,
  type KubeObject,
  kubectlCreate,
  messageOf,
  storedBeforeTheRule,
  uniqueName,
} from "./objects";
import { controlPlaneTier } from "./setup";

let cluster: ControlPlane;
let namespace: string;

beforeAll(async () => {
  cluster = controlPlaneTier().cluster;
  namespace = await createNamespace(cluster, "cocoon");
});

const cocoonSets = (ns = namespace) => `${COCOON_API}/namespaces/${ns}/cocoonsets`;
const hibernations = () => `${COCOON_API}/namespaces/${namespace}/cocoonhibernations`;

/** Breaks three rules the CRD schema cannot express, at three paths. */
const BROKEN_SPEC = {
  agent: { image: "agent:1", mode: "run", backend: "firecracker", os: "windows" },
  toolboxes: [
    { name: "tools", image: "tools:1", mode: "run", backend: "firecracker" },
    { name: "tools", image: "tools:1", mode: "run", backend: "firecracker" },
    { name: "browser", image: "browser:1", mode: "run" },
  ],
};

describe("CocoonSet through a real apiserver", () => {
  test("kubectl shows every violation of an invalid CocoonSet with its JSON path", async () => {
    const name = uniqueName("broken");
    const result = await kubectlCreate(cluster, namespace, cocoonSet(name, BROKEN_SPEC));
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      `admission webhook "cocoonsets.cocoon-webhook.cocoonstack.io" denied the request: cocoon-webhook: `,
    );
    for (const path of ["spec.agent.os", "spec.toolboxes[1].name", "spec.toolboxes[2].backend"]) {
      expect(result.stderr).toContain(path);
    }
  });

  test("a valid CocoonSet is stored", async () => {
    const counted = await admissionsDuring("validate_cocoonset", async () => {
      await expectCreated(
        cluster.request("POST", cocoonSets(), {
          as: ORDINARY_USER,
          body: cocoonSet(uniqueName("agents"), {
            toolboxes: [{ name: "tools", image: "tools:1" }],
          }),
        }),
      );
    });
    expect(counted).toEqual({ "allow/": 1 });
  });

  test("a stored CocoonSet that breaks a newer rule can still lose its finalizer and be deleted", async () => {
    const name = uniqueName("legacy");
    const legacyNamespace = await createNamespace(cluster, "legacy");
    const legacy = cocoonSet(name, BROKEN_SPEC);
    legacy.metadata.finalizers = ["cocoonset.cocoonstack.io/finalizer"];
    await storedBeforeTheRule(cluster, cocoonSets(legacyNamespace), legacy, BROKEN_SPEC);
    const path = `${cocoonSets(legacyNamespace)}/${name}`;

    const spec = await cluster.request("PATCH", path, {
      as: ORDINARY_USER,
      contentType: "application/merge-patch+json",
      body: { spec: { agent: { replicas: 2 } } },
    });
    expect(spec.status).toBe(403);
    expect(messageOf(spec)).toContain("spec.agent.os");

    await expectCreated(cluster.request("DELETE", path, { as: ORDINARY_USER }));
    const counted = await admissionsDuring("validate_cocoonset", async () => {
      await expectCreated(
        cluster.request("PATCH", path, {
          as: ORDINARY_USER,
          contentType: "application/json-patch+json",
          body: [{ op: "remove", path: "/metadata/finalizers" }],
        }),
      );
    });
    // The spec is unchanged, so the spec-changed matchCondition keeps the write from the webhook
    // (which would skip it as no_change).
    expect(counted).toEqual({});
    expect((await cluster.request("GET", path)).status).toBe(404);
  });
});

describe("CocoonHibernation through a real apiserver", () => {
  const create = (body: KubeObject) =>
    cluster.request("POST", hibernations(), { as: ORDINARY_USER, body });

  test("a second CocoonHibernation for the same pod is refused after a real LIST", async () => {
    const podName = uniqueName("vm");
    await expectCreated(create(hibernation(podName)));
    const counted = await admissionsDuring("validate_cocoonhibernation", async () => {
      const answer = await create(hibernation(podName, "Wake"));
      expect(answer.status).toBe(403);
      expect(messageOf(answer)).toContain("already");
      expect(messageOf(answer)).toContain("spec.desire");
    });
    expect(counted).toEqual({ "deny/duplicate": 1 });
  });

  test("one that is still terminating is named as such", async () => {
    const podName = uniqueName("vm");
    const terminating = hibernation(podName);
    terminating.metadata.finalizers = ["cocoonset.cocoonstack.io/finalizer"];
    await expectCreated(create(terminating));
    await expectCreated(cluster.request("DELETE", `${hibernations()}/${podName}`));
    const answer = await create(hibernation(podName));
    expect(answer.status).toBe(403);
    expect(messageOf(answer)).toContain("terminating");
  });

  test("the name must be the pod's", async () => {
    const answer = await create({
      ...hibernation(uniqueName("vm")),
      metadata: { name: uniqueName("other") },
    });
    expect(answer.status).toBe(403);
    expect(messageOf(answer)).toContain("spec.podRef.name");
  });

  test("a duplicate on the last of several LIST pages is found", async () => {
    const prefix = uniqueName("zz-paged");
    const pods = Array.from({ length: 7 }, (_, index) => `${prefix}-${index}`);
    for (const podName of pods) await expectCreated(create(hibernation(podName)));
    const listed = await cluster.request("GET", hibernations());
    expect(listed.body.items.length).toBeGreaterThan(3 * LIST_PAGE_SIZE);

    const last = pods.at(-1) ?? "";
    const answer = await create(hibernation(last, "Wake"));
    expect(answer.status).toBe(403);
    expect(messageOf(answer)).toContain(last);
  });
});
