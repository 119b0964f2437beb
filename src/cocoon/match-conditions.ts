import { DEFAULT_POD_CREATORS } from "../endpoints/pod-gate/creators";
import {
  BOUND_NODES_ENTRY,
  DEFAULT_RUNTIME_IDENTITIES,
} from "../endpoints/pod-gate/platform-identities";
import { NODE_USERNAME_PREFIX, SCHEDULER_USERNAME } from "./identities";
import { COCOON_TOLERATION_KEY, VM_ANNOTATION_PREFIX, VM_NAME_ANNOTATION } from "./markers";

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

/** The old object is a VM-backed pod: podEntersCocoonGate(oldObject). */
const WAS_GATED: Cel = cel(
  "oldObject != null",
  around("&& (", tolerates("oldObject")),
  around("|| ", annotated("oldObject"), ")"),
);

/** `path` of `object`, or `empty` where it or a parent on the way is absent or null. */
function fieldOr(object: string, path: readonly string[], empty: string): string {
  const guards = path.map((_, index) => {
    const field = [object, ...path.slice(0, index + 1)].join(".");
    return `has(${field}) && ${field} != null`;
  });
  return `(${guards.join(" && ")} ? ${[object, ...path].join(".")} : ${empty})`;
}

const annotationsOf = (object: string) => fieldOr(object, ["metadata", "annotations"], "{}");

const cocoonTolerationsOf = (object: string) =>
  `${fieldOr(object, ["spec", "tolerations"], "[]")}` +
  `.filter(t, t != null && has(t.key) && t.key == '${COCOON_TOLERATION_KEY}')`;

/** The gate fields the update changes (changedGateFields in src/endpoints/pod-gate/gate-fields.ts). */
const GATE_FIELD_CHANGED: Cel = [
  `${annotationsOf("object")}.exists(k, k.startsWith('${VM_ANNOTATION_PREFIX}')`,
  `&& (!(k in ${annotationsOf("oldObject")})`,
  `|| ${annotationsOf("oldObject")}[k] != ${annotationsOf("object")}[k]))`,
  `|| ${annotationsOf("oldObject")}.exists(k, k.startsWith('${VM_ANNOTATION_PREFIX}')`,
  `&& !(k in ${annotationsOf("object")}))`,
  `|| ${cocoonTolerationsOf("object")}`,
  `!= ${cocoonTolerationsOf("oldObject")}`,
  `|| ${fieldOr("object", ["metadata", "ownerReferences"], "[]")}`,
  `!= ${fieldOr("oldObject", ["metadata", "ownerReferences"], "[]")}`,
  `|| ${fieldOr("object", ["spec", "nodeName"], "''")}`,
  `!= ${fieldOr("oldObject", ["spec", "nodeName"], "''")}`,
  `|| ${fieldOr("object", ["spec", "nodeSelector"], "{}")}`,
  `!= ${fieldOr("oldObject", ["spec", "nodeSelector"], "{}")}`,
];

/**
 * An identity list as a CEL string literal, split where the webhook splits
 * it. It opens the expression, so that kustomize (a replacement with the
 * delimiter "'", index 1) and the chart write the configured value into it.
 */
const identityList = (text: string, entryIdentity: string): Cel => [
  `!('${text}'.split(',').exists(e, ${entryIdentity} != ''`,
];

/** POD_CREATORS' identities: each entry's text before its first "=". */
export const podCreatorsCondition = (podCreators: string): Cel =>
  cel(
    around("", identityList(podCreators, "e.split('=')[0].trim()")),
    "&& has(request.userInfo.username)",
    "&& e.split('=')[0].trim() == request.userInfo.username))",
    around("|| !(", WAS_GATED, ")"),
  );

/** RUNTIME_IDENTITIES' usernames, and `system:node:*` for a node on the pods bound to it. */
export const runtimeIdentitiesCondition = (runtimeIdentities: string): Cel =>
  cel(
    identityList(runtimeIdentities, "e.trim()"),
    "&& has(request.userInfo.username)",
    "&& (e.trim() == request.userInfo.username",
    `|| e.trim() == '${BOUND_NODES_ENTRY}'`,
    "&& oldObject != null && has(oldObject.spec) && oldObject.spec != null",
    "&& has(oldObject.spec.nodeName) && oldObject.spec.nodeName != null",
    "&& type(oldObject.spec.nodeName) == string && oldObject.spec.nodeName != ''",
    `&& request.userInfo.username == '${NODE_USERNAME_PREFIX}' + oldObject.spec.nodeName)))`,
    around("|| !(", WAS_GATED, ")"),
  );

/** The pod gate's conditions for the given POD_CREATORS and RUNTIME_IDENTITIES values. */
export function podGateConditions(podCreators: string, runtimeIdentities: string): MatchConditions {
  return {
    comment:
      "The apiserver calls the webhook only for pods that enter the cocoon gate, pods created " +
      "with spec.nodeName set, Bindings made by anyone but the scheduler (which honours taints), " +
      "and changes to the gate fields of a VM-backed pod by anyone but the platform's " +
      "identities, so a webhook outage cannot block ordinary pods, scheduling, or the " +
      "platform's runtime patches and status writes. The expressions mirror the pod gate " +
      "(src/endpoints/pod-gate/decide.ts). The identity lists are POD_CREATORS and RUNTIME_IDENTITIES " +
      "as the Deployment's ConfigMap holds them (kustomize writes them in). For older " +
      "clusters, see manifests/components/no-match-conditions.",
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
          around("|| (", WAS_GATED, ")"),
        ),
        "A pod that carries a marker, or did: removing one is a change of its gate fields.",
      ),
      condition(
        "vm-pod-gate-field-changed",
        cel(around("!(", WAS_GATED, ")"), around("|| ", GATE_FIELD_CHANGED)),
        "On a VM-backed pod only a change of a gate field is judged: a vm.cocoonstack.io/ " +
          "annotation, the cocoon toleration, ownerReferences, spec.nodeName or spec.nodeSelector.",
      ),
      condition(
        "vm-pod-not-by-pod-creator",
        podCreatorsCondition(podCreators),
        "POD_CREATORS' creators change their VM-backed pods untouched.",
      ),
      condition(
        "vm-pod-not-by-runtime-identity",
        runtimeIdentitiesCondition(runtimeIdentities),
        "RUNTIME_IDENTITIES (vk-cocoon, vk-sandbox, a node on its own pods, the garbage " +
          "collector) change VM-backed pods untouched.",
      ),
    ],
  };
}

export const POD_GATE_CONDITIONS: MatchConditions = podGateConditions(
  DEFAULT_POD_CREATORS,
  DEFAULT_RUNTIME_IDENTITIES,
);

/** The CocoonSet's spec, when the object has one. */
const specOf = (object: string): Cel => [`has(${object}.spec) && ${object}.spec != null`];

export const COCOONSET_CONDITIONS: MatchConditions = {
  comment:
    "A CocoonSet UPDATE whose spec is unchanged (the operator's finalizer and annotation " +
    "writes) never reaches the webhook, which would pass it anyway, so those writes survive " +
    "a webhook outage.",
  conditions: [
    condition(
      "spec-changed",
      cel(
        "request.operation != 'UPDATE' || oldObject == null || object == null",
        around("|| !(", specOf("object")),
        around("&& ", specOf("oldObject")),
        "&& object.spec == oldObject.spec)",
      ),
      "A spec equal to the old one is semantically equal too (specsSemanticallyEqual in " +
        "src/cocoon/spec-equality.ts), so the webhook would skip it as no_change.",
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
        "(workloadIsCocoon in src/endpoints/scale-guard.ts, applied to oldObject).",
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
