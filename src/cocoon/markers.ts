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
