import { isJsonObject } from "../json/read";

// The two markers that make a pod VM-backed; the CEL matchConditions spell them too.

/** Taint key of the virtual-kubelet nodes that run cocoon VMs, and so the toleration's key. */
export const COCOON_TOLERATION_KEY = "virtual-kubelet.io/provider";

/** Annotation the operator puts on every VM-backed pod. */
export const VM_NAME_ANNOTATION = "vm.cocoonstack.io/name";

/** The prefix of every annotation the platform keeps on a VM-backed pod (name, id, IP, hibernate, …). */
export const VM_ANNOTATION_PREFIX = "vm.cocoonstack.io/";

/**
 * Whether a toleration's key is the cocoon taint key, whatever its operator,
 * value or effect; a malformed entry cannot hide a cocoon toleration beside
 * it. A keyless `operator: Exists` toleration is deliberately not a marker
 * (docs/behaviour.md, "Known limit").
 */
export function hasCocoonToleration(tolerations: readonly unknown[]): boolean {
  return tolerations.some(
    (toleration) => isJsonObject(toleration) && toleration.key === COCOON_TOLERATION_KEY,
  );
}
