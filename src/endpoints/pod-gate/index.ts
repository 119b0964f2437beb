import { COCOONHIBERNATION_KIND, COCOONSET_KIND } from "../../cocoon/crd-resources";
import { type EndpointModule, FAIL_CLOSED, namespaced } from "../../contract/endpoint";
import { retryOnceReachable } from "../../contract/reads";
import { NODES, PODS } from "../../kube/api-resources";
import { RECOVERY_NAMESPACES } from "../recovery-namespaces";
import { boundPodGate, POD_GATE_REASONS, type PodGateDeps } from "./decide";
import { POD_GATE_CONDITIONS } from "./match-conditions";

/**
 * `/mutate`, the pod gate: only a trusted creator (POD_CREATORS) may make a pod VM-backed, by any
 * path, and only the platform's identities may change a VM-backed pod's gate fields.
 */
export const podGateEndpoint = {
  label: "mutate",
  path: "/mutate",
  registration: {
    kind: "mutating",
    name: "pods.cocoon-webhook.cocoonstack.io",
    comment:
      "The pod gate, registered as mutating although it never patches. Mutating webhooks run " +
      "in sequence, so one ordered after it could add the toleration or annotation after the " +
      "gate has looked: reinvocationPolicy IfNeeded calls the gate again whenever a later " +
      "mutation changed the pod. A pod bound to a node by name skips the scheduler and with " +
      "it the taint of VM nodes, so pods/binding (and the older bindings resource) are gated " +
      "too; Bindings are create-only in the Kubernetes API, and the apiserver copies a " +
      "Binding's annotations onto its pod. A pods/status write can change a pod's labels, " +
      "annotations and finalizers, so it is gated as an UPDATE; pods/ephemeralcontainers and " +
      "pods/resize cannot change annotations, tolerations or owner references.",
    rules: [
      namespaced("", ["CREATE", "UPDATE"], [PODS.plural]),
      namespaced("", ["UPDATE"], [`${PODS.plural}/status`]),
      namespaced("", ["CREATE"], [`${PODS.plural}/binding`, "bindings"]),
    ],
    ...FAIL_CLOSED,
    reinvocationPolicy: "IfNeeded",
    namespaceSelector: RECOVERY_NAMESPACES,
    matchConditions: POD_GATE_CONDITIONS,
  },
  reads: [
    { verb: "get", resource: NODES },
    { verb: "get", resource: PODS },
  ],
  reasons: POD_GATE_REASONS,
  remedies: {
    not_owned: `let the owning resource (such as a ${COCOONSET_KIND}) create the pod, or remove the cocoon marker`,
    creator: "let the operator of the pod's owner create it (POD_CREATORS names who may)",
    invalid_name: "name a valid, existing node (and, in a Binding, pod)",
    unmarked_binding: "bind the pod to another node, or let the scheduler place it",
    gate_field: `leave the VM pod's gate fields alone: hibernate or wake it through a ${COCOONHIBERNATION_KIND}, change it through its ${COCOONSET_KIND}`,
    node_fetch: retryOnceReachable("get", NODES.plural),
    pod_fetch: retryOnceReachable("get", PODS.plural),
  },
  decide: boundPodGate,
} as const satisfies EndpointModule<typeof POD_GATE_REASONS, never, PodGateDeps>;
