import { describe, expect, test } from "bun:test";
import { COCOONSET_KIND } from "../../src/cocoon/crd-resources";
import { OPERATOR_USERNAME, SANDBOX_OPERATOR_USERNAME } from "../../src/cocoon/identities";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import type { AdmissionRequest } from "../../src/contract/admission-request";
import type { Verdict } from "../../src/contract/verdict";
import { DEFAULT_POD_CREATORS } from "../../src/endpoints/pod-gate/creators";
import type { PodGateDeps } from "../../src/endpoints/pod-gate/decide";
import { DEFAULT_RUNTIME_IDENTITIES } from "../../src/endpoints/pod-gate/platform-identities";
import { MESSAGE_PREFIX } from "../../src/http/review-answer";
import { admissionRequest, DEPLOYMENT_KIND } from "../support/admission-review";
import { FakeKube } from "../support/fake-kube";
import { examine, podCreators, refusalMessage, runtimeIdentities } from "../support/handlers";

const ALICE = "alice@example.com";
const VK_COCOON = "system:serviceaccount:cocoon-system:vk-cocoon";
const OPERATOR_ONLY = podCreators(OPERATOR_USERNAME);

const cocoonToleration = { key: COCOON_TOLERATION_KEY, operator: "Exists", effect: "NoSchedule" };
const cocoonSetOwner = {
  apiVersion: "cocoonset.cocoonstack.io/v1",
  kind: COCOONSET_KIND,
  name: "demo",
  uid: "u1",
  controller: true,
};
const rsOwner = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-5d9", uid: "u2" };
const jobOwner = { apiVersion: "batch/v1", kind: "Job", name: "once", uid: "u3" };

interface PodFields {
  tolerations?: unknown;
  annotations?: unknown;
  ownerReferences?: unknown;
  containers?: unknown[];
}

function pod({ tolerations, annotations, ownerReferences, containers }: PodFields = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "demo-0", namespace: "default", annotations, ownerReferences },
    spec: { containers: containers ?? [{ name: "agent", image: "agent:1" }], tolerations },
  };
}

/** What the operator creates: both markers and a CocoonSet owner. */
const operatorPod = pod({
  tolerations: [cocoonToleration],
  annotations: { [VM_NAME_ANNOTATION]: "vk-default-demo-0" },
  ownerReferences: [cocoonSetOwner],
});
const operatorAnnotations = { [VM_NAME_ANNOTATION]: "vk-default-demo-0" };
const BOUND_NODE = "cocoon-pool";
/** The operator's pod once bound to the virtual node. */
const boundOperatorPod = { ...operatorPod, spec: { ...operatorPod.spec, nodeName: BOUND_NODE } };
const plainPod = pod();
const tolerationOnly = pod({ tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }] });
const annotationOnly = pod({ annotations: { [VM_NAME_ANNOTATION]: "" } });

/** ~1 MB: 50 containers with long env lists; the cocoon toleration sits after all of them. */
function hugePod(fields: PodFields): unknown {
  const env = Array.from({ length: 100 }, (_, i) => ({ name: `VAR_${i}`, value: "x".repeat(200) }));
  const containers = Array.from({ length: 50 }, (_, i) => ({
    name: `c${i}`,
    image: "agent:1",
    env,
  }));
  return JSON.parse(JSON.stringify(pod({ ...fields, containers })));
}

function podRequest(overrides: Partial<AdmissionRequest>, username = OPERATOR_USERNAME) {
  return admissionRequest({
    kind: { kind: "Pod" },
    resource: { resource: "pods" },
    name: "demo-0",
    userInfo: { username },
    ...overrides,
  });
}

const create = (object: unknown, username?: string) =>
  podRequest({ operation: "CREATE", object }, username);

const update = (oldObject: unknown, object: unknown, username?: string) =>
  podRequest({ operation: "UPDATE", oldObject, object }, username);

/** A `pods/status` write: the apiserver keeps the stored spec and owners, takes the metadata. */
const statusUpdate = (oldObject: unknown, object: unknown, username?: string) =>
  podRequest({ operation: "UPDATE", subResource: "status", oldObject, object }, username);

const HIBERNATE = "vm.cocoonstack.io/hibernate";

/** `base` with `extra` merged into its annotations. */
function annotated<T extends ReturnType<typeof pod>>(base: T, extra: Record<string, string>): T {
  const annotations = (base.metadata.annotations ?? {}) as Record<string, string>;
  return { ...base, metadata: { ...base.metadata, annotations: { ...annotations, ...extra } } };
}

function relabelled<T extends ReturnType<typeof pod>>(base: T): T {
  return { ...base, metadata: { ...base.metadata, labels: { team: "research" } } };
}

const label = (verdict: Verdict) => `${verdict.result}/${verdict.reason}`;

const cocoon = [cocoonToleration];
const owned = [cocoonSetOwner];
const unreadableMarkers = pod({ tolerations: "x", annotations: 5 });
const keylessExistsPod = pod({ tolerations: [{ operator: "Exists" }] });

/** Every row of the pod gate's table, keyed by the expected `result/reason`, then by case name. */
const gateTable: Record<string, Record<string, AdmissionRequest>> = {
  "skipped/kind": {
    "a Deployment": podRequest({ kind: DEPLOYMENT_KIND, object: operatorPod }),
    "no kind": podRequest({ kind: undefined, object: operatorPod }),
    "kind differs in case": podRequest({
      kind: { kind: "pod" },
      object: operatorPod,
    }),
  },
  "skipped/operation": {
    DELETE: podRequest({ operation: "DELETE", oldObject: operatorPod }, ALICE),
    CONNECT: podRequest({ operation: "CONNECT", object: {} }, ALICE),
    "no operation": podRequest({ operation: undefined, object: tolerationOnly }, ALICE),
  },
  "skipped/decode": {
    "object missing": create(undefined, ALICE),
    "object null": create(null, ALICE),
    "object a string": create("garbage", ALICE),
    "object an array": create([operatorPod], ALICE),
    "both marker fields malformed": create(unreadableMarkers, ALICE),
    "UPDATE to an undecodable object": update(plainPod, 42, ALICE),
  },
  "skipped/not_cocoon": {
    "plain pod": create(plainPod, ALICE),
    "empty object": create({}, ALICE),
    "keyless Exists toleration (known limit)": create(keylessExistsPod, ALICE),
    "unrelated toleration": create(pod({ tolerations: [{ key: "dedicated" }] }), ALICE),
    "CocoonSet owner without markers": create(pod({ ownerReferences: owned }), ALICE),
    "1 MB pod without markers": create(hugePod({}), ALICE),
  },
  "skipped/no_change": {
    "vk-cocoon patches a gated pod": update(operatorPod, operatorPod, VK_COCOON),
    "a user patches a gated pod that has no owner": update(annotationOnly, annotationOnly, ALICE),
    "the operator drops the markers": update(operatorPod, plainPod),
    "a user changes an unrelated label": update(operatorPod, relabelled(operatorPod), ALICE),
    "a user changes an unrelated annotation": update(
      operatorPod,
      annotated(operatorPod, { "example.com/note": "x" }),
      ALICE,
    ),
    "the operator sets the hibernate annotation": update(
      operatorPod,
      annotated(operatorPod, { [HIBERNATE]: "true" }),
    ),
    "vk-cocoon writes the VM's runtime annotations": update(
      operatorPod,
      annotated(operatorPod, {
        "vm.cocoonstack.io/id": "vm-1",
        "vm.cocoonstack.io/ip": "10.0.0.9",
      }),
      VK_COCOON,
    ),
    "the pod's node writes them through pods/status": statusUpdate(
      boundOperatorPod,
      annotated(boundOperatorPod, { "vm.cocoonstack.io/lifecycle-state": "running" }),
      `system:node:${BOUND_NODE}`,
    ),
    "the garbage collector orphans the pod": update(
      operatorPod,
      pod({ tolerations: cocoon, annotations: operatorAnnotations }),
      "system:serviceaccount:kube-system:generic-garbage-collector",
    ),
    "the controller manager orphans the pod": update(
      operatorPod,
      pod({ tolerations: cocoon, annotations: operatorAnnotations }),
      "system:kube-controller-manager",
    ),
    "a status write whose spec change the apiserver drops": statusUpdate(
      annotationOnly,
      pod({ annotations: { [VM_NAME_ANNOTATION]: "" }, tolerations: cocoon }),
      ALICE,
    ),
  },
  "deny/gate_field": {
    "a user drops the markers": update(operatorPod, plainPod, ALICE),
    "old gated by annotation, new by toleration": update(annotationOnly, tolerationOnly, ALICE),
    "a user retargets vm.cocoonstack.io/name": update(
      operatorPod,
      annotated(operatorPod, { [VM_NAME_ANNOTATION]: "vk-default-other-0" }),
      ALICE,
    ),
    "a user sets vm.cocoonstack.io/hibernate": update(
      operatorPod,
      annotated(operatorPod, { [HIBERNATE]: "true" }),
      ALICE,
    ),
    "a user sets vm.cocoonstack.io/clone-from-dir": update(
      operatorPod,
      annotated(operatorPod, { "vm.cocoonstack.io/clone-from-dir": "/tmp/x" }),
      ALICE,
    ),
    "a user removes the CocoonSet owner": update(
      operatorPod,
      pod({ tolerations: cocoon, annotations: operatorAnnotations }),
      ALICE,
    ),
    "a user adds a forged CocoonSet owner to an unowned VM pod": update(
      tolerationOnly,
      pod({
        tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }],
        ownerReferences: owned,
      }),
      ALICE,
    ),
    "a user adds a second cocoon toleration": update(
      operatorPod,
      pod({
        tolerations: [...cocoon, { key: COCOON_TOLERATION_KEY, effect: "NoExecute" }],
        annotations: operatorAnnotations,
        ownerReferences: owned,
      }),
      ALICE,
    ),
    "a user narrows spec.nodeSelector of a gated VM pod": update(
      operatorPod,
      { ...operatorPod, spec: { ...operatorPod.spec, nodeSelector: { pool: "other" } } },
      ALICE,
    ),
    "a node writes annotations of a pod bound elsewhere": statusUpdate(
      boundOperatorPod,
      annotated(boundOperatorPod, { "vm.cocoonstack.io/ip": "10.0.0.9" }),
      "system:node:another-node",
    ),
    "a status write by a user retargets the VM name": statusUpdate(
      operatorPod,
      annotated(operatorPod, { [VM_NAME_ANNOTATION]: "vk-default-other-0" }),
      ALICE,
    ),
    "vk-cocoon's name in another namespace is no platform identity": update(
      operatorPod,
      annotated(operatorPod, { [VM_NAME_ANNOTATION]: "x" }),
      "system:serviceaccount:default:vk-cocoon",
    ),
  },
  "deny/not_owned": {
    "toleration Exists without value": create(tolerationOnly),
    "annotation with empty value": create(annotationOnly),
    "owners, none a CocoonSet": create(
      pod({ tolerations: cocoon, ownerReferences: [rsOwner, jobOwner] }),
    ),
    "ownerReferences a string": create(
      pod({ tolerations: cocoon, ownerReferences: COCOONSET_KIND }),
    ),
    "ownerReferences entries malformed": create(
      pod({ tolerations: cocoon, ownerReferences: [null, { kind: 7 }] }),
    ),
    "annotations a number, tolerations carry the key": create(
      pod({ tolerations: cocoon, annotations: 5 }),
    ),
    "malformed toleration beside a cocoon one": create(
      pod({ tolerations: [{ key: 1 }, cocoonToleration] }),
    ),
    "UPDATE newly adds the annotation": update(plainPod, annotationOnly),
    "pods/status adds the VM name to a plain pod": statusUpdate(plainPod, annotationOnly, ALICE),
    "pods/status over an unreadable old object is judged as created": statusUpdate(
      "garbage",
      annotationOnly,
      ALICE,
    ),
    "pods/status with a forged owner, which the apiserver drops": statusUpdate(
      plainPod,
      pod({ annotations: { [VM_NAME_ANNOTATION]: "vk" }, ownerReferences: owned }),
      OPERATOR_USERNAME,
    ),
    "1 MB pod without owner": create(hugePod({ tolerations: cocoon })),
  },
  "deny/creator": {
    "forged CocoonSet owner from another user": create(operatorPod, ALICE),
    "no userInfo": podRequest({ operation: "CREATE", object: operatorPod, userInfo: undefined }),
    "UPDATE newly adds the toleration": update(plainPod, operatorPod, ALICE),
    "UPDATE, old undecodable counts as not gated": update("garbage", operatorPod, ALICE),
    "UPDATE, old markers unreadable counts as not gated": update(
      unreadableMarkers,
      operatorPod,
      ALICE,
    ),
    "UPDATE, old missing counts as not gated": update(undefined, operatorPod, VK_COCOON),
    "UPDATE from a keyless Exists pod": update(keylessExistsPod, operatorPod, ALICE),
    "1 MB pod from a user": create(hugePod({ tolerations: cocoon, ownerReferences: owned }), ALICE),
  },
  "allow/": {
    "operator creates its pod": create(operatorPod),
    "CocoonSet among other owners": create(
      pod({ tolerations: cocoon, ownerReferences: [rsOwner, cocoonSetOwner] }),
    ),
    "annotation with empty value only": create(
      pod({ annotations: { [VM_NAME_ANNOTATION]: "" }, ownerReferences: owned }),
    ),
    "annotations a number": create(
      pod({ tolerations: cocoon, annotations: 5, ownerReferences: owned }),
    ),
    "operator adds markers on UPDATE (old undecodable)": update(null, operatorPod),
    "1 MB pod from the operator": create(hugePod({ tolerations: cocoon, ownerReferences: owned })),
  },
};

const gateCases = Object.entries(gateTable).flatMap(([expected, requests]) =>
  Object.entries(requests).map(([name, request]) => ({ name, request, expected })),
);

describe("podGate", () => {
  test.each(gateCases)("$expected: $name", async ({ request, expected }) => {
    const kube = new FakeKube().failing();
    const verdict = await examine("podGate", request, { podCreators: OPERATOR_ONLY, kube });
    // No pod of this table names a node: decided without the apiserver.
    expect(kube.calls).toEqual([]);
    expect(label(verdict)).toBe(expected);
    expect(verdict.allowed).toBe(!expected.startsWith("deny/"));
    if (verdict.allowed) expect(verdict).not.toHaveProperty("message");
  });

  test("the 1 MB pod really is about 1 MB", () => {
    expect(JSON.stringify(hugePod({})).length).toBeGreaterThan(1_000_000);
  });
});

describe("podGate with a configured POD_CREATORS", () => {
  test.each<[string, string[], string, string]>([
    ["a listed user", [OPERATOR_USERNAME, ALICE], ALICE, "allow/"],
    ["the operator when not listed", [ALICE], OPERATOR_USERNAME, "deny/creator"],
  ])("%s → %s", async (_name, creators, username, expected) => {
    const verdict = await examine("podGate", create(operatorPod, username), {
      podCreators: podCreators(creators.join(",")),
      kube: new FakeKube(),
    });
    expect(label(verdict)).toBe(expected);
  });
});

describe("podGate denial messages", () => {
  const messageCases: { name: string; request: AdmissionRequest; mentions: string[] }[] = [
    {
      name: "not_owned",
      request: create(tolerationOnly),
      mentions: [
        "default/demo-0",
        "metadata.ownerReferences",
        COCOONSET_KIND,
        'a cocoon marker (toleration "virtual-kubelet.io/provider" or annotation "vm.cocoonstack.io/name")',
      ],
    },
    {
      name: "creator",
      request: create(operatorPod, ALICE),
      mentions: [`"${ALICE}"`, "default/demo-0", "POD_CREATORS", OPERATOR_USERNAME, "not proof"],
    },
    {
      name: "creator on UPDATE",
      request: update(plainPod, operatorPod, ALICE),
      mentions: [`"${ALICE}"`, "add a cocoon marker", "POD_CREATORS"],
    },
    {
      name: "creator on a pod without a name yet (generateName)",
      request: podRequest({ operation: "CREATE", object: operatorPod, name: undefined }, ALICE),
      mentions: [`"${ALICE}"`, 'namespace "default"'],
    },
  ];

  test.each(messageCases)("$name", async ({ request, mentions }) => {
    const verdict = await examine("podGate", request, {
      podCreators: OPERATOR_ONLY,
      kube: new FakeKube(),
    });
    const message = refusalMessage(verdict);
    for (const mention of mentions) expect(message).toContain(mention);
    expect(message.startsWith(MESSAGE_PREFIX)).toBe(false);
  });
});

// ------------------------------------------------ pods bound by name, Bindings

const SCHEDULER = "system:kube-scheduler";
const VM_NODE = "vk-cocoon-1";
const PLAIN_NODE = "worker-1";
const vmNode = (name: string) => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name },
  spec: {
    taints: [
      { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" },
      { key: COCOON_TOLERATION_KEY, value: "cocoon", effect: "NoSchedule" },
    ],
  },
});
const plainNode = (name: string, spec: unknown = { taints: [{ key: "dedicated" }] }) => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name },
  spec,
});

const onNode = (nodeName: unknown, fields: PodFields = {}) => {
  const base = pod(fields);
  return { ...base, spec: { ...base.spec, nodeName } };
};

function bindingRequest(
  nodeName: unknown,
  username: string,
  overrides: Partial<AdmissionRequest> = {},
): AdmissionRequest {
  return admissionRequest({
    kind: { kind: "Binding" },
    resource: { resource: "pods" },
    subResource: "binding",
    name: "demo-0",
    operation: "CREATE",
    userInfo: { username },
    object: {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "demo-0", namespace: "default" },
      target: { apiVersion: "v1", kind: "Node", name: nodeName },
    },
    ...overrides,
  });
}

/** A Binding carrying `annotations`, which the apiserver copies onto the pod it binds. */
function annotatedBinding(
  nodeName: string,
  username: string,
  podName: string,
  annotations: Record<string, string>,
): AdmissionRequest {
  return bindingRequest(nodeName, username, {
    name: podName,
    object: {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: podName, namespace: "default", annotations },
      target: { apiVersion: "v1", kind: "Node", name: nodeName },
    },
  });
}

/** The legacy `POST /api/v1/namespaces/{ns}/bindings` places a pod the same way. */
const legacyBinding = (nodeName: string, username: string) =>
  bindingRequest(nodeName, username, {
    resource: { resource: "bindings" },
    subResource: undefined,
  });

function cluster(): FakeKube {
  return new FakeKube()
    .withNode(VM_NODE, vmNode(VM_NODE))
    .withNode(PLAIN_NODE, plainNode(PLAIN_NODE))
    .withNode("bare", plainNode("bare", undefined))
    .withNode("null-taints", plainNode("null-taints", { taints: null }))
    .withNode("odd-taints", plainNode("odd-taints", { taints: { key: COCOON_TOLERATION_KEY } }))
    .withPod("default", "demo-0", operatorPod)
    .withPod("default", "plain-0", plainPod)
    .withPod("default", "unowned-0", tolerationOnly);
}

interface BoundCase {
  readonly request: AdmissionRequest;
  /** The apiserver reads the gate makes, as `resource name`. */
  readonly reads: readonly string[];
  readonly kube?: () => FakeKube;
}

const boundTable: Record<string, Record<string, BoundCase>> = {
  "skipped/not_cocoon": {
    "unmarked pod on a plain node": {
      request: create(onNode(PLAIN_NODE), ALICE),
      reads: [`nodes ${PLAIN_NODE}`],
    },
    "unmarked pod on a node without spec": {
      request: create(onNode("bare"), ALICE),
      reads: ["nodes bare"],
    },
    "unmarked pod on a node with null taints": {
      request: create(onNode("null-taints"), ALICE),
      reads: ["nodes null-taints"],
    },
    "unmarked pod on a node that does not exist (404)": {
      request: create(onNode("gone"), ALICE),
      reads: ["nodes gone"],
    },
    "empty nodeName": { request: create(onNode(""), ALICE), reads: [] },
    "null nodeName": { request: create(onNode(null), ALICE), reads: [] },
    "UPDATE naming a VM node (nodeName is immutable; only CREATE is gated)": {
      request: update(onNode(VM_NODE), onNode(VM_NODE), ALICE),
      reads: [],
    },
    "user Binding to a plain node": {
      request: bindingRequest(PLAIN_NODE, ALICE, { name: "plain-0" }),
      reads: [`nodes ${PLAIN_NODE}`],
    },
    "user Binding to a node that does not exist": {
      request: bindingRequest("gone", ALICE, { name: "plain-0" }),
      reads: ["nodes gone"],
    },
    "a Binding with unrelated annotations": {
      request: annotatedBinding(PLAIN_NODE, ALICE, "plain-0", { "example.com/note": "x" }),
      reads: [`nodes ${PLAIN_NODE}`],
    },
    "a Binding that sets vm.cocoonstack.io/hibernate on a plain pod": {
      request: annotatedBinding(PLAIN_NODE, ALICE, "plain-0", { [HIBERNATE]: "true" }),
      reads: [`nodes ${PLAIN_NODE}`, "pods default/plain-0"],
    },
    "the operator's Binding annotates its own VM pod on a plain node": {
      request: annotatedBinding(PLAIN_NODE, OPERATOR_USERNAME, "demo-0", { [HIBERNATE]: "1" }),
      reads: [`nodes ${PLAIN_NODE}`, "pods default/demo-0"],
    },
  },
  "deny/gate_field": {
    "a user's Binding retargets a VM pod's name": {
      request: annotatedBinding(PLAIN_NODE, ALICE, "demo-0", { [VM_NAME_ANNOTATION]: "other" }),
      reads: [`nodes ${PLAIN_NODE}`, "pods default/demo-0"],
    },
  },
  "skipped/scheduler": {
    "the scheduler binds an unmarked pod to a VM node (it honours taints)": {
      request: bindingRequest(VM_NODE, SCHEDULER, { name: "plain-0" }),
      reads: [],
    },
  },
  "skipped/decode": {
    "Binding without target": {
      request: bindingRequest(undefined, ALICE, { object: { kind: "Binding" } }),
      reads: [],
    },
    "Binding with an empty target name": { request: bindingRequest("", ALICE), reads: [] },
    "Binding to something other than a Node": {
      request: bindingRequest(VM_NODE, ALICE, {
        object: { kind: "Binding", target: { kind: "Pod", name: VM_NODE } },
      }),
      reads: [],
    },
  },
  "skipped/kind": {
    "Binding kind on another subresource": {
      request: bindingRequest(VM_NODE, ALICE, { subResource: "status" }),
      reads: [],
    },
  },
  "deny/not_owned": {
    "a Binding gives a plain pod the VM name annotation on a plain node": {
      request: annotatedBinding(PLAIN_NODE, ALICE, "plain-0", { [VM_NAME_ANNOTATION]: "vk" }),
      reads: [`nodes ${PLAIN_NODE}`, "pods default/plain-0"],
    },
    "the same to a node that does not exist yet": {
      request: annotatedBinding("gone", ALICE, "plain-0", { [VM_NAME_ANNOTATION]: "vk" }),
      reads: ["nodes gone", "pods default/plain-0"],
    },
    "hand-made pod on a VM node": {
      request: create(onNode(VM_NODE), ALICE),
      reads: [`nodes ${VM_NODE}`],
    },
    "the operator's pod on a VM node without a CocoonSet owner": {
      request: create(onNode(VM_NODE)),
      reads: [`nodes ${VM_NODE}`],
    },
    "undecodable markers do not hide the nodeName": {
      request: create(onNode(VM_NODE, { tolerations: "x", annotations: 5 }), ALICE),
      reads: [`nodes ${VM_NODE}`],
    },
    "operator binds a marked pod without a CocoonSet owner": {
      request: bindingRequest(VM_NODE, OPERATOR_USERNAME, { name: "unowned-0" }),
      reads: [`nodes ${VM_NODE}`, "pods default/unowned-0"],
    },
  },
  "deny/creator": {
    "forged CocoonSet owner on a VM node": {
      request: create(onNode(VM_NODE, { ownerReferences: owned }), ALICE),
      reads: [`nodes ${VM_NODE}`],
    },
    "a user binds the operator's pod to a VM node": {
      request: bindingRequest(VM_NODE, ALICE),
      reads: [`nodes ${VM_NODE}`, "pods default/demo-0"],
    },
    "a user binds through the legacy bindings resource": {
      request: legacyBinding(VM_NODE, ALICE),
      reads: [`nodes ${VM_NODE}`, "pods default/demo-0"],
    },
  },
  "deny/unmarked_binding": {
    "a user binds an unmarked pod to a VM node": {
      request: bindingRequest(VM_NODE, ALICE, { name: "plain-0" }),
      reads: [`nodes ${VM_NODE}`, "pods default/plain-0"],
    },
    "even the operator may not bind an unmarked pod to a VM node": {
      request: bindingRequest(VM_NODE, OPERATOR_USERNAME, { name: "plain-0" }),
      reads: [`nodes ${VM_NODE}`, "pods default/plain-0"],
    },
    "the bound pod does not exist": {
      request: bindingRequest(VM_NODE, OPERATOR_USERNAME, { name: "gone-0" }),
      reads: [`nodes ${VM_NODE}`, "pods default/gone-0"],
    },
  },
  "deny/invalid_name": {
    "nodeName with a path": { request: create(onNode("../namespaces/x"), ALICE), reads: [] },
    "nodeName with upper case": { request: create(onNode("Node-1"), ALICE), reads: [] },
    "nodeName not a string": { request: create(onNode(7), ALICE), reads: [] },
    "nodeName over 253 characters": { request: create(onNode("a".repeat(254)), ALICE), reads: [] },
    "Binding target with a slash": { request: bindingRequest("a/b", ALICE), reads: [] },
    "Binding of a pod named ..": {
      request: bindingRequest(VM_NODE, ALICE, { name: ".." }),
      reads: [],
    },
    "Binding in namespace ..": {
      request: bindingRequest(VM_NODE, ALICE, { namespace: ".." }),
      reads: [],
    },
    "Binding without a pod name": {
      request: bindingRequest(VM_NODE, ALICE, { name: undefined }),
      reads: [],
    },
  },
  "error/node_fetch": {
    "node GET fails for a pod CREATE": {
      request: create(onNode(VM_NODE), ALICE),
      reads: [`nodes ${VM_NODE}`],
      kube: () => cluster().failing("GET nodes vk-cocoon-1: timed out after 3000ms"),
    },
    "node GET fails for the operator's own pod": {
      request: create(onNode(PLAIN_NODE, { ownerReferences: owned })),
      reads: [`nodes ${PLAIN_NODE}`],
      kube: () => cluster().failing(),
    },
    "node GET fails for a Binding": {
      request: bindingRequest(VM_NODE, ALICE),
      reads: [`nodes ${VM_NODE}`],
      kube: () => cluster().failingFor("nodes"),
    },
    "node taints unreadable": {
      request: create(onNode("odd-taints"), ALICE),
      reads: ["nodes odd-taints"],
    },
  },
  "error/pod_fetch": {
    "pod GET fails for a Binding to a VM node": {
      request: bindingRequest(VM_NODE, OPERATOR_USERNAME),
      reads: [`nodes ${VM_NODE}`, "pods default/demo-0"],
      kube: () => cluster().failingFor("pods", "GET pods default/demo-0: apiserver answered 403"),
    },
  },
  "allow/": {
    "operator creates an owned pod on a VM node": {
      request: create(onNode(VM_NODE, { ownerReferences: owned })),
      reads: [`nodes ${VM_NODE}`],
    },
    "operator binds its marked, owned pod": {
      request: bindingRequest(VM_NODE, OPERATOR_USERNAME),
      reads: [`nodes ${VM_NODE}`, "pods default/demo-0"],
    },
  },
};

const boundCases = Object.entries(boundTable).flatMap(([expected, cases]) =>
  Object.entries(cases).map(([name, boundCase]) => ({ name, expected, ...boundCase })),
);

describe("podGate: pods bound by name and Bindings", () => {
  test.each(boundCases)("$expected: $name", async ({ request, expected, reads, kube }) => {
    const port = (kube ?? cluster)();
    const verdict = await examine("podGate", request, { podCreators: OPERATOR_ONLY, kube: port });
    expect(label(verdict)).toBe(expected);
    expect(verdict.allowed).toBe(!/^(deny|error)\//.test(expected));
    expect(
      port.calls.map(
        (call) => `${call.resource} ${call.namespace ? `${call.namespace}/` : ""}${call.name}`,
      ),
    ).toEqual([...reads]);
  });

  test("a marked pod naming a node keeps today's path: no node GET", async () => {
    const kube = cluster();
    const verdict = await examine(
      "podGate",
      create(onNode(VM_NODE, { tolerations: cocoon }), ALICE),
      { podCreators: OPERATOR_ONLY, kube },
    );
    expect(label(verdict)).toBe("deny/not_owned");
    expect(kube.calls).toEqual([]);
  });

  test("an unmarked pod without nodeName is decided without the apiserver", async () => {
    const kube = cluster();
    const verdict = await examine("podGate", create(plainPod, ALICE), {
      podCreators: OPERATOR_ONLY,
      kube,
    });
    expect(label(verdict)).toBe("skipped/not_cocoon");
    expect(kube.calls).toEqual([]);
  });
});

describe("podGate: messages for pods bound by name and Bindings", () => {
  const deps = (kube: FakeKube): PodGateDeps => ({
    podCreators: OPERATOR_ONLY,
    runtimeIdentities: runtimeIdentities(DEFAULT_RUNTIME_IDENTITIES),
    kube,
  });
  test.each<[string, AdmissionRequest, () => FakeKube, string[]]>([
    [
      "not_owned (nodeName)",
      create(onNode(VM_NODE), ALICE),
      cluster,
      [
        "default/demo-0",
        "spec.nodeName",
        `"${VM_NODE}"`,
        COCOON_TOLERATION_KEY,
        "metadata.ownerReferences",
        COCOONSET_KIND,
      ],
    ],
    [
      "creator (nodeName)",
      create(onNode(VM_NODE, { ownerReferences: owned }), ALICE),
      cluster,
      [`"${ALICE}"`, "spec.nodeName", VM_NODE, "POD_CREATORS", OPERATOR_USERNAME],
    ],
    [
      "node_fetch",
      create(onNode(VM_NODE), ALICE),
      () => cluster().failing("GET nodes vk-cocoon-1: timed out after 3000ms"),
      [
        "cannot verify node",
        `"${VM_NODE}"`,
        "spec.nodeName",
        "fail-closed",
        "timed out",
        "RBAC to get nodes",
        "APISERVER_TIMEOUT",
      ],
    ],
    [
      "node_fetch (Binding)",
      bindingRequest(VM_NODE, ALICE),
      () => cluster().failing(),
      ["cannot verify node", "target.name", "default/demo-0"],
    ],
    [
      "pod_fetch",
      bindingRequest(VM_NODE, ALICE),
      () => cluster().failingFor("pods", "boom"),
      ["cannot verify pod default/demo-0", VM_NODE, "fail-closed", "boom", "RBAC to get pods"],
    ],
    [
      "unmarked_binding",
      bindingRequest(VM_NODE, ALICE, { name: "plain-0" }),
      cluster,
      [
        `"${ALICE}"`,
        "default/plain-0",
        "target.name",
        `"${VM_NODE}" (target.name), a VM node (taint "virtual-kubelet.io/provider")`,
        'carries no cocoon marker (toleration "virtual-kubelet.io/provider" or annotation "vm.cocoonstack.io/name")',
      ],
    ],
    [
      "creator (Binding)",
      bindingRequest(VM_NODE, ALICE),
      cluster,
      [`"${ALICE}"`, "default/demo-0", "POD_CREATORS", SCHEDULER],
    ],
    [
      "invalid_name",
      create(onNode("../x"), ALICE),
      cluster,
      ["spec.nodeName", '"../x"', "DNS subdomain"],
    ],
  ])("%s", async (_name, request, kube, mentions) => {
    const message = refusalMessage(await examine("podGate", request, deps(kube())));
    for (const mention of mentions) expect(message).toContain(mention);
  });
});

// ------------------------------------------ POD_CREATORS pairs creators with kinds

describe("podGate: each creator only for the owner kinds POD_CREATORS pairs it with", () => {
  const pairing = podCreators(DEFAULT_POD_CREATORS);
  const sandboxOwner = {
    apiVersion: "agents.x-k8s.io/v1beta1",
    kind: "Sandbox",
    name: "demo",
    uid: "u4",
    controller: true,
  };
  const sandboxPod = pod({ tolerations: cocoon, ownerReferences: [sandboxOwner] });
  const machineOwner = { apiVersion: "example.com/v1", kind: "Machine", name: "m", uid: "u5" };
  const machinePod = pod({ tolerations: cocoon, ownerReferences: [machineOwner] });
  const sandboxCluster = () =>
    cluster()
      .withPod("default", "sandbox-0", sandboxPod)
      .withPod("default", "machine-0", machinePod);
  const bindAs = (username: string, name: string) =>
    bindingRequest(VM_NODE, username, {
      name,
      object: {
        apiVersion: "v1",
        kind: "Binding",
        metadata: { name, namespace: "default" },
        target: { kind: "Node", name: VM_NODE },
      },
    });

  test.each<[string, AdmissionRequest, string]>([
    [
      "sandbox-operator creates a Sandbox's pod",
      create(sandboxPod, SANDBOX_OPERATOR_USERNAME),
      "allow/",
    ],
    ["the cocoon operator creates a CocoonSet's pod", create(operatorPod), "allow/"],
    ["a user creates a pod with a Sandbox owner", create(sandboxPod, ALICE), "deny/creator"],
    [
      "sandbox-operator creates a CocoonSet's pod",
      create(operatorPod, SANDBOX_OPERATOR_USERNAME),
      "deny/creator",
    ],
    ["the cocoon operator creates a Sandbox's pod", create(sandboxPod), "deny/creator"],
    [
      "a Sandbox owner of another group owns nothing here",
      create(
        pod({
          tolerations: cocoon,
          ownerReferences: [{ ...sandboxOwner, apiVersion: "example.com/v1" }],
        }),
        SANDBOX_OPERATOR_USERNAME,
      ),
      "deny/not_owned",
    ],
    [
      "a CocoonSet owner without its group owns nothing here",
      create(
        pod({ tolerations: cocoon, ownerReferences: [{ ...cocoonSetOwner, apiVersion: "v1" }] }),
      ),
      "deny/not_owned",
    ],
    [
      "a kind nobody is paired with",
      create(machinePod, SANDBOX_OPERATOR_USERNAME),
      "deny/not_owned",
    ],
    [
      "a pod owned by both kinds passes for either creator",
      create(
        pod({ tolerations: cocoon, ownerReferences: [sandboxOwner, cocoonSetOwner] }),
        SANDBOX_OPERATOR_USERNAME,
      ),
      "allow/",
    ],
    [
      "a newly marked Sandbox pod on UPDATE by the cocoon operator",
      update(pod({ ownerReferences: [sandboxOwner] }), sandboxPod),
      "deny/creator",
    ],
  ])("%s → %s", async (_name, request, expected) => {
    const verdict = await examine("podGate", request, { podCreators: pairing, kube: cluster() });
    expect(label(verdict)).toBe(expected);
  });

  test.each<[string, AdmissionRequest, string]>([
    [
      "sandbox-operator names a VM node for a Sandbox's pod",
      create(onNode(VM_NODE, { ownerReferences: [sandboxOwner] }), SANDBOX_OPERATOR_USERNAME),
      "allow/",
    ],
    [
      "the cocoon operator names a VM node for a Sandbox's pod",
      create(onNode(VM_NODE, { ownerReferences: [sandboxOwner] })),
      "deny/creator",
    ],
    [
      "sandbox-operator binds a Sandbox's pod",
      bindAs(SANDBOX_OPERATOR_USERNAME, "sandbox-0"),
      "allow/",
    ],
    [
      "the cocoon operator binds a Sandbox's pod",
      bindAs(OPERATOR_USERNAME, "sandbox-0"),
      "deny/creator",
    ],
    [
      "sandbox-operator binds a CocoonSet's pod",
      bindAs(SANDBOX_OPERATOR_USERNAME, "demo-0"),
      "deny/creator",
    ],
    [
      "anyone binds a pod of an unpaired kind",
      bindAs(SANDBOX_OPERATOR_USERNAME, "machine-0"),
      "deny/not_owned",
    ],
  ])("bound by name: %s → %s", async (_name, request, expected) => {
    const verdict = await examine("podGate", request, {
      podCreators: pairing,
      kube: sandboxCluster(),
    });
    expect(label(verdict)).toBe(expected);
  });

  test("a further provider gets its own entry", async () => {
    const withMachines = podCreators(
      `${DEFAULT_POD_CREATORS},system:serviceaccount:m:m=example.com/Machine`,
    );
    const verdict = await examine("podGate", create(machinePod, "system:serviceaccount:m:m"), {
      podCreators: withMachines,
    });
    expect(label(verdict)).toBe("allow/");
  });

  test.each<[string, AdmissionRequest, string[]]>([
    [
      "a user with a Sandbox owner is named, with who may create such pods",
      create(sandboxPod, ALICE),
      [`"${ALICE}"`, SANDBOX_OPERATOR_USERNAME, "agents.x-k8s.io/Sandbox", "not proof"],
    ],
    [
      "the cocoon operator with a Sandbox owner is told the kind is not its own",
      create(sandboxPod),
      [`"${OPERATOR_USERNAME}"`, `lets only ${SANDBOX_OPERATOR_USERNAME} create`],
    ],
    [
      "no trusted owner names both kinds",
      create(machinePod, SANDBOX_OPERATOR_USERNAME),
      [
        "has no CocoonSet or Sandbox owner",
        "cocoonset.cocoonstack.io/CocoonSet, agents.x-k8s.io/Sandbox",
        "POD_CREATORS",
      ],
    ],
  ])("message: %s", async (_name, request, mentions) => {
    const message = refusalMessage(await examine("podGate", request, { podCreators: pairing }));
    for (const mention of mentions) expect(message).toContain(mention);
  });
});

describe("podGate: a VM pod's gate fields", () => {
  test("the denial names the user, each changed field, who may change them and what to use instead", async () => {
    const request = update(
      operatorPod,
      annotated(pod({ tolerations: cocoon, annotations: operatorAnnotations }), {
        [HIBERNATE]: "true",
      }),
      ALICE,
    );
    const message = refusalMessage(await examine("podGate", request));
    for (const part of [
      `user "${ALICE}"`,
      `metadata.annotations["${HIBERNATE}"]`,
      "metadata.ownerReferences",
      "pod default/demo-0",
      OPERATOR_USERNAME,
      VK_COCOON,
      "a node on the pods bound to it",
      "CocoonHibernation",
      "CocoonSet",
    ]) {
      expect(message).toContain(part);
    }
  });

  test("at most five changed fields are named, the rest counted", async () => {
    const many = Object.fromEntries(
      Array.from({ length: 9 }, (_, index) => [`vm.cocoonstack.io/x${index}`, "1"]),
    );
    const request = update(operatorPod, annotated(operatorPod, many), ALICE);
    const message = refusalMessage(await examine("podGate", request));
    expect(message).toContain('metadata.annotations["vm.cocoonstack.io/x4"] and 4 more');
    expect(message).not.toContain("vm.cocoonstack.io/x5");
  });

  test("RUNTIME_IDENTITIES configures who else may: a node trusted only where the setting says so", async () => {
    const request = statusUpdate(
      boundOperatorPod,
      annotated(boundOperatorPod, { "vm.cocoonstack.io/ip": "10.0.0.9" }),
      `system:node:${BOUND_NODE}`,
    );
    const trusted = await examine("podGate", request, {
      runtimeIdentities: runtimeIdentities("system:node:*"),
    });
    expect(label(trusted)).toBe("skipped/no_change");
    const untrusted = await examine("podGate", request, {
      runtimeIdentities: runtimeIdentities(VK_COCOON),
    });
    expect(label(untrusted)).toBe("deny/gate_field");
  });
});
