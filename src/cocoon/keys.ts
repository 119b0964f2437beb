/** Taint key of the virtual-kubelet nodes that run cocoon VMs (and its toleration key). */
export const COCOON_TOLERATION_KEY = "virtual-kubelet.io/provider";

/** Annotation the operator puts on every VM-backed pod. */
export const VM_NAME_ANNOTATION = "vm.cocoonstack.io/name";

/** API group and version of the cocoon custom resources. */
export const COCOON_GROUP = "cocoonset.cocoonstack.io";
export const COCOON_VERSION = "v1";

export const COCOONSET_KIND = "CocoonSet";
export const COCOONHIBERNATION_KIND = "CocoonHibernation";
export const COCOONHIBERNATION_PLURAL = "cocoonhibernations";

/** The operator's identity: the default and only entry of POD_CREATORS. */
export const OPERATOR_USERNAME = "system:serviceaccount:cocoon-system:cocoon-operator";

/** The scheduler's identity: its bindings honour taints, so the gate leaves them alone. */
export const SCHEDULER_USERNAME = "system:kube-scheduler";

/** Every denial message starts with this, so operators can grep for it. */
export const MESSAGE_PREFIX = "cocoon-webhook: ";
