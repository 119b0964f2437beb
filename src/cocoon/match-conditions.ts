import { SCHEDULER_USERNAME } from "./identities";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "./markers";

/*
 * The CEL pre-filters of the webhook registrations (Kubernetes >= 1.30, beta
 * since 1.28): the apiserver calls an endpoint only when every condition of
 * its registration is true. Each mirrors a predicate the handler applies
 * itself, so a condition can only save a call, never change a verdict;
 * test/manifests/match-conditions.test.ts property-tests each against its
 * predicate. Every field read is guarded with `has(x.f) && x.f != null`, so an
 * absent or null field reads as absent under both CEL readings of null
 * (cel-go in the apiserver counts a null field as present), never as a CEL
 * error, which would count as a webhook failure.
 */

export interface MatchCondition {
  readonly name: string;
  /** The expression as the apiserver evaluates it. */
  readonly expression: string;
  /** The same, broken where a person reads it: the lines join with spaces into `expression`. */
  readonly lines: readonly string[];
  /** Why the condition holds as it does; written above it in the manifest. */
  readonly comment?: string;
}

/** The conditions of one registration, with what they keep away from the webhook. */
export interface MatchConditions {
  readonly comment: string;
  readonly conditions: readonly MatchCondition[];
}

/** Lines of a CEL expression; a nested piece keeps its own line breaks. */
type Cel = readonly string[];

const cel = (...parts: (string | Cel)[]): Cel => parts.flat();

/** `piece` with `before` on its first line and `after` on its last. */
function around(before: string, piece: Cel, after = ""): Cel {
  return piece.map(
    (line, index) =>
      `${index === 0 ? before : ""}${line}${index === piece.length - 1 ? after : ""}`,
  );
}

function condition(name: string, lines: Cel, comment?: string): MatchCondition {
  return { name, expression: lines.join(" "), lines, ...(comment ? { comment } : {}) };
}

/** `object.spec.tolerations` (or oldObject's) holds the cocoon toleration: podEntersCocoonGate's first half. */
const tolerates = (object: string): Cel => [
  `(has(${object}.spec) && ${object}.spec != null`,
  `&& has(${object}.spec.tolerations) && ${object}.spec.tolerations != null`,
  `&& ${object}.spec.tolerations.exists(t, t != null`,
  `&& has(t.key) && t.key == '${COCOON_TOLERATION_KEY}'))`,
];

/** The pod carries the VM name annotation: podEntersCocoonGate's second half. */
const annotated = (object: string): Cel => [
  `(has(${object}.metadata) && ${object}.metadata != null`,
  `&& has(${object}.metadata.annotations) && ${object}.metadata.annotations != null`,
  `&& '${VM_NAME_ANNOTATION}' in ${object}.metadata.annotations)`,
];

const IS_BINDING: Cel = [
  "(has(request.subResource) && request.subResource == 'binding')",
  "|| request.resource.resource == 'bindings'",
];

export const POD_GATE_CONDITIONS: MatchConditions = {
  comment:
    "The apiserver calls the webhook only for pods that enter the cocoon gate, pods created " +
    "with spec.nodeName set, and Bindings made by anyone but the scheduler (which honours " +
    "taints), so a webhook outage cannot block ordinary pods or scheduling. The expressions " +
    "mirror podEntersCocoonGate and requestedNodeName (src/policies/pod-gate.ts) and the pod gate's " +
    "binding check. For older clusters, see manifests/components/no-match-conditions.",
  conditions: [
    condition(
      "binding-not-by-scheduler",
      cel(
        around("!(", IS_BINDING, ")"),
        "|| !has(request.userInfo.username)",
        `|| request.userInfo.username != '${SCHEDULER_USERNAME}'`,
      ),
    ),
    condition(
      "binding-or-gated-or-names-node",
      cel(
        IS_BINDING,
        around("|| ", tolerates("object")),
        around("|| ", annotated("object")),
        "|| (request.operation == 'CREATE'",
        "&& has(object.spec) && object.spec != null",
        "&& has(object.spec.nodeName) && object.spec.nodeName != null",
        "&& object.spec.nodeName != '')",
      ),
    ),
    condition(
      "old-object-not-gated",
      cel(
        "oldObject == null",
        around("|| !(", tolerates("oldObject")),
        around("|| ", annotated("oldObject"), ")"),
      ),
      "CREATE has no oldObject. On UPDATE only a pod newly entering the gate is checked; " +
        "runtime patches to already-gated pods pass untouched.",
    ),
  ],
};

/** A Scale omits replicas when they are 0 (`kubectl scale --replicas=0` sends `spec: {}`); apps/v1 defaults them to 1. */
const replicas = (object: string, omitted: number): Cel => [
  `(has(${object}.spec) && ${object}.spec != null`,
  `&& has(${object}.spec.replicas) && ${object}.spec.replicas != null`,
  `? ${object}.spec.replicas : ${omitted})`,
];

const IS_SCALE = "(has(request.subResource) && request.subResource == 'scale')";

export const SCALE_GUARD_CONDITIONS: MatchConditions = {
  comment:
    "Only requests that lower the replica count reach the webhook, so scale-ups and unchanged " +
    "counts (HPA, kubectl scale up, rollouts, label edits) keep working while it is unreachable.",
  conditions: [
    condition(
      "scale-or-cocoon-workload",
      cel(
        IS_SCALE,
        "|| (oldObject != null",
        "&& has(oldObject.spec) && oldObject.spec != null",
        "&& has(oldObject.spec.template) && oldObject.spec.template != null",
        "&& has(oldObject.spec.template.spec) && oldObject.spec.template.spec != null",
        "&& has(oldObject.spec.template.spec.tolerations)",
        "&& oldObject.spec.template.spec.tolerations != null",
        "&& oldObject.spec.template.spec.tolerations.exists(t, t != null",
        `&& has(t.key) && t.key == '${COCOON_TOLERATION_KEY}'))`,
      ),
      "A Scale carries no pod template, so the webhook judges the parent itself; direct " +
        "updates only of workloads whose old pod template carries the cocoon toleration " +
        "(workloadIsCocoon in src/policies/scale-guard.ts, applied to oldObject).",
    ),
    condition(
      "replicas-go-down",
      cel(
        "object != null && oldObject != null",
        `&& (${IS_SCALE.slice(1, -1)}`,
        around("? ", replicas("object", 0)),
        around("< ", replicas("oldObject", 0)),
        around(": ", replicas("object", 1)),
        around("< ", replicas("oldObject", 1), ")"),
      ),
      "New spec.replicas lower than old, with the webhook's defaults: an omitted count is 0 " +
        "in a Scale (kubectl scale --replicas=0 sends spec: {}) and 1 in a Deployment or " +
        "StatefulSet.",
    ),
  ],
};
