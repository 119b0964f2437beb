import { z } from "zod";
import { isJsonObject } from "../json";
import { COCOONSET_KIND, VM_NAME_ANNOTATION } from "./keys";
import { hasCocoonToleration, tolerationsSchema } from "./tolerations";

/*
 * The pod gate runs on every pod in the cluster, so a pod is never validated
 * whole: each schema below reaches exactly one field along its own path (strip
 * mode copies nothing else), and each is parsed on its own so a malformed
 * sibling cannot hide a marker. Absent or null parents read as empty, which is
 * how the apiserver omits them.
 */

const podTolerationsSchema = z.object({
  spec: z.object({ tolerations: tolerationsSchema.nullish() }).nullish(),
});

const podAnnotationsSchema = z.object({
  metadata: z
    .object({
      annotations: z.object({ [VM_NAME_ANNOTATION]: z.unknown().optional() }).nullish(),
    })
    .nullish(),
});

/** Each owner reference is decoded on its own; a malformed one is dropped (it owns nothing). */
const ownerReferencesSchema = z
  .array(z.object({ kind: z.string() }).optional().catch(undefined))
  .transform((references) => references.filter((reference) => reference !== undefined));

const podOwnerReferencesSchema = z.object({
  metadata: z.object({ ownerReferences: ownerReferencesSchema.nullish() }).nullish(),
});

type MarkerReading = "marker" | "no_marker" | "unreadable";

function readTolerationMarker(pod: unknown): MarkerReading {
  const parsed = podTolerationsSchema.safeParse(pod);
  if (!parsed.success) return "unreadable";
  return hasCocoonToleration(parsed.data.spec?.tolerations ?? []) ? "marker" : "no_marker";
}

function readAnnotationMarker(pod: unknown): MarkerReading {
  const parsed = podAnnotationsSchema.safeParse(pod);
  if (!parsed.success) return "unreadable";
  const annotations = parsed.data.metadata?.annotations;
  return annotations && Object.hasOwn(annotations, VM_NAME_ANNOTATION) ? "marker" : "no_marker";
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

/** Whether any owner reference is of kind CocoonSet; unreadable ownerReferences own nothing. */
export function podOwnedByCocoonSet(pod: unknown): boolean {
  const parsed = podOwnerReferencesSchema.safeParse(pod);
  if (!parsed.success) return false;
  return (parsed.data.metadata?.ownerReferences ?? []).some(
    (reference) => reference.kind === COCOONSET_KIND,
  );
}

/**
 * `spec.nodeName` as sent, when the pod names a node: anything but absent,
 * null or "". A pod bound by name skips the scheduler, so a taint cannot keep
 * it off a VM node. Read by hand, without zod: it runs for every pod CREATE.
 * The webhook's CEL matchCondition mirrors it.
 */
export function requestedNodeName(pod: unknown): unknown {
  if (!isJsonObject(pod) || !isJsonObject(pod.spec)) return undefined;
  const nodeName = pod.spec.nodeName;
  return nodeName === null || nodeName === "" ? undefined : nodeName;
}

export function podNamesNode(pod: unknown): boolean {
  return requestedNodeName(pod) !== undefined;
}
