import type { AdmissionRequest } from "./admission-request";
import type { ApiserverRead, KubeApi } from "./reads";
import type { Reasons, RefusalReason, Verdict } from "./verdict";

/*
 * What an endpoint module declares: how the apiserver calls it, what it may
 * read, every reason its verdicts carry, what to do about each refusal, and
 * its decision. The endpoint table (src/endpoints/index.ts) lists the
 * modules; the review chain, the metrics, the manifests and the CLI follow.
 */

export const OPERATIONS = ["CREATE", "UPDATE", "DELETE", "CONNECT"] as const;
export type Operation = (typeof OPERATIONS)[number];

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

export interface MatchCondition {
  readonly name: string;
  /** The expression as the apiserver evaluates it. */
  readonly expression: string;
  /** The same, broken where a person reads it: the lines join with spaces into `expression`. */
  readonly lines: readonly string[];
  /** Why the condition holds as it does; written above it in the manifest. */
  readonly comment?: string;
}

/** The CEL pre-filters of one registration, with what they keep away from the webhook. */
export interface MatchConditions {
  readonly comment: string;
  readonly conditions: readonly MatchCondition[];
}

/** How an endpoint is registered: one webhook of the mutating or the validating configuration. */
export interface Registration {
  readonly kind: "mutating" | "validating";
  /** The webhook's name, unique across both configurations. */
  readonly name: string;
  /** Why it is registered as it is; written above the webhook in the manifest. */
  readonly comment: string;
  readonly rules: readonly RegistrationRule[];
  readonly failurePolicy: "Fail" | "Ignore";
  readonly sideEffects: "None";
  /** The apiserver's wait; every apiserver call of a handler is bounded well below it. */
  readonly timeoutSeconds: number;
  readonly reinvocationPolicy?: "IfNeeded" | "Never";
  readonly namespaceSelector?: NamespaceSelector;
  readonly matchConditions?: MatchConditions;
}

/** Fail closed (an unreachable webhook refuses), no side effects, the apiserver's 5 s at most. */
export const FAIL_CLOSED = {
  failurePolicy: "Fail",
  sideEffects: "None",
  timeoutSeconds: 5,
} as const;

/** A rule for v1 resources of `group` in namespaces. */
export const namespaced = (
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

/** One rule a denial can name: README.md lists each `text`; a warning leads with its `remedy`. */
export interface Rule<Id extends string = string, Reason extends string = string> {
  readonly id: Id;
  /** The verdict reason (metric label) of a denial for breaking it. */
  readonly reason: Reason;
  readonly text: string;
  /** What to do first, in a few words. */
  readonly remedy: string;
}

/** One admission request in, one verdict out; pure apart from the reads it is given. */
export type Decide<R extends Reasons = Reasons, RuleId extends string = string> = (
  request: AdmissionRequest,
) => Promise<Verdict<R, RuleId>>;

/** What every decision may be given; a module takes the part it needs. */
export interface DecisionDeps {
  /** The apiserver, limited to the module's `reads`. */
  readonly kube: KubeApi;
}

export interface EndpointModule<
  R extends Reasons = Reasons,
  RuleId extends string = string,
  Deps extends DecisionDeps = DecisionDeps,
> {
  /**
   * The `handler` label of the endpoint's metrics and log lines. The pod gate's and the scale
   * guard's are the Go original's (`mutate`, `validate`), so its dashboards and alerts read on.
   */
  readonly label: string;
  readonly path: `/${string}`;
  readonly registration: Registration;
  readonly reads: readonly ApiserverRead[];
  readonly reasons: R;
  /** The rules its denials name (none for an endpoint whose denials name no rule). */
  readonly rules: readonly Rule<RuleId, R["deny"][number]>[];
  /** What to do first about each refusal reason: a warn-mode warning leads with it. */
  readonly remedies: Readonly<Record<RefusalReason<R>, string>>;
  /** The decision, given what it may read and the settings it needs. */
  decide(deps: Deps): Decide<R, RuleId>;
}
