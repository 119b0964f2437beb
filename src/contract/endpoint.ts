import type { AdmissionRequest } from "./admission-request";
import type { ApiserverRead, KubeApi } from "./reads";
import type { Reasons, RefusalReason, Verdict } from "./verdict";

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

export interface RegistrationRule {
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly operations: readonly Operation[];
  readonly resources: readonly string[];
  readonly scope: "Namespaced" | "Cluster" | "*";
}

export interface NamespaceSelector {
  readonly comment: string;
  readonly excluded: readonly string[];
}

export interface MatchCondition {
  readonly name: string;
  /** In lines as a person reads it; the manifest's folded block joins them with spaces. */
  readonly expression: string;
  readonly comment?: string;
}

export interface MatchConditions {
  readonly comment: string;
  readonly conditions: readonly MatchCondition[];
}

export interface Registration {
  readonly kind: "mutating" | "validating";
  /** Unique across both configurations. */
  readonly name: string;
  /** Written above the webhook in the manifest. */
  readonly comment: string;
  readonly rules: readonly RegistrationRule[];
  readonly failurePolicy: "Fail" | "Ignore";
  readonly sideEffects: "None";
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
  readonly reason: Reason;
  readonly text: string;
  readonly remedy: string;
}

/** One admission request in, one verdict out; pure apart from the reads it is given. */
export type Decide<R extends Reasons = Reasons, RuleId extends string = string> = (
  request: AdmissionRequest,
) => Promise<Verdict<R, RuleId>>;

export interface DecisionDeps {
  /** The apiserver, limited to the module's `reads`. */
  readonly kube: KubeApi;
}

export interface EndpointModule<
  R extends Reasons = Reasons,
  RuleId extends string = string,
  Deps extends DecisionDeps = DecisionDeps,
> {
  // The metrics' `handler` label: the pod gate and the scale guard keep the Go original's
  // (`mutate`, `validate`), so its dashboards and alerts read on.
  readonly label: string;
  readonly path: `/${string}`;
  readonly registration: Registration;
  readonly reads: readonly ApiserverRead[];
  readonly reasons: R;
  /** Left out by an endpoint whose denials name no rule (RuleId `never`). */
  readonly rules?: readonly Rule<RuleId, R["deny"][number]>[];
  /** A warn-mode warning leads with its reason's remedy. */
  readonly remedies: Readonly<Record<RefusalReason<R>, string>>;
  decide(deps: Deps): Decide<R, RuleId>;
}
