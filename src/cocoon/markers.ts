import { isJsonObject } from "../json/read";

/*
 * The two markers that make a pod VM-backed. The webhook's CEL
 * matchConditions spell them too; a property test keeps the two in step.
 */

/** Taint key of the virtual-kubelet nodes that run cocoon VMs (and its toleration key). */
export const COCOON_TOLERATION_KEY = "virtual-kubelet.io/provider";

/** Annotation the operator puts on every VM-backed pod. */
export const VM_NAME_ANNOTATION = "vm.cocoonstack.io/name";

/** The prefix of every annotation the platform keeps on a VM-backed pod (name, id, IP, hibernate, …). */
export const VM_ANNOTATION_PREFIX = "vm.cocoonstack.io/";

/**
 * Whether a toleration's key is the cocoon taint key, whatever its operator,
 * value or effect. Entries are judged one by one, so a malformed entry cannot
 * hide a well-formed cocoon toleration beside it. A keyless `operator: Exists`
 * toleration tolerates the cocoon taint too but is deliberately not a marker
 * (docs/behaviour.md, "Known limit").
 */
export function hasCocoonToleration(tolerations: readonly unknown[]): boolean {
  for (let index = 0; index < tolerations.length; index++) {
    const toleration = tolerations[index];
    if (isJsonObject(toleration) && toleration.key === COCOON_TOLERATION_KEY) return true;
  }
  return false;
}
