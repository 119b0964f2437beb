import { COCOON_GROUP, COCOONHIBERNATIONS } from "../cocoon/crd-resources";
import {
  COCOONSET_CONDITIONS,
  type MatchConditions,
  POD_GATE_CONDITIONS,
  SCALE_GUARD_CONDITIONS,
} from "../cocoon/match-conditions";
import { WORKLOADS } from "../cocoon/workload";
import { type ApiResource, NODES, PODS } from "../kube/api-resources";

/**
 * The admission endpoints, one entry each: the path the webhook
 * configurations call, the `handler` label of its metrics and logs, how the
 * endpoint is registered with the apiserver, what it reads from the
 * apiserver, and every reason its verdicts can carry. The listener's routes,
 * the operation gate, the metric label sets, the verdict types, the webhook
 * configurations and RBAC role in manifests/base (`make generate`) and the
 * documentation checks all follow from this table; a new endpoint is one
 * entry here plus its policy module in `policies/`.
 */

/** The operations an AdmissionReview can carry. */
export const OPERATIONS = ["CREATE", "UPDATE", "DELETE", "CONNECT"] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Reasons every endpoint can answer with: the operation gate's, and the review's for a handler that threw. */
export const COMMON_REASONS = {
  skipped: ["operation"],
  deny: [],
  error: ["internal"],
} as const;

/** One rule of a webhook registration: these operations on these resources (subresources as `pods/binding`). */
export interface RegistrationRule {
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly operations: readonly Operation[];
  readonly resources: readonly string[];
  readonly scope: "Namespaced" | "Cluster" | "*";
}

/** A namespace selector, and why it selects what it does. */
export interface NamespaceSelector {
  readonly comment: string;
  readonly excluded: readonly string[];
}

/** How an endpoint is registered: one webhook of the mutating or the validating configuration. */
export interface Registration {
  readonly kind: "mutating" | "validating";
  /** The webhook's name, unique across both configurations. */
  readonly name: string;
  /** Why it is registered as it is; written above the webhook in the manifest. */
  readonly comment: string;
  readonly rules: readonly RegistrationRule[];
  /** Fail closed: an unreachable webhook refuses, it never waves a request through. */
  readonly failurePolicy: "Fail" | "Ignore";
  readonly sideEffects: "None";
  /** The apiserver's wait; every apiserver call of a handler is bounded well below it. */
  readonly timeoutSeconds: number;
  readonly reinvocationPolicy?: "IfNeeded" | "Never";
  readonly namespaceSelector?: NamespaceSelector;
  readonly matchConditions?: MatchConditions;
}

/** One kind of apiserver call a handler makes: it becomes an RBAC rule of the webhook's role. */
export interface ApiserverRead {
  readonly verb: "get" | "list";
  readonly resource: ApiResource;
}

interface EndpointSpec {
  /**
   * The `handler` label of the endpoint's metrics and log lines. The pod gate's and the scale
   * guard's are the Go original's (`mutate`, `validate`), kept so that its dashboards and alerts
   * read this webhook's metrics unchanged.
   */
  readonly label: string;
  readonly path: `/${string}`;
  readonly registration: Registration;
  readonly reads: readonly ApiserverRead[];
  readonly reasons: {
    readonly skipped: readonly string[];
    readonly deny: readonly string[];
    readonly error: readonly string[];
  };
}

/** What every registration shares: fail closed, no side effects, the apiserver's 5 s at most. */
const FAIL_CLOSED = { failurePolicy: "Fail", sideEffects: "None", timeoutSeconds: 5 } as const;

/** The namespaces the pod and workload registrations leave out. */
const RECOVERY_NAMESPACES: NamespaceSelector = {
  comment:
    "An outage under failurePolicy Fail must not block the pods these namespaces need to " +
    "recover the cluster (and the webhook itself). sandbox-system is gated: sandbox-operator's " +
    "pods pass through its own POD_CREATORS pairing with the Sandbox kind.",
  excluded: ["kube-system", "kube-node-lease", "kube-public", "cocoon-system", "cert-manager"],
};

/** A rule for v1 resources of `group` in namespaces. */
const namespaced = (
  group: string,
  operations: readonly Operation[],
  resources: readonly string[],
): RegistrationRule => ({
  apiGroups: [group],
  apiVersions: ["v1"],
  operations,
  resources,
  scope: "Namespaced",
});

export const ENDPOINTS = {
  podGate: {
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
    reasons: {
      skipped: ["kind", "decode", "not_cocoon", "no_change", "scheduler"],
      deny: ["not_owned", "creator", "gate_field", "invalid_name", "unmarked_binding"],
      error: ["node_fetch", "pod_fetch"],
    },
  },
  scaleGuard: {
    label: "validate",
    path: "/validate",
    registration: {
      kind: "validating",
      name: "workloads.cocoon-webhook.cocoonstack.io",
      comment: "Scale-down guard for cocoon-tolerated Deployments and StatefulSets.",
      rules: [
        namespaced(
          "apps",
          ["UPDATE"],
          [
            ...Object.keys(WORKLOADS),
            ...Object.keys(WORKLOADS).map((workload) => `${workload}/scale`),
          ],
        ),
      ],
      ...FAIL_CLOSED,
      namespaceSelector: RECOVERY_NAMESPACES,
      matchConditions: SCALE_GUARD_CONDITIONS,
    },
    reads: Object.values(WORKLOADS).map((resource) => ({ verb: "get", resource }) as const),
    reasons: {
      skipped: ["kind", "decode", "no_parent", "not_cocoon"],
      deny: ["scale_down"],
      error: ["parent_fetch"],
    },
  },
  cocoonSet: {
    label: "validate_cocoonset",
    path: "/validate-cocoonset",
    registration: {
      kind: "validating",
      name: "cocoonsets.cocoon-webhook.cocoonstack.io",
      comment:
        "No namespaceSelector on the custom resources: they exist only for cocoon workloads, " +
        "wherever those live.",
      rules: [namespaced(COCOON_GROUP, ["CREATE", "UPDATE"], ["cocoonsets"])],
      ...FAIL_CLOSED,
      matchConditions: COCOONSET_CONDITIONS,
    },
    reads: [],
    reasons: {
      skipped: ["no_change"],
      deny: ["invalid_spec"],
      error: ["decode"],
    },
  },
  cocoonHibernation: {
    label: "validate_cocoonhibernation",
    path: "/validate-cocoonhibernation",
    registration: {
      kind: "validating",
      name: "cocoonhibernations.cocoon-webhook.cocoonstack.io",
      comment: "One CocoonHibernation per pod, checked when it is created.",
      rules: [namespaced(COCOON_GROUP, ["CREATE"], [COCOONHIBERNATIONS.plural])],
      ...FAIL_CLOSED,
    },
    reads: [{ verb: "list", resource: COCOONHIBERNATIONS }],
    reasons: {
      skipped: [],
      deny: ["invalid_desire", "name_mismatch", "duplicate", "terminating"],
      error: ["decode", "list"],
    },
  },
} as const satisfies Record<string, EndpointSpec>;

/** An endpoint's key in the table, in code only; metrics and logs name it by its `label`. */
export type EndpointKey = keyof typeof ENDPOINTS;

export const ENDPOINT_KEYS = Object.keys(ENDPOINTS) as EndpointKey[];

/**
 * What a decision says about the request; `result` label of the admission
 * metric. `warn`: an endpoint in warn mode allowed what it would have
 * refused (with the reason of the denial or error it would have been).
 */
export const VERDICT_RESULTS = ["allow", "skipped", "deny", "error", "warn"] as const;
export type VerdictResult = (typeof VERDICT_RESULTS)[number];

type ReasonKind = keyof EndpointSpec["reasons"];

/** The reasons endpoint `E` can give with a verdict of kind `K`. */
export type ReasonOf<E extends EndpointKey, K extends ReasonKind> =
  | (typeof ENDPOINTS)[E]["reasons"][K][number]
  | (typeof COMMON_REASONS)[K][number];

/**
 * Every (result, reason) pair endpoint `label` can record: the plain allow
 * (reason ""), its skips, denials and errors, and as `warn` each reason of a
 * denial or error (what warn mode records instead).
 */
export function resultReasons(
  label: EndpointKey,
): readonly { readonly result: VerdictResult; readonly reason: string }[] {
  const { reasons } = ENDPOINTS[label];
  const reasonsOf = (kind: ReasonKind) => [...COMMON_REASONS[kind], ...reasons[kind]];
  const pairs: { result: VerdictResult; reason: string }[] = [{ result: "allow", reason: "" }];
  for (const result of ["skipped", "deny", "error"] as const) {
    for (const reason of reasonsOf(result)) pairs.push({ result, reason });
  }
  for (const reason of new Set([...reasonsOf("deny"), ...reasonsOf("error")])) {
    pairs.push({ result: "warn", reason });
  }
  return pairs;
}

/** The operations endpoint `label` examines: those it is registered for. */
export function operationsOf(label: EndpointKey): readonly Operation[] {
  const rules: readonly RegistrationRule[] = ENDPOINTS[label].registration.rules;
  return [...new Set(rules.flatMap((rule) => rule.operations))];
}

/** The longest time the apiserver waits for any endpoint. */
export const WEBHOOK_TIMEOUT_SECONDS = Math.max(
  ...ENDPOINT_KEYS.map((label) => ENDPOINTS[label].registration.timeoutSeconds),
);

const LABEL_BY_PATH: ReadonlyMap<string, EndpointKey> = new Map(
  ENDPOINT_KEYS.map((label) => [ENDPOINTS[label].path, label]),
);

/** The endpoint served at `path`, if any. */
export function endpointAt(path: string): EndpointKey | undefined {
  return LABEL_BY_PATH.get(path);
}
