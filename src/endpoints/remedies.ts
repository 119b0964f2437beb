import type { RefusalRemedies } from "./enforcement";
import {
  COCOONHIBERNATION_KIND,
  COCOONHIBERNATIONS,
  COCOONSET_KIND,
} from "../cocoon/crd-resources";
import { NODES, PODS } from "../kube/api-resources";
import { retryOnceReachable } from "./apiserver-read";
import { RULE_REMEDIES } from "./catalogue";

/**
 * What to do first about each refusal — by endpoint and reason, and for a
 * violation by its rule (the catalogue's) — a warn-mode warning leads with,
 * before the refusal's whole message. A few words each; the message says why.
 */
export const REFUSAL_REMEDIES: RefusalRemedies = {
  rules: RULE_REMEDIES,
  reasons: {
    podGate: {
      not_owned: `let the owning resource (such as a ${COCOONSET_KIND}) create the pod, or remove the cocoon marker`,
      creator: "let the operator of the pod's owner create it (POD_CREATORS names who may)",
      invalid_name: "name a valid, existing node (and, in a Binding, pod)",
      unmarked_binding: "bind the pod to another node, or let the scheduler place it",
      gate_field: `leave the VM pod's gate fields alone: hibernate or wake it through a ${COCOONHIBERNATION_KIND}, change it through its ${COCOONSET_KIND}`,
      node_fetch: retryOnceReachable("get", NODES.plural),
      pod_fetch: retryOnceReachable("get", PODS.plural),
    },
    scaleGuard: {
      scale_down: `keep the replicas; to suspend the VMs, create a ${COCOONHIBERNATION_KIND} (spec.desire: Hibernate) for each pod`,
      parent_fetch: retryOnceReachable("get", "deployments and statefulsets"),
    },
    cocoonSet: {
      invalid_spec: "fix the fields the message names (`cocoon-webhook validate` lists them all)",
      decode: `send the ${COCOONSET_KIND} as a JSON object`,
    },
    cocoonHibernation: {
      invalid_desire: "set spec.desire to Hibernate or Wake",
      name_mismatch: `name the ${COCOONHIBERNATION_KIND} after its pod: metadata.name = spec.podRef.name`,
      duplicate: `flip spec.desire of the pod's existing ${COCOONHIBERNATION_KIND} instead`,
      terminating: `retry once the pod's earlier ${COCOONHIBERNATION_KIND} is gone`,
      decode: `send the ${COCOONHIBERNATION_KIND} as a JSON object`,
      list: retryOnceReachable("list", COCOONHIBERNATIONS.plural),
    },
  },
};
