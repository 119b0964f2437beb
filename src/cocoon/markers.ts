import { isJsonObject, type JsonPath, MISTYPED, readList, valueAt } from "../json/read";

// The two markers that make a pod VM-backed; the CEL matchConditions spell them too.

/** Taint key of the virtual-kubelet nodes that run cocoon VMs, and so the toleration's key. */
export const COCOON_TOLERATION_KEY = "virtual-kubelet.io/provider";

export const VM_NAME_ANNOTATION = "vm.cocoonstack.io/name";

export const COCOON_MARKERS_TEXT = `toleration "${COCOON_TOLERATION_KEY}" or annotation "${VM_NAME_ANNOTATION}"`;

export const VM_NODE_TEXT = `a VM node (taint "${COCOON_TOLERATION_KEY}")`;

/** The prefix of every annotation the platform keeps on a VM-backed pod (name, id, IP, hibernate, …). */
export const VM_ANNOTATION_PREFIX = "vm.cocoonstack.io/";

/**
 * Keyed like the cocoon taint, whatever the operator, value or effect. A keyless `operator: Exists`
 * toleration is deliberately not a marker (docs/behaviour.md, "Known limit").
 */
export function isCocoonToleration(toleration: unknown): boolean {
  return isJsonObject(toleration) && toleration.key === COCOON_TOLERATION_KEY;
}

/** Entry by entry, so a malformed entry cannot hide a cocoon toleration beside it. */
export function hasCocoonToleration(tolerations: readonly unknown[]): boolean {
  return tolerations.some(isCocoonToleration);
}

/** MISTYPED when the list at `path` cannot be read: what that means is the caller's to decide. */
export function hasCocoonTolerationAt(object: unknown, path: JsonPath): boolean | typeof MISTYPED {
  const tolerations = readList(valueAt(object, path));
  if (tolerations === MISTYPED) return MISTYPED;
  return tolerations !== undefined && hasCocoonToleration(tolerations);
}
