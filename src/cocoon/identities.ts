/** The cocoon operator's identity: it creates the pods of every CocoonSet. */
export const OPERATOR_USERNAME = "system:serviceaccount:cocoon-system:cocoon-operator";

/**
 * sandbox-operator's identity: it creates each Sandbox's pod in the
 * Sandbox's own namespace, with the same toleration key as cocoon's pods.
 */
export const SANDBOX_OPERATOR_USERNAME = "system:serviceaccount:sandbox-system:sandbox-operator";

/** The scheduler's identity: its bindings honour taints, so the gate leaves them alone. */
export const SCHEDULER_USERNAME = "system:kube-scheduler";
