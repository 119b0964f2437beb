import type { NamespaceSelector } from "../contract/endpoint";

/** The namespaces the pod and workload registrations leave out. */
export const RECOVERY_NAMESPACES: NamespaceSelector = {
  comment:
    "An outage under failurePolicy Fail must not block the pods these namespaces need to " +
    "recover the cluster (and the webhook itself). sandbox-system is gated: sandbox-operator's " +
    "pods pass through its own POD_CREATORS pairing with the Sandbox kind.",
  excluded: ["kube-system", "kube-node-lease", "kube-public", "cocoon-system", "cert-manager"],
};
