import { cutShort } from "../../bounded-text";
import { SCHEDULER_USERNAME } from "../../cocoon/identities";
import {
  COCOON_MARKERS_TEXT,
  hasCocoonTolerationAt,
  VM_ANNOTATION_PREFIX,
  VM_NAME_ANNOTATION,
  VM_NODE_TEXT,
} from "../../cocoon/markers";
import type { AdmissionRequest } from "../../contract/admission-request";
import type { DecisionDeps } from "../../contract/endpoint";
import { type KubeApi, readApiserver, retryOnceReachable } from "../../contract/reads";
import { allowed, denied, errored, skipped, type Verdict } from "../../contract/verdict";
import { describeJson } from "../../json/describe";
import { isJsonObject, MISTYPED, readList, readObject, valueAt } from "../../json/read";
import { apiGroupOf, NODES, PODS } from "../../kube/api-resources";
import { isDnsLabel, isDnsSubdomain } from "../../kube/name-grammar";
import {
  creatorsOf,
  describeTrustedOwners,
  includesKind,
  type OwnerKind,
  ownerKindText,
  pairedOwners,
} from "./creators";
import {
  ANNOTATIONS,
  afterBinding,
  afterStatusWrite,
  bindingSetsVmAnnotations,
  changedGateFields,
  describeChangedFields,
  NODE_NAME,
  OWNER_REFERENCES,
  TOLERATIONS,
} from "./gate-fields";
import {
  describePlatformIdentities,
  isPlatformIdentity,
  type PlatformIdentities,
} from "./platform-identities";

export const POD_GATE_REASONS = {
  skipped: ["kind", "decode", "not_cocoon", "no_change", "scheduler"],
  deny: ["not_owned", "creator", "gate_field", "invalid_name", "unmarked_binding"],
  error: ["node_fetch", "pod_fetch"],
} as const;

type PodGateVerdict = Verdict<typeof POD_GATE_REASONS, never>;

export interface PodGateDeps extends PlatformIdentities, DecisionDeps {}

/** The pod gate as the endpoint table binds it, once per process: each review then runs in this file. */
export const boundPodGate =
  (deps: PodGateDeps) =>
  (request: AdmissionRequest): Promise<PodGateVerdict> =>
    podGate(request, deps);

/** Never patches, and makes no apiserver call for a pod that neither carries a marker nor names a node. */
export async function podGate(
  request: AdmissionRequest,
  deps: PodGateDeps,
): Promise<PodGateVerdict> {
  if (isBindingRequest(request)) return bindingGate(request, deps);
  if (request.kind?.kind !== "Pod") return skipped("kind");

  const pod =
    request.subResource === "status"
      ? afterStatusWrite(request.oldObject, request.object)
      : request.object;
  // An old object whose markers cannot be read is no VM pod: the new one is judged as created.
  if (request.operation === "UPDATE" && podEntersCocoonGate(request.oldObject)) {
    return vmPodUpdateGate(request, request.oldObject, pod, deps);
  }
  const markers = readPodMarkers(pod);
  if (markers !== "gated") {
    const nodeName = request.operation === "CREATE" ? requestedNodeName(pod) : undefined;
    if (nodeName !== undefined) return podBoundByNameGate(request, nodeName, deps);
    return skipped(markers === "undecodable" ? "decode" : "not_cocoon");
  }
  return markedPodChecks(
    request,
    pod,
    deps,
    (owners) =>
      `${describePod(request)} carries a cocoon marker (${COCOON_MARKERS_TEXT}) but metadata.ownerReferences ` +
      `has no ${owners}: VM-backed pods must be managed by their operator; create or scale the ` +
      `owning resource (such as a CocoonSet) instead, or remove the marker`,
    (username, pairing) =>
      `user "${cutShort(username)}" may not ` +
      `${request.operation === "CREATE" ? "create" : "add a cocoon marker to"} ` +
      `${describePod(request)}, which carries a cocoon marker (${COCOON_MARKERS_TEXT}): ${pairing}; an owner ` +
      `reference is set by the client and is not proof that the owner's operator made the pod — ` +
      `let that operator create it`,
  );
}

/** The platform's runtime passes; anyone else may change all but the gate fields. */
function vmPodUpdateGate(
  request: AdmissionRequest,
  stored: unknown,
  updated: unknown,
  deps: PodGateDeps,
): PodGateVerdict {
  const username = request.userInfo?.username ?? "";
  if (isPlatformIdentity(username, valueAt(stored, NODE_NAME), deps)) return skipped("no_change");
  const changed = changedGateFields(stored, updated);
  if (changed.length === 0) return skipped("no_change");
  return denied(
    "gate_field",
    `user "${cutShort(username)}" may not change ${describeChangedFields(changed)} of ` +
      `${describePod(request)}, a VM-backed pod (${COCOON_MARKERS_TEXT}): only ` +
      `${describePlatformIdentities(deps)} may change its ${VM_ANNOTATION_PREFIX} annotations, ` +
      `cocoon toleration, owner references or node; to hibernate or wake the VM create a ` +
      `CocoonHibernation, to change or remove the VM change its CocoonSet`,
  );
}

/** `pods/binding`, or the older `bindings` resource: both place a pod on `target.name`. */
function isBindingRequest(request: AdmissionRequest): boolean {
  if (request.kind?.kind !== "Binding") return false;
  const resource = request.resource?.resource;
  return (
    (resource === "pods" && request.subResource === "binding") ||
    (resource === "bindings" && !request.subResource)
  );
}

/**
 * The gate every path to a VM-backed pod ends in: an owner of a kind POD_CREATORS pairs with a
 * creator, and a requester paired with the kind of one of its owners. Each path words its own
 * denials, given the trusted owner kinds or who POD_CREATORS lets create this pod.
 */
function markedPodChecks(
  request: AdmissionRequest,
  pod: unknown,
  { podCreators }: PodGateDeps,
  notOwned: (owners: string) => string,
  creator: (username: string, pairing: string) => string,
): PodGateVerdict {
  const owners = pairedOwners(podOwnerKinds(pod), podCreators);
  if (owners.length === 0) return denied("not_owned", notOwned(describeTrustedOwners(podCreators)));
  const username = request.userInfo?.username ?? "";
  const mine = podCreators.get(username) ?? [];
  if (owners.some((owner) => includesKind(mine, owner))) return allowed();
  const kinds = [...new Set(owners.map(ownerKindText))];
  const pairing =
    `POD_CREATORS lets only ${creatorsOf(podCreators, owners).join(", ")} create VM-backed pods ` +
    `whose owner is ${kinds.join(" or ")}`;
  return denied("creator", creator(username, pairing));
}

/** An unmarked pod CREATE with `spec.nodeName` is gated like a marked pod when the node is a VM node. */
async function podBoundByNameGate(
  request: AdmissionRequest,
  nodeName: unknown,
  deps: PodGateDeps,
): Promise<PodGateVerdict> {
  if (!isDnsSubdomain(nodeName)) {
    return denied(
      "invalid_name",
      invalidNodeNameMessage(describePod(request), "spec.nodeName", nodeName),
    );
  }
  const vmNode = await isVmNode(deps.kube, describePod(request), "spec.nodeName", nodeName);
  if (vmNode !== true) return vmNode || skipped("not_cocoon");
  const subject = `${describePod(request)} sets spec.nodeName to "${nodeName}", ${VM_NODE_TEXT}, which skips the taint that keeps unmarked pods off VM nodes`;
  return markedPodChecks(
    request,
    request.object,
    deps,
    (owners) =>
      `${subject}, but metadata.ownerReferences has no ${owners}: a pod on a VM node becomes a ` +
      `VM and must be managed by its operator; remove spec.nodeName and let the scheduler place ` +
      `the pod, or create the owning resource instead`,
    (username, pairing) =>
      `user "${cutShort(username)}" may not create ${describePod(request)} with spec.nodeName "${nodeName}", ` +
      `${VM_NODE_TEXT}: ${pairing}; remove spec.nodeName and let the scheduler place the pod, or let ` +
      `the owner's operator create it`,
  );
}

/** A Binding by anyone but the scheduler (which honours taints), with the binder as the requester. */
async function bindingGate(request: AdmissionRequest, deps: PodGateDeps): Promise<PodGateVerdict> {
  const username = request.userInfo?.username ?? "";
  if (username === SCHEDULER_USERNAME) return skipped("scheduler");
  const nodeName = bindingTargetNode(request.object);
  if (nodeName === undefined) return skipped("decode");

  const { namespace, name: podName } = request;
  const podRef = `${cutShort(namespace ?? "")}/${cutShort(podName ?? "")}`;
  const pod = `pod ${podRef}`;
  if (!isDnsSubdomain(nodeName)) {
    return denied(
      "invalid_name",
      invalidNodeNameMessage(`the Binding of ${pod}`, "target.name", nodeName),
    );
  }
  if (!isDnsLabel(namespace) || !isDnsSubdomain(podName)) {
    return denied(
      "invalid_name",
      `the Binding names ${JSON.stringify(podRef)} as its pod, which is not ` +
        `a valid namespace/name (DNS label / DNS subdomain), so it cannot be checked; bind an existing pod`,
    );
  }

  const setsVmAnnotations = bindingSetsVmAnnotations(request.object);
  const vmNode = await isVmNode(deps.kube, `the Binding of ${pod}`, "target.name", nodeName);
  if (typeof vmNode !== "boolean") return vmNode;
  if (!vmNode && !setsVmAnnotations) return skipped("not_cocoon");

  const bound = await readApiserver(() => deps.kube.get(PODS, { namespace, name: podName }));
  if (!bound.ok) {
    const why = setsVmAnnotations
      ? `whose Binding copies ${VM_ANNOTATION_PREFIX} annotations onto it`
      : `which a Binding places on "${nodeName}", ${VM_NODE_TEXT}`;
    return errored(
      "pod_fetch",
      `cannot verify ${pod}, ${why}, so the Binding is refused (fail-closed): ${bound.failure}; ` +
        retryOnceReachable("get", PODS.plural),
    );
  }
  const boundPod =
    bound.answer === undefined ? undefined : afterBinding(bound.answer, request.object);
  if (setsVmAnnotations && bound.answer !== undefined) {
    const annotated = bindingAnnotationsGate(request, pod, bound.answer, boundPod, deps);
    if (!annotated.allowed) return annotated;
  }
  if (!vmNode) return skipped("not_cocoon");
  const binding = `user "${cutShort(username)}" may not bind ${pod} to "${nodeName}" (target.name), ${VM_NODE_TEXT}`;
  if (boundPod === undefined || readPodMarkers(boundPod) !== "gated") {
    const state =
      boundPod === undefined
        ? "does not exist"
        : `carries no cocoon marker (${COCOON_MARKERS_TEXT})`;
    return denied(
      "unmarked_binding",
      `${binding}: the pod ${state}, and only VM-backed pods made by the cocoon operator may run on ` +
        `VM nodes; bind it to another node or let the scheduler place it`,
    );
  }
  return markedPodChecks(
    request,
    boundPod,
    deps,
    (owners) =>
      `${binding}: the pod carries a cocoon marker (${COCOON_MARKERS_TEXT}) but its metadata.ownerReferences has ` +
      `no ${owners}; VM-backed pods must be managed by their operator`,
    (_username, pairing) =>
      `${binding}: ${pairing}, or bind them, and the scheduler (${SCHEDULER_USERNAME}) may place ` +
      `them; let the scheduler bind the pod`,
  );
}

/** The apiserver copies a Binding's annotations onto its pod, so the Binding is judged as that write would be. */
function bindingAnnotationsGate(
  request: AdmissionRequest,
  pod: string,
  stored: unknown,
  bound: unknown,
  deps: PodGateDeps,
): PodGateVerdict {
  if (podEntersCocoonGate(stored)) return vmPodUpdateGate(request, stored, bound, deps);
  if (!podEntersCocoonGate(bound)) return skipped("not_cocoon");
  const binding = `user "${cutShort(request.userInfo?.username ?? "")}" may not bind ${pod} with the annotation "${VM_NAME_ANNOTATION}" in the Binding's metadata.annotations, which the apiserver copies onto the pod and which makes it VM-backed`;
  return markedPodChecks(
    request,
    bound,
    deps,
    (owners) =>
      `${binding}: its metadata.ownerReferences has no ${owners}; remove the annotation from the ` +
      `Binding, and let the owner's operator create VM-backed pods`,
    (_username, pairing) =>
      `${binding}: ${pairing}; remove the annotation from the Binding, and let that operator create the pod`,
  );
}

/**
 * Whether the node `path` of `subject` names is a VM node, or the refusal when that cannot be
 * told. A node that does not exist (404) is none: the apiserver refuses to bind to it anyway.
 */
async function isVmNode(
  kube: KubeApi,
  subject: string,
  path: string,
  nodeName: string,
): Promise<boolean | PodGateVerdict> {
  const read = await readApiserver(() => kube.get(NODES, { name: nodeName }));
  const kind = read.ok && read.answer !== undefined ? readNodeKind(read.answer) : "not_vm";
  if (read.ok && kind !== "unreadable") return kind === "vm";
  const failure = read.ok
    ? `node "${nodeName}" has a spec.taints that cannot be read`
    : read.failure;
  return errored(
    "node_fetch",
    `cannot verify node "${nodeName}" named in ${path} of ${subject}, so it is refused ` +
      `(fail-closed): a pod bound to a node by name skips the taint of VM nodes; ${failure}; ` +
      retryOnceReachable("get", NODES.plural),
  );
}

function invalidNodeNameMessage(subject: string, path: string, nodeName: unknown): string {
  return (
    `${path} of ${subject} is ${describeJson(nodeName)}, which is not a valid ` +
    `node name (a DNS subdomain: lowercase letters, digits, "-" and ".", at most 253 characters); ` +
    `name an existing node`
  );
}

function describePod(request: AdmissionRequest): string {
  const namespace = cutShort(request.namespace ?? "");
  return request.name
    ? `pod ${namespace}/${cutShort(request.name)}`
    : `a pod in namespace "${namespace}"`;
}

// The pod gate runs on every pod, so each reader below walks to one field, on its own, so that a
// malformed sibling cannot hide a marker.

/** `undecodable`: neither marker field can be read at all (anything not a JSON object included). */
export type PodMarkers = "gated" | "not_gated" | "undecodable";

export function readPodMarkers(pod: unknown): PodMarkers {
  const tolerated = hasCocoonTolerationAt(pod, TOLERATIONS);
  if (tolerated === true) return "gated";
  const annotations = readObject(valueAt(pod, ANNOTATIONS));
  if (
    annotations !== MISTYPED &&
    annotations !== undefined &&
    Object.hasOwn(annotations, VM_NAME_ANNOTATION)
  ) {
    return "gated";
  }
  return tolerated === MISTYPED && annotations === MISTYPED ? "undecodable" : "not_gated";
}

/** The gate predicate; the CEL matchConditions mirror it, and a property test keeps them in agreement. */
export function podEntersCocoonGate(pod: unknown): boolean {
  return readPodMarkers(pod) === "gated";
}

/** The kind of each owner reference; a malformed one owns nothing, and so do unreadable ownerReferences. */
export function podOwnerKinds(pod: unknown): OwnerKind[] {
  const references = readList(valueAt(pod, OWNER_REFERENCES));
  if (references === undefined || references === MISTYPED) return [];
  const kinds: OwnerKind[] = [];
  for (const reference of references) {
    if (!isJsonObject(reference)) continue;
    const { apiVersion, kind } = reference;
    if (typeof apiVersion !== "string" || typeof kind !== "string") continue;
    kinds.push({ group: apiGroupOf(apiVersion), kind });
  }
  return kinds;
}

/** `spec.nodeName` as sent unless absent, null or "": a pod bound by name skips the scheduler and its taints. */
export function requestedNodeName(pod: unknown): unknown {
  const nodeName = valueAt(pod, NODE_NAME);
  return nodeName === MISTYPED || nodeName === null || nodeName === "" ? undefined : nodeName;
}

/**
 * `target.name` as sent, for the caller to validate; `undefined` when the Binding names no node
 * target, which the apiserver refuses itself.
 */
function bindingTargetNode(binding: unknown): unknown {
  const target = readObject(valueAt(binding, ["target"]));
  if (target === undefined || target === MISTYPED) return undefined;
  const { kind, name } = target;
  if (kind !== undefined && kind !== null && kind !== "" && kind !== "Node") return undefined;
  return name === null || name === "" ? undefined : name;
}

/** `vm`: a taint keyed like the cocoon toleration; `unreadable`: `spec.taints` cannot be read. */
export function readNodeKind(node: unknown): "vm" | "not_vm" | "unreadable" {
  const tainted = hasCocoonTolerationAt(node, ["spec", "taints"]);
  if (tainted === MISTYPED) return "unreadable";
  return tainted ? "vm" : "not_vm";
}
