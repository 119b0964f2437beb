import { describe, expect, test } from "bun:test";
import { OPERATOR_USERNAME } from "../../src/cocoon/identities";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import type { AdmissionRequest } from "../../src/contract/admission-request";
import { COMMON_REASONS, type ReasonIn, type Reasons } from "../../src/contract/verdict";
import {
  ENDPOINT_KEYS,
  type ENDPOINTS,
  type EndpointKey,
  resultReasons,
} from "../../src/endpoints";
import { admissionRequest } from "../support/admission-review";
import { FakeKube } from "../support/fake-kube";
import { examine, podCreators } from "../support/handlers";
import { expectWarningsLeadWithRemedy } from "../support/warnings";
import { cocoonSet, hibernation } from "./cases/builders";

/*
 * Every (result, reason) the endpoint table lists, reached through the
 * endpoint's policy as the admission factory runs it (operation gate, then
 * handler): one request per pair. A listed reason no case reaches, and a case
 * that gives another reason than its own, both fail. The one pair left out,
 * `error / internal` (a handler that threw), is the review route's and is
 * driven there (test/admission/review-route.test.ts); `warn` is what warn
 * mode makes of each deny and error (test/admission/enforcement.test.ts).
 */

type Pair<Result extends string, Reason extends string> = `${Result}/${Reason}`;

type ReasonOf<E extends EndpointKey, K extends keyof Reasons> = ReasonIn<
  (typeof ENDPOINTS)[E]["reasons"],
  K
>;

/** The pairs a policy can give: those the table lists for endpoint `E`, but the route's own. */
type PolicyPair<E extends EndpointKey> =
  | "allow/"
  | Pair<"skipped", ReasonOf<E, "skipped">>
  | Pair<"deny", ReasonOf<E, "deny">>
  | Pair<"error", Exclude<ReasonOf<E, "error">, (typeof COMMON_REASONS)["error"][number]>>;

interface Case {
  readonly request: AdmissionRequest;
  /** The apiserver the policy reads; an empty one when left out. */
  readonly kube?: () => FakeKube;
}

const ALICE = "alice@example.com";
const SCHEDULER = "system:kube-scheduler";
const VM_NODE = "vk-cocoon-1";
const PLAIN_NODE = "worker-1";

const cocoonToleration = { key: COCOON_TOLERATION_KEY, operator: "Exists" };
const cocoonSetOwner = {
  apiVersion: "cocoonset.cocoonstack.io/v1",
  kind: "CocoonSet",
  name: "demo",
  uid: "u1",
  controller: true,
};

function pod(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "demo-0", namespace: "default", ...metadata },
    spec: { containers: [{ name: "agent", image: "agent:1" }], ...spec },
  };
}

const markedPod = pod({ tolerations: [cocoonToleration] });
const operatorPod = pod(
  { tolerations: [cocoonToleration] },
  { annotations: { [VM_NAME_ANNOTATION]: "vm" }, ownerReferences: [cocoonSetOwner] },
);

const podRequest = (overrides: Partial<AdmissionRequest>): AdmissionRequest =>
  admissionRequest({
    kind: { kind: "Pod" },
    resource: { resource: "pods" },
    name: "demo-0",
    operation: "CREATE",
    ...overrides,
  });

const byUser = (username: string, object: unknown): AdmissionRequest =>
  podRequest({ userInfo: { username }, object });

const binding = (username: string, pod: string, node = VM_NODE): AdmissionRequest =>
  podRequest({
    kind: { kind: "Binding" },
    subResource: "binding",
    name: pod,
    userInfo: { username },
    object: {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: pod, namespace: "default" },
      target: { apiVersion: "v1", kind: "Node", name: node },
    },
  });

const node = (name: string, taints: unknown[]) => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name },
  spec: { taints },
});

/** A VM node, a plain node, and two pods to bind: one marked and owned, one plain. */
const cluster = () =>
  new FakeKube()
    .withNode(VM_NODE, node(VM_NODE, [{ key: COCOON_TOLERATION_KEY, effect: "NoSchedule" }]))
    .withNode(PLAIN_NODE, node(PLAIN_NODE, []))
    .withPod("default", "demo-0", operatorPod)
    .withPod("default", "plain-0", pod());

const onNode = (nodeName: string) => pod({ nodeName });

const workload = (replicas: number, tolerations?: unknown[]) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "agent", namespace: "agents" },
  spec: { replicas, template: { spec: { containers: [], tolerations } } },
});
const scale = (replicas: number) => ({
  apiVersion: "autoscaling/v1",
  kind: "Scale",
  metadata: { name: "agent", namespace: "agents" },
  spec: { replicas },
});
const workloadUpdate = (oldObject: unknown, object: unknown, kind = "Deployment") =>
  admissionRequest({
    operation: "UPDATE",
    kind: { kind },
    resource: { resource: `${kind.toLowerCase()}s` },
    namespace: "agents",
    name: "agent",
    oldObject,
    object,
  });
const scaleDown = admissionRequest({
  operation: "UPDATE",
  kind: { kind: "Scale" },
  resource: { resource: "deployments" },
  subResource: "scale",
  namespace: "agents",
  name: "agent",
  oldObject: scale(3),
  object: scale(1),
});

const cocoonSetRequest = (object: unknown, overrides: Partial<AdmissionRequest> = {}) =>
  admissionRequest({ object, ...overrides });
const hibernationRequest = (object: unknown, operation = "CREATE") =>
  admissionRequest({ operation, object });
const withHibernations = (existing: Record<string, unknown>[]) => () =>
  new FakeKube().withHibernations("default", existing);

const CASES: { readonly [E in EndpointKey]: Readonly<Record<PolicyPair<E>, Case>> } = {
  podGate: {
    "allow/": { request: byUser(OPERATOR_USERNAME, operatorPod) },
    "skipped/operation": { request: podRequest({ operation: "DELETE", oldObject: operatorPod }) },
    "skipped/kind": { request: podRequest({ kind: { kind: "Deployment" }, object: operatorPod }) },
    "skipped/decode": { request: byUser(ALICE, "garbage") },
    "skipped/not_cocoon": { request: byUser(ALICE, pod()) },
    "skipped/no_change": {
      request: podRequest({
        operation: "UPDATE",
        userInfo: { username: ALICE },
        oldObject: markedPod,
        object: markedPod,
      }),
    },
    "skipped/scheduler": { request: binding(SCHEDULER, "plain-0") },
    "deny/not_owned": { request: byUser(OPERATOR_USERNAME, markedPod) },
    "deny/creator": { request: byUser(ALICE, operatorPod) },
    "deny/gate_field": {
      request: podRequest({
        operation: "UPDATE",
        userInfo: { username: ALICE },
        oldObject: markedPod,
        object: pod(
          { tolerations: [cocoonToleration] },
          { annotations: { [VM_NAME_ANNOTATION]: "vk-default-other-0" } },
        ),
      }),
    },
    "deny/invalid_name": { request: byUser(ALICE, onNode("../namespaces/x")) },
    "deny/unmarked_binding": { request: binding(ALICE, "plain-0"), kube: cluster },
    "error/node_fetch": {
      request: byUser(ALICE, onNode(VM_NODE)),
      kube: () => cluster().failingFor("nodes"),
    },
    "error/pod_fetch": {
      request: binding(OPERATOR_USERNAME, "demo-0"),
      kube: () => cluster().failingFor("pods"),
    },
  },
  scaleGuard: {
    "allow/": { request: workloadUpdate(workload(1, [cocoonToleration]), workload(3)) },
    "skipped/operation": {
      request: { ...workloadUpdate(undefined, workload(1)), operation: "CREATE" },
    },
    "skipped/kind": {
      request: workloadUpdate(workload(3, [cocoonToleration]), workload(1), "ReplicaSet"),
    },
    "skipped/decode": { request: workloadUpdate(null, workload(1)) },
    "skipped/not_cocoon": { request: workloadUpdate(workload(3), workload(1)) },
    "skipped/no_parent": { request: scaleDown },
    "deny/scale_down": {
      request: workloadUpdate(workload(3, [cocoonToleration]), workload(1, [cocoonToleration])),
    },
    "error/parent_fetch": { request: scaleDown, kube: () => new FakeKube().failing() },
  },
  cocoonSet: {
    "allow/": { request: cocoonSetRequest(cocoonSet()) },
    "skipped/operation": { request: cocoonSetRequest(cocoonSet(), { operation: "DELETE" }) },
    "skipped/no_change": {
      request: cocoonSetRequest(cocoonSet({ agent: { image: "" } }), {
        operation: "UPDATE",
        oldObject: cocoonSet({ agent: { image: "" } }),
      }),
    },
    "deny/invalid_spec": { request: cocoonSetRequest(cocoonSet({ agent: { image: "" } })) },
    "error/decode": { request: cocoonSetRequest("garbage") },
  },
  cocoonHibernation: {
    "allow/": { request: hibernationRequest(hibernation()) },
    "skipped/operation": { request: hibernationRequest(hibernation(), "UPDATE") },
    "deny/invalid_desire": { request: hibernationRequest(hibernation({ desire: "Sleep" })) },
    "deny/name_mismatch": { request: hibernationRequest(hibernation({ name: "other" })) },
    "deny/duplicate": {
      request: hibernationRequest(hibernation()),
      kube: withHibernations([hibernation({ name: "first" })]),
    },
    "deny/terminating": {
      request: hibernationRequest(hibernation()),
      kube: withHibernations([hibernation({ deletionTimestamp: "2026-01-01T00:00:00Z" })]),
    },
    "error/decode": { request: hibernationRequest(null) },
    "error/list": {
      request: hibernationRequest(hibernation()),
      kube: () => new FakeKube().failing(),
    },
  },
};

const casesOf = (endpoint: EndpointKey): [string, Case][] => Object.entries(CASES[endpoint]);

const ROUTE_PAIRS = COMMON_REASONS.error.map((reason) => `error/${reason}`);

describe.each(ENDPOINT_KEYS)("%s gives every reason the table lists", (endpoint) => {
  test("one case per listed (result, reason), and none besides", () => {
    const listed = resultReasons(endpoint)
      .filter(({ result }) => result !== "warn")
      .map(({ result, reason }) => `${result}/${reason}`)
      .filter((pair) => !ROUTE_PAIRS.includes(pair));
    expect(
      casesOf(endpoint)
        .map(([pair]) => pair)
        .sort(),
    ).toEqual(listed.sort());
  });

  test.each(casesOf(endpoint))("%s", async (pair, { request, kube }) => {
    const verdict = await examine(endpoint, request, {
      podCreators: podCreators(OPERATOR_USERNAME),
      kube: kube?.() ?? new FakeKube(),
    });
    expect(`${verdict.result}/${verdict.reason}`).toBe(pair);
    if (!verdict.allowed) expectWarningsLeadWithRemedy(endpoint, verdict);
  });
});
