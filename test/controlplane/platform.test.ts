import { beforeAll, describe, expect, test } from "bun:test";
import {
  FINALIZER_UPDATES,
  finalizerUpdateObjects,
  IDENTITIES,
  type KubeJson,
  OPERATOR_FINALIZER,
  OVER_BUDGET_SET_NAME,
  operatorPods,
  RUNTIME_ANNOTATION_PATCHES,
  SANDBOX_NAME,
  sandboxOwner,
  sandboxSandboxdPod,
  sandboxVkCocoonPod,
} from "../platform/shapes";
import { ServiceClientConfigRefused } from "./client-config-guard";
import { type ControlPlane, type Identity, runCommand } from "./cluster";
import { OPERATOR, ORDINARY_USER, USER_GROUP } from "./install";
import { LOCAL_ONLY_POLICY } from "./local-only-policy";
import {
  admissionsDuring,
  bindingTo,
  COCOON_API,
  createNamespace,
  createOwnerCocoonSet,
  expectCreated,
  type KubeObject,
  messageOf,
  ownerReferenceTo,
  storedBeforeTheRule,
  uniqueName,
  vmNode,
} from "./objects";
import { controlPlaneTier } from "./setup";

/*
 * The platform's real shapes (test/platform/shapes.ts) where a stored
 * object matters: sandbox-operator's pods in a Sandbox's own namespace
 * (owned by a real stored Sandbox of a CRD stub), and the operator's
 * finalizer updates of a stored CocoonSet that breaks today's rules.
 */

const SANDBOX_OPERATOR: Identity = { user: IDENTITIES.sandboxOperator, groups: [USER_GROUP] };
const SANDBOXES = "/apis/agents.x-k8s.io/v1beta1";

/**
 * A stub of sandbox-operator's Sandbox CRD: the group, kind and served
 * versions of its k8s/crds/agents.x-k8s.io_sandboxes.yaml, with any fields,
 * and without the real one's conversion webhook (a Service: never here).
 */
const SANDBOX_CRD_STUB = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "sandboxes.agents.x-k8s.io" },
  spec: {
    group: "agents.x-k8s.io",
    names: { kind: "Sandbox", listKind: "SandboxList", plural: "sandboxes", singular: "sandbox" },
    scope: "Namespaced",
    versions: ["v1alpha1", "v1beta1"].map((name) => ({
      name,
      served: true,
      storage: name === "v1beta1",
      schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    })),
  },
};

/** Breaks rules the CRD schema cannot express: the probe of storedBeforeTheRule. */
const REFUSED_SPEC = {
  agent: { image: "agent:1", mode: "run", backend: "firecracker", os: "windows" },
};

let cluster: ControlPlane;

beforeAll(async () => {
  cluster = controlPlaneTier().cluster;
  const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  const existing = await cluster.request("GET", `${crds}/${SANDBOX_CRD_STUB.metadata.name}`);
  if (existing.status === 404)
    await expectCreated(cluster.request("POST", crds, { body: SANDBOX_CRD_STUB }));
  const established = await cluster.kubectl([
    "wait",
    "--for=condition=Established",
    "--timeout=30s",
    `crd/${SANDBOX_CRD_STUB.metadata.name}`,
  ]);
  expect(established.exitCode).toBe(0);
});

describe("sandbox-operator's pods through a real apiserver", () => {
  let namespace: string;
  let sandbox: KubeObject;
  let vmNodeName: string;

  beforeAll(async () => {
    namespace = await createNamespace(cluster, "sandboxes");
    sandbox = await expectCreated(
      cluster.request("POST", `${SANDBOXES}/namespaces/${namespace}/sandboxes`, {
        body: {
          apiVersion: "agents.x-k8s.io/v1beta1",
          kind: "Sandbox",
          metadata: { name: SANDBOX_NAME },
          spec: { podTemplate: { spec: { containers: [{ name: "agent", image: "agent:1" }] } } },
        },
      }),
    );
    vmNodeName = uniqueName("vm-node");
    await expectCreated(cluster.request("POST", "/api/v1/nodes", { body: vmNode(vmNodeName) }));
  });

  const shaped = (make: typeof sandboxVkCocoonPod, name: string) => {
    const pod = make({ namespace, name, uid: sandbox.metadata.uid });
    pod.metadata.ownerReferences = [sandboxOwner(SANDBOX_NAME, sandbox.metadata.uid)];
    return pod;
  };
  const createPod = (body: KubeJson, as: Identity) =>
    cluster.request("POST", `/api/v1/namespaces/${namespace}/pods`, { as, body });

  test.each([
    ["vk-cocoon", sandboxVkCocoonPod],
    ["sandboxd", sandboxSandboxdPod],
  ] as const)(
    "the %s runtime's pod is created by sandbox-operator in the Sandbox's namespace",
    async (runtime, make) => {
      const counted = await admissionsDuring("mutate", async () => {
        await expectCreated(createPod(shaped(make, uniqueName(runtime)), SANDBOX_OPERATOR));
      });
      expect(counted).toEqual({ "allow/": 1 });
    },
  );

  test("sandbox-system is gated: a hand-made VM pod there is refused, sandbox-operator's passes", async () => {
    const system = "sandbox-system";
    const existing = await cluster.request("GET", `/api/v1/namespaces/${system}`);
    if (existing.status === 404) {
      await expectCreated(
        cluster.request("POST", "/api/v1/namespaces", {
          body: { apiVersion: "v1", kind: "Namespace", metadata: { name: system } },
        }),
      );
    }
    const inSystem = (name: string) => {
      const pod = sandboxVkCocoonPod({ namespace: system, name, uid: sandbox.metadata.uid });
      pod.metadata.ownerReferences = [sandboxOwner(SANDBOX_NAME, sandbox.metadata.uid)];
      return pod;
    };
    const create = (body: KubeJson, as: Identity) =>
      cluster.request("POST", `/api/v1/namespaces/${system}/pods`, { as, body });
    const counted = await admissionsDuring("mutate", async () => {
      const handMade = await create(inSystem(uniqueName("handmade")), ORDINARY_USER);
      expect(handMade.status).toBe(403);
      await expectCreated(create(inSystem(uniqueName("sandbox")), SANDBOX_OPERATOR));
    });
    expect(counted).toEqual({ "deny/creator": 1, "allow/": 1 });
  });

  test("an ordinary user's pod with a Sandbox owner is refused, naming the user", async () => {
    const counted = await admissionsDuring("mutate", async () => {
      const answer = await createPod(
        shaped(sandboxVkCocoonPod, uniqueName("forged")),
        ORDINARY_USER,
      );
      expect(answer.status).toBe(403);
      expect(messageOf(answer)).toContain(`user "${ORDINARY_USER.user}" may not create`);
      expect(messageOf(answer)).toContain(IDENTITIES.sandboxOperator);
    });
    expect(counted).toEqual({ "deny/creator": 1 });
  });

  test("the cocoon operator may not create a Sandbox's pod, nor sandbox-operator a CocoonSet's", async () => {
    const byCocoonOperator = await createPod(
      shaped(sandboxVkCocoonPod, uniqueName("cross")),
      OPERATOR,
    );
    expect(byCocoonOperator.status).toBe(403);
    expect(messageOf(byCocoonOperator)).toContain("agents.x-k8s.io/Sandbox");

    const owner = await createOwnerCocoonSet(cluster, namespace);
    const cocoonPod = operatorPods(namespace, owner.metadata.uid, vmNodeName).main;
    cocoonPod.metadata.name = uniqueName("cross");
    cocoonPod.metadata.ownerReferences = [ownerReferenceTo(owner)];
    const bySandboxOperator = await createPod(cocoonPod, SANDBOX_OPERATOR);
    expect(bySandboxOperator.status).toBe(403);
    expect(messageOf(bySandboxOperator)).toContain("cocoonset.cocoonstack.io/CocoonSet");
    await expectCreated(createPod(cocoonPod, OPERATOR));
  });

  test("the nodeName and Binding gates follow the same pairing", async () => {
    const named = (name: string) => {
      const pod = shaped(sandboxSandboxdPod, name);
      return { ...pod, spec: { ...pod.spec, tolerations: [], nodeName: vmNodeName } };
    };
    const byCocoonOperator = await createPod(named(uniqueName("pinned")), OPERATOR);
    expect(byCocoonOperator.status).toBe(403);
    expect(messageOf(byCocoonOperator)).toContain(`spec.nodeName "${vmNodeName}"`);
    await expectCreated(createPod(named(uniqueName("pinned")), SANDBOX_OPERATOR));

    const unbound = uniqueName("unbound");
    await expectCreated(createPod(shaped(sandboxVkCocoonPod, unbound), SANDBOX_OPERATOR));
    const bind = (as: Identity) =>
      cluster.request("POST", `/api/v1/namespaces/${namespace}/pods/${unbound}/binding`, {
        as,
        body: bindingTo(unbound, vmNodeName),
      });
    const counted = await admissionsDuring("mutate", async () => {
      expect((await bind(OPERATOR)).status).toBe(403);
      await expectCreated(bind(SANDBOX_OPERATOR));
    });
    expect(counted).toEqual({ "deny/creator": 1, "allow/": 1 });
  });
});

describe("cocoon-operator's pods through a real apiserver", () => {
  test("all five are created by the operator; the runtime annotation patches never reach the webhook", async () => {
    const namespace = await createNamespace(cluster, "operator");
    const owner = await createOwnerCocoonSet(cluster, namespace);
    const pods = Object.values(operatorPods(namespace, owner.metadata.uid, uniqueName("vm-node")));
    for (const pod of pods) pod.metadata.ownerReferences = [ownerReferenceTo(owner)];
    const created = await admissionsDuring("mutate", async () => {
      for (const pod of pods) {
        await expectCreated(
          cluster.request("POST", `/api/v1/namespaces/${namespace}/pods`, {
            as: OPERATOR,
            body: pod,
          }),
        );
      }
    });
    expect(created).toEqual({ "allow/": pods.length });

    const patched = await admissionsDuring("mutate", async () => {
      for (const [index, annotations] of Object.values(RUNTIME_ANNOTATION_PATCHES).entries()) {
        const pod = pods[index % pods.length];
        await expectCreated(
          cluster.request("PATCH", `/api/v1/namespaces/${namespace}/pods/${pod?.metadata.name}`, {
            as: OPERATOR,
            contentType: "application/strategic-merge-patch+json",
            body: { metadata: { annotations } },
          }),
        );
      }
    });
    // matchConditions send an UPDATE only when the old pod carried no marker.
    expect(patched).toEqual({});
  });
});

describe("the operator's finalizer updates of a stored CocoonSet that breaks today's rules", () => {
  const putAsOperator = (path: string, current: KubeObject, spec: KubeJson, finalizers: string[]) =>
    cluster.request("PUT", path, {
      as: OPERATOR,
      body: {
        apiVersion: current.apiVersion,
        kind: current.kind,
        metadata: { ...current.metadata, finalizers },
        spec,
      },
    });

  test.each(FINALIZER_UPDATES.map((update) => [update.name, update] as const))(
    "%s: an UPDATE shaped like the operator's is allowed, a hidden change is not",
    async (_name, update) => {
      const namespace = await createNamespace(cluster, "legacy");
      const collection = `${COCOON_API}/namespaces/${namespace}/cocoonsets`;
      const path = `${collection}/${OVER_BUDGET_SET_NAME}`;
      const { oldObject } = finalizerUpdateObjects(update, namespace);
      const stored: KubeObject = {
        apiVersion: oldObject.apiVersion,
        kind: oldObject.kind,
        metadata: {
          name: OVER_BUDGET_SET_NAME,
          ...(oldObject.metadata.finalizers ? { finalizers: [OPERATOR_FINALIZER] } : {}),
        },
        spec: update.stored,
      };
      await storedBeforeTheRule(cluster, collection, stored, REFUSED_SPEC);
      if (update.finalizer === "remove") {
        await expectCreated(cluster.request("DELETE", path, { as: ORDINARY_USER }));
      }
      const current = (await cluster.request("GET", path)).body;
      const finalizers = update.finalizer === "add" ? [OPERATOR_FINALIZER] : [];

      const hidden = await putAsOperator(
        path,
        current,
        { ...update.written, suspend: true },
        finalizers,
      );
      expect(hidden.status).toBe(403);
      expect(messageOf(hidden)).toContain("63");

      const counted = await admissionsDuring("validate_cocoonset", async () => {
        await expectCreated(putAsOperator(path, current, update.written, finalizers));
      });
      expect(counted).toEqual({ "skipped/no_change": 1 });
      const after = await cluster.request("GET", path);
      if (update.finalizer === "remove") expect(after.status).toBe(404);
      else expect(after.body.metadata.finalizers).toEqual([OPERATOR_FINALIZER]);
    },
  );
});

describe("the harness never registers a webhook in Service mode", () => {
  const configuration = (name: string) => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name },
    webhooks: [
      {
        name: "never.cocoon-webhook.cocoonstack.io",
        clientConfig: {
          service: { name: "cocoon-webhook", namespace: "cocoon-system", path: "/validate" },
        },
        rules: [
          {
            apiGroups: [""],
            apiVersions: ["v1"],
            operations: ["CREATE"],
            resources: ["configmaps"],
          },
        ],
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
      },
    ],
  });
  const path = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

  test("a REST write and a kubectl apply are refused before they are sent", async () => {
    const name = uniqueName("service-mode");
    await expect(cluster.request("POST", path, { body: configuration(name) })).rejects.toThrow(
      ServiceClientConfigRefused,
    );
    await expect(
      cluster.kubectl(["apply", "-f", "-"], { stdin: JSON.stringify(configuration(name)) }),
    ).rejects.toThrow(ServiceClientConfigRefused);
    expect((await cluster.request("GET", `${path}/${name}`)).status).toBe(404);
  });

  test("behind that guard the apiserver refuses to store one from any client, a CRD's conversion too", async () => {
    // kubectl run directly, as a docs runbook run with bash would: no harness guard on the way.
    const kubectlDirect = (stdin: unknown) =>
      runCommand(
        [
          controlPlaneTier().kubectl,
          `--kubeconfig=${cluster.adminKubeconfig}`,
          "create",
          "-f",
          "-",
        ],
        // kubectl keeps its discovery cache under $HOME/.kube: the control plane's scratch space.
        { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cluster.dir },
        JSON.stringify(stdin),
      );
    const name = uniqueName("service-mode");
    // No rules: were it stored, no request could make the apiserver call it.
    const webhook = await kubectlDirect({
      ...configuration(name),
      webhooks: configuration(name).webhooks.map((hook) => ({ ...hook, rules: [] })),
    });
    expect(webhook.exitCode).not.toBe(0);
    expect(webhook.stderr).toContain(LOCAL_ONLY_POLICY);
    expect((await cluster.request("GET", `${path}/${name}`)).status).toBe(404);

    const group = `${uniqueName("conversion")}.example.com`;
    const crd = await kubectlDirect({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
        scope: "Namespaced",
        versions: ["v1", "v2"].map((version, index) => ({
          name: version,
          served: true,
          storage: index === 0,
          schema: {
            openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        })),
        conversion: {
          strategy: "Webhook",
          webhook: {
            conversionReviewVersions: ["v1"],
            clientConfig: { service: { name: "none", namespace: "default", path: "/convert" } },
          },
        },
      },
    });
    expect(crd.exitCode).not.toBe(0);
    expect(crd.stderr).toContain(LOCAL_ONLY_POLICY);
    const stored = await cluster.request(
      "GET",
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`,
    );
    expect(stored.status).toBe(404);
  });
});
