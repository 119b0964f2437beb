export const OPERATOR_USERNAME = "system:serviceaccount:cocoon-system:cocoon-operator";

/** It creates each Sandbox's pod in the Sandbox's own namespace, with cocoon's toleration key. */
export const SANDBOX_OPERATOR_USERNAME = "system:serviceaccount:sandbox-system:sandbox-operator";

/** Its bindings honour taints, so the gate leaves them alone. */
export const SCHEDULER_USERNAME = "system:kube-scheduler";

/** They write the VM's runtime annotations (id, IP, lifecycle) and the pod status. */
export const VK_COCOON_USERNAME = "system:serviceaccount:cocoon-system:vk-cocoon";
export const VK_SANDBOX_USERNAME = "system:serviceaccount:sandbox-system:vk-sandbox";

// The garbage collector orphans pods as its own ServiceAccount under
// --use-service-account-credentials, as the controller manager otherwise.
export const GARBAGE_COLLECTOR_USERNAMES = [
  "system:serviceaccount:kube-system:generic-garbage-collector",
  "system:kube-controller-manager",
] as const;

/** The rest of a node credential's username is the node's name. */
export const NODE_USERNAME_PREFIX = "system:node:";

// The lists are embedded in the matchConditions as CEL string literals and split on "," and "=".
const UNSAFE_IDENTITY = /[\s,='"\\*\p{Cc}]/u;

export function identityProblem(identity: string): string | undefined {
  return UNSAFE_IDENTITY.test(identity)
    ? "has a character no username here may hold (whitespace, a quote, a backslash, '*', ',', '=' or a control character)"
    : undefined;
}
