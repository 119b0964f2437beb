import { describe, expect, test } from "bun:test";
import type { AdmissionRequest } from "../../src/contract/admission-request";
import type { Verdict } from "../../src/contract/verdict";
import { DEFAULT_POD_CREATORS } from "../../src/endpoints/pod-gate/creators";
import { admissionRequest } from "../support/admission-review";
import { FakeKube } from "../support/fake-kube";
import { examine, podCreators } from "../support/handlers";
import {
  FINALIZER_UPDATES,
  finalizerUpdateObjects,
  IDENTITIES,
  OPERATOR_SAMPLE_SET,
  operatorPods,
  RUNTIME_ANNOTATION_PATCHES,
  SANDBOX_NAME,
  SANDBOX_NAMESPACE,
  sandboxSandboxdPod,
  sandboxVkCocoonPod,
  withAnnotations,
} from "./shapes";

/*
 * The platform's own shapes (./shapes.ts) through the handlers, with the
 * default POD_CREATORS: what the real components send must pass, and the
 * same objects from anyone else must not.
 */

const NAMESPACE = "team-a";
const MAIN_NODE = "vk-cocoon-node-1";
const ALICE = "alice@example.com";
/** vk-cocoon by the node credential its kubeconfig may hold, and by its ServiceAccount. */
const VK_COCOON = "system:node:vk-cocoon-node-1";
const VK_COCOON_ACCOUNT = "system:serviceaccount:cocoon-system:vk-cocoon";
const label = (verdict: Verdict) => `${verdict.result}/${verdict.reason}`;
const deps = {
  podCreators: podCreators(DEFAULT_POD_CREATORS),
  kube: new FakeKube().failing(),
};

const podRequest = (object: unknown, username: string, oldObject?: unknown): AdmissionRequest =>
  admissionRequest({
    kind: { kind: "Pod" },
    resource: { resource: "pods" },
    operation: oldObject === undefined ? "CREATE" : "UPDATE",
    namespace: (object as { metadata: { namespace: string } }).metadata.namespace,
    name: (object as { metadata: { name: string } }).metadata.name,
    userInfo: { username },
    object,
    ...(oldObject === undefined ? {} : { oldObject }),
  });

const pods = operatorPods(NAMESPACE, "uid-set", MAIN_NODE);
const sandboxPods = {
  "vk-cocoon": sandboxVkCocoonPod({
    namespace: SANDBOX_NAMESPACE,
    name: SANDBOX_NAME,
    uid: "uid-sb",
  }),
  sandboxd: sandboxSandboxdPod({ namespace: SANDBOX_NAMESPACE, name: SANDBOX_NAME, uid: "uid-sb" }),
};

describe("cocoon-operator's pods", () => {
  test.each(Object.entries(pods))("%s: the operator's CREATE is allowed", async (_name, pod) => {
    const verdict = await examine("podGate", podRequest(pod, IDENTITIES.operator), deps);
    expect(label(verdict)).toBe("allow/");
  });

  test.each(Object.entries(pods))("%s: anyone else's is denied", async (_name, pod) => {
    for (const username of [ALICE, IDENTITIES.sandboxOperator]) {
      expect(label(await examine("podGate", podRequest(pod, username), deps))).toBe("deny/creator");
    }
  });

  test("the sub-agent names its main agent's node", () => {
    expect(pods.subAgent.spec.nodeName).toBe(MAIN_NODE);
  });

  test.each(Object.entries(RUNTIME_ANNOTATION_PATCHES))(
    "runtime patch %s on a live pod passes untouched; from anyone else it is refused",
    async (_name, annotations) => {
      // A live pod: the scheduler has bound it to its VM node.
      const live = { ...pods.main, spec: { ...pods.main.spec, nodeName: MAIN_NODE } };
      const patched = withAnnotations(live, annotations);
      for (const username of [IDENTITIES.operator, VK_COCOON, VK_COCOON_ACCOUNT]) {
        const request = podRequest(patched, username, live);
        expect(label(await examine("podGate", request, deps))).toBe("skipped/no_change");
      }
      const vmAnnotation = Object.keys(annotations).some((key) => key.startsWith("vm."));
      for (const username of [ALICE, "system:node:another-node"]) {
        const request = podRequest(patched, username, live);
        expect(label(await examine("podGate", request, deps))).toBe(
          vmAnnotation ? "deny/gate_field" : "skipped/no_change",
        );
      }
    },
  );

  test("the real CocoonSet sample is valid", async () => {
    const request = admissionRequest({
      kind: { kind: "CocoonSet" },
      namespace: "default",
      name: OPERATOR_SAMPLE_SET.metadata.name,
      object: {
        ...OPERATOR_SAMPLE_SET,
        metadata: { ...OPERATOR_SAMPLE_SET.metadata, namespace: "default" },
      },
    });
    expect(label(await examine("cocoonSet", request))).toBe("allow/");
  });
});

describe("sandbox-operator's pods in the Sandbox's own namespace", () => {
  test.each(Object.entries(sandboxPods))(
    "%s runtime: sandbox-operator's CREATE is allowed",
    async (_runtime, pod) => {
      expect(
        label(await examine("podGate", podRequest(pod, IDENTITIES.sandboxOperator), deps)),
      ).toBe("allow/");
    },
  );

  test.each(Object.entries(sandboxPods))(
    "%s runtime: a user's or the cocoon operator's is denied",
    async (_runtime, pod) => {
      for (const username of [ALICE, IDENTITIES.operator]) {
        expect(label(await examine("podGate", podRequest(pod, username), deps))).toBe(
          "deny/creator",
        );
      }
    },
  );
});

describe("cocoon-operator's finalizer updates of a set that breaks today's rules", () => {
  const setRequest = (objects: { oldObject?: unknown; object: unknown }) =>
    admissionRequest({
      kind: { kind: "CocoonSet" },
      operation: objects.oldObject === undefined ? "CREATE" : "UPDATE",
      namespace: NAMESPACE,
      userInfo: { username: IDENTITIES.operator },
      ...objects,
    });

  test.each(FINALIZER_UPDATES.map((update) => [update.name, update] as const))(
    "%s: skipped as unchanged",
    async (_name, update) => {
      const objects = finalizerUpdateObjects(update, NAMESPACE);
      // The set itself breaks the derived-name budget: created today, it is refused.
      expect(label(await examine("cocoonSet", setRequest({ object: objects.object })))).toBe(
        "deny/invalid_spec",
      );
      expect(label(await examine("cocoonSet", setRequest(objects)))).toBe("skipped/no_change");
    },
  );

  test.each(FINALIZER_UPDATES.map((update) => [update.name, update] as const))(
    "%s with a real change hidden in it: checked",
    async (_name, update) => {
      const { oldObject, object } = finalizerUpdateObjects(update, NAMESPACE);
      const changed = { ...object, spec: { ...object.spec, suspend: true } };
      expect(label(await examine("cocoonSet", setRequest({ oldObject, object: changed })))).toBe(
        "deny/invalid_spec",
      );
    },
  );
});
