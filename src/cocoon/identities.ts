/** The operator's identity: the default and only entry of POD_CREATORS. */
export const OPERATOR_USERNAME = "system:serviceaccount:cocoon-system:cocoon-operator";

/** The scheduler's identity: its bindings honour taints, so the gate leaves them alone. */
export const SCHEDULER_USERNAME = "system:kube-scheduler";
