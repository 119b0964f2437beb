import type { AdmissionRequest } from "../contract/admission-request";
import type { EndpointModule, Operation, RegistrationRule, Rule } from "../contract/endpoint";
import { grantedReadsOnly } from "../contract/reads";
import { COMMON_REASONS, type Reasons, type Verdict } from "../contract/verdict";
import { cocoonSetEndpoint } from "./cocoonset";
import { hibernationEndpoint } from "./hibernation";
import { podGateEndpoint } from "./pod-gate";
import type { PodGateDeps } from "./pod-gate/decide";
import { scaleGuardEndpoint } from "./scale-guard";

/**
 * The admission endpoints, one module each: the routes, metric labels, manifests (`make
 * generate`), chart and documentation checks all follow from this table.
 */
export const ENDPOINTS = {
  podGate: podGateEndpoint,
  scaleGuard: scaleGuardEndpoint,
  cocoonSet: cocoonSetEndpoint,
  cocoonHibernation: hibernationEndpoint,
} as const;

/** An endpoint's key in the table, in code only; metrics and logs name it by its `label`. */
export type EndpointKey = keyof typeof ENDPOINTS;

export const ENDPOINT_KEYS = Object.keys(ENDPOINTS) as EndpointKey[];

type ReasonsOf<E extends EndpointKey> = (typeof ENDPOINTS)[E]["reasons"];

/** Distributes over a union of modules; a module without `rules` names none. */
type RuleIdsOf<Module> = Module extends { readonly rules: readonly Rule<infer Id>[] } ? Id : never;

export type RuleOf<E extends EndpointKey> = RuleIdsOf<(typeof ENDPOINTS)[E]>;

export type VerdictOf<E extends EndpointKey> = Verdict<ReasonsOf<E>, RuleOf<E>>;

/** Every rule the endpoints enforce, as README.md lists them. */
export const RULE_CATALOGUE: readonly Rule<RuleId>[] = ENDPOINT_KEYS.flatMap(
  (endpoint): readonly Rule<RuleId>[] => {
    const module = ENDPOINTS[endpoint];
    return "rules" in module ? module.rules : [];
  },
);

export type RuleId = RuleOf<EndpointKey>;

/** What to do first about each rule, by id: a warn-mode warning of a violation leads with it. */
export const RULE_REMEDIES: Readonly<Record<string, string>> = Object.fromEntries(
  RULE_CATALOGUE.map((rule) => [rule.id, rule.remedy]),
);

/** The admission metric's `result` label; `warn`: warn mode allowed what it would have refused. */
export const VERDICT_RESULTS = ["allow", "skipped", "deny", "error", "warn"] as const;
export type VerdictResult = (typeof VERDICT_RESULTS)[number];

/** Every (result, reason) pair an endpoint can record, the plain allow's reason being "". */
export function resultReasons(
  endpoint: EndpointKey,
): readonly { readonly result: VerdictResult; readonly reason: string }[] {
  const reasons: Reasons = ENDPOINTS[endpoint].reasons;
  const reasonsOf = (kind: keyof Reasons) => [...COMMON_REASONS[kind], ...reasons[kind]];
  const pairs: { result: VerdictResult; reason: string }[] = [{ result: "allow", reason: "" }];
  for (const result of ["skipped", "deny", "error"] as const) {
    for (const reason of reasonsOf(result)) pairs.push({ result, reason });
  }
  for (const reason of new Set([...reasonsOf("deny"), ...reasonsOf("error")])) {
    pairs.push({ result: "warn", reason });
  }
  return pairs;
}

/** The operations an endpoint is registered for. */
export function operationsOf(endpoint: EndpointKey): readonly Operation[] {
  const rules: readonly RegistrationRule[] = ENDPOINTS[endpoint].registration.rules;
  return [...new Set(rules.flatMap((rule) => rule.operations))];
}

export const WEBHOOK_TIMEOUT_SECONDS = Math.max(
  ...ENDPOINT_KEYS.map((endpoint) => ENDPOINTS[endpoint].registration.timeoutSeconds),
);

/** What the decisions are given: the pod gate's settings and the apiserver. */
export type EndpointDeps = PodGateDeps;

export type Decisions = {
  readonly [E in EndpointKey]: (request: AdmissionRequest) => Promise<VerdictOf<E>>;
};

/** Each endpoint's decision, bound to what it needs; the apiserver only as far as its module reads it. */
export function bindDecisions(deps: EndpointDeps): Decisions {
  const bound = ENDPOINT_KEYS.map((endpoint) => {
    const module: EndpointModule<Reasons, string, EndpointDeps> = ENDPOINTS[endpoint];
    const kube = grantedReadsOnly(module.label, module.reads, deps.kube);
    return [endpoint, module.decide({ ...deps, kube })];
  });
  // Each module's decision gives its own reasons and rules, which the table's types name.
  return Object.fromEntries(bound) as Decisions;
}
