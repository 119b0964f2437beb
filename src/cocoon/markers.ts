import { isJsonObject, type JsonPath, MISTYPED, readList, valueAt } from "../json/read";

// The two markers that make a pod VM-backed; the CEL matchConditions spell them too.

/** Taint key of the virtual-kubelet nodes that run cocoon VMs, and so the toleration's key. */
export const COCOON_TOLERATION_KEY = "virtual-kubelet.io/provider";

/** Annotation the operator puts on every VM-backed pod. */
export const VM_NAME_ANNOTATION = "vm.cocoonstack.io/name";

/** How messages name the two markers, so an operator sees exactly what makes a pod VM-backed. */
export const COCOON_MARKERS_TEXT = `toleration "${COCOON_TOLERATION_KEY}" or annotation "${VM_NAME_ANNOTATION}"`;

/** How messages name a node whose taint makes every pod on it a VM. */
export const VM_NODE_TEXT = `a VM node (taint "${COCOON_TOLERATION_KEY}")`;

/** The prefix of every annotation the platform keeps on a VM-backed pod (name, id, IP, hibernate, …). */
export const VM_ANNOTATION_PREFIX = "vm.cocoonstack.io/";

/**
 * Whether one toleration (or taint) is keyed like the cocoon taint, whatever its operator, value
 * or effect. A keyless `operator: Exists` toleration is deliberately not a marker
 * (docs/behaviour.md, "Known limit").
 */
export function isCocoonToleration(toleration: unknown): boolean {
  return isJsonObject(toleration) && toleration.key === COCOON_TOLERATION_KEY;
}

/** Entry by entry, so a malformed entry cannot hide a cocoon toleration beside it. */
export function hasCocoonToleration(tolerations: readonly unknown[]): boolean {
  return tolerations.some(isCocoonToleration);
}

/**
 * Whether the toleration or taint list at `path` holds a cocoon one; MISTYPED when that list cannot
 * be read, for the caller to decide what an unreadable list means.
 */
export function hasCocoonTolerationAt(object: unknown, path: JsonPath): boolean | typeof MISTYPED {
  const tolerations = readList(valueAt(object, path));
  if (tolerations === MISTYPED) return MISTYPED;
  return tolerations !== undefined && hasCocoonToleration(tolerations);
}
