import { isJsonObject, type JsonPath, MISTYPED, readList, readObject, valueAt } from "../json/read";
import { VM_NAME_ANNOTATION } from "./markers";
import type { OwnerKind } from "./pod-creators";
import { hasCocoonToleration } from "./tolerations";

/*
 * The pod gate runs on every pod in the cluster, so a pod is never read
 * whole: each reader below walks to exactly one field, and each is read on
 * its own so a malformed sibling cannot hide a marker. Absent or null
 * parents read as empty, which is how the apiserver omits them.
 */

const TOLERATIONS: JsonPath = ["spec", "tolerations"];
const ANNOTATIONS: JsonPath = ["metadata", "annotations"];
const OWNER_REFERENCES: JsonPath = ["metadata", "ownerReferences"];
const NODE_NAME: JsonPath = ["spec", "nodeName"];

type MarkerReading = "marker" | "no_marker" | "unreadable";

function readTolerationMarker(pod: unknown): MarkerReading {
  const tolerations = readList(valueAt(pod, TOLERATIONS));
  if (tolerations === MISTYPED) return "unreadable";
  return tolerations !== undefined && hasCocoonToleration(tolerations) ? "marker" : "no_marker";
}

function readAnnotationMarker(pod: unknown): MarkerReading {
  const annotations = readObject(valueAt(pod, ANNOTATIONS));
  if (annotations === MISTYPED) return "unreadable";
  return annotations !== undefined && Object.hasOwn(annotations, VM_NAME_ANNOTATION)
    ? "marker"
    : "no_marker";
}

/**
 * `gated`: a well-formed field carries a cocoon marker, whatever the other
 * fields hold. `undecodable`: neither marker field can be read at all (this
 * includes anything that is not a JSON object). `not_gated` otherwise.
 */
export type PodMarkers = "gated" | "not_gated" | "undecodable";

export function readPodMarkers(pod: unknown): PodMarkers {
  const toleration = readTolerationMarker(pod);
  if (toleration === "marker") return "gated";
  const annotation = readAnnotationMarker(pod);
  if (annotation === "marker") return "gated";
  return toleration === "unreadable" && annotation === "unreadable" ? "undecodable" : "not_gated";
}

/**
 * THE gate predicate (docs/behaviour.md, pod gate): a toleration keyed `virtual-kubelet.io/provider`
 * or a `vm.cocoonstack.io/name` annotation. The webhook's CEL matchCondition
 * mirrors it, and a property test keeps the two in agreement.
 */
export function podEntersCocoonGate(pod: unknown): boolean {
  return readPodMarkers(pod) === "gated";
}

/**
 * The kind of each owner reference: its `kind` and its `apiVersion`'s group
 * (`""` for the core group). Each reference is read on its own: a malformed
 * one owns nothing, and so do unreadable ownerReferences.
 */
export function podOwnerKinds(pod: unknown): OwnerKind[] {
  const references = readList(valueAt(pod, OWNER_REFERENCES));
  if (references === undefined || references === MISTYPED) return [];
  const kinds: OwnerKind[] = [];
  for (const reference of references) {
    if (!isJsonObject(reference)) continue;
    const { apiVersion, kind } = reference;
    if (typeof apiVersion !== "string" || typeof kind !== "string") continue;
    const slash = apiVersion.indexOf("/");
    kinds.push({ group: slash < 0 ? "" : apiVersion.slice(0, slash), kind });
  }
  return kinds;
}

/**
 * `spec.nodeName` as sent, when the pod names a node: anything but absent,
 * null or "". A pod bound by name skips the scheduler, so a taint cannot keep
 * it off a VM node. It runs for every pod CREATE. The webhook's CEL
 * matchCondition mirrors it.
 */
export function requestedNodeName(pod: unknown): unknown {
  const nodeName = valueAt(pod, NODE_NAME);
  return nodeName === MISTYPED || nodeName === null || nodeName === "" ? undefined : nodeName;
}

export function podNamesNode(pod: unknown): boolean {
  return requestedNodeName(pod) !== undefined;
}
