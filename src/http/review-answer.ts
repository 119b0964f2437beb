import { cutShort, withoutControlCharacters } from "../bounded-text";
import type { AdmissionApiVersion, AdmissionRequest } from "../contract/admission-request";
import type { Decision, Reasons, Verdict, Warned } from "../contract/verdict";
import { type CollectedViolations, NO_VIOLATIONS } from "../contract/violations";
import { ENDPOINTS, type EndpointKey, RULE_REMEDIES } from "../endpoints";
import { type EnforcementAction, enforcementName } from "../endpoints/enforcement";
import type { Logger } from "../observability/logger";

/*
 * What a review gives back once its verdict is made: the decision its
 * endpoint's enforcement makes of it, the AdmissionReview answer, and the
 * decision's one log line.
 */

/** What to do first about a refusal: by its reason, and for a violation by its rule. */
export interface EndpointRemedies {
  readonly reasons: Readonly<Record<string, string>>;
  readonly rules: Readonly<Record<string, string>>;
}

export const remediesOf = (endpoint: EndpointKey): EndpointRemedies => ({
  reasons: ENDPOINTS[endpoint].remedies,
  rules: RULE_REMEDIES,
});

/** The remedy of a handler that threw (reason `internal`, the review route's own). */
const INTERNAL_REMEDY = "retry; if it persists, report it with the webhook's log line";

/**
 * The verdict as the endpoint's action makes it: under `warn` a denial or a
 * check that could not be made becomes an allowed warning that keeps what it
 * would have said, with the reason's remedy.
 */
export function enforce<R extends Reasons, Rule extends string>(
  verdict: Verdict<R, Rule>,
  action: EnforcementAction,
  remedies: EndpointRemedies,
): Decision<R, Rule> {
  if (action === "deny" || verdict.allowed) return verdict;
  return {
    allowed: true,
    result: "warn",
    reason: verdict.reason,
    message: verdict.message,
    remedy: remedies.reasons[verdict.reason] ?? INTERNAL_REMEDY,
    ruleRemedies: remedies.rules,
    violations: verdict.result === "deny" ? verdict.violations : NO_VIOLATIONS,
    refused: verdict.result,
  };
}

/** Every denial message and warning starts with this, so operators can grep for it. */
export const MESSAGE_PREFIX = "cocoon-webhook: ";

/** The apiserver passes a warning of at most this many characters through whole. */
export const WARNING_MAX_CHARACTERS = 256;
/** Warnings listed in one answer; the rest are counted in one more. */
export const LISTED_WARNINGS_LIMIT = 10;
/** The longest audit annotation value: the rule ids of a CocoonSet denial fit with room to spare. */
export const AUDIT_VALUE_MAX_CHARACTERS = 512;

export interface AdmissionResponseReview {
  apiVersion: AdmissionApiVersion;
  kind: "AdmissionReview";
  response: {
    uid: string;
    allowed: boolean;
    status?: { code: 403; reason: "Forbidden"; message: string };
    warnings?: string[];
    auditAnnotations?: Record<string, string>;
  };
}

/**
 * The AdmissionReview answer, in the apiVersion the apiserver sent, never a
 * patch. A refusal or warning also says in `auditAnnotations` what was
 * decided, so the cluster's audit log tells why. Control characters (a
 * request's values can hold them) are written as escapes.
 */
export function encodeResponse(
  apiVersion: AdmissionApiVersion,
  uid: string,
  endpoint: EndpointKey,
  decision: Decision,
): AdmissionResponseReview {
  const response: AdmissionResponseReview["response"] = { uid, allowed: decision.allowed };
  if (!decision.allowed) {
    response.status = {
      code: 403,
      reason: "Forbidden",
      message: withoutControlCharacters(`${MESSAGE_PREFIX}${decision.message}`),
    };
  } else if (decision.result === "warn") {
    response.warnings = warningsOf(decision);
  }
  if (decision.result === "deny" || decision.result === "error" || decision.result === "warn") {
    response.auditAnnotations = auditAnnotationsOf(endpoint, decision);
  }
  return { apiVersion, kind: "AdmissionReview", response };
}

/**
 * What a refusal would have said: one warning per violation (or its message),
 * at most LISTED_WARNINGS_LIMIT and one that counts the rest. Each leads with
 * its rule id (or reason) and remedy, since kubectl shows only a warning's
 * first 256 characters.
 */
export function warningsOf({
  reason,
  message,
  remedy,
  ruleRemedies,
  violations,
}: Warned): string[] {
  const texts =
    violations.total === 0
      ? [`${reason}: ${remedy}. ${message}`]
      : violations.listed.map(
          (violation) =>
            `${violation.rule}: ${ruleRemedies[violation.rule] ?? remedy}. ${violation.path}: ${violation.message}`,
        );
  const warnings = texts
    .slice(0, LISTED_WARNINGS_LIMIT)
    .map((text) =>
      cut(withoutControlCharacters(`${MESSAGE_PREFIX}${text}`), WARNING_MAX_CHARACTERS),
    );
  const more = Math.max(violations.total, texts.length) - warnings.length;
  if (more > 0) {
    warnings.push(
      `${MESSAGE_PREFIX}… and ${more} more; \`cocoon-webhook validate\` or the webhook's log lists them`,
    );
  }
  return warnings;
}

/** Keys the apiserver prefixes with the webhook's name (`pods.cocoon-webhook.cocoonstack.io/reason`). */
function auditAnnotationsOf(
  endpoint: EndpointKey,
  decision: Exclude<Decision, { readonly allowed: true; readonly result: "allow" | "skipped" }>,
): Record<string, string> {
  const annotations: Record<string, string> = {
    endpoint: enforcementName(endpoint),
    decision: decision.result,
    reason: decision.reason,
  };
  if (decision.result !== "error") {
    const { listed, unlistedByRule } = decision.violations;
    const rules = new Set([...listed.map((violation) => violation.rule), ...unlistedByRule.keys()]);
    if (rules.size > 0)
      annotations.rules = cut(
        withoutControlCharacters([...rules].join(",")),
        AUDIT_VALUE_MAX_CHARACTERS,
      );
  }
  return annotations;
}

/** `text` within `max` characters (code points), its end replaced by `…` when cut. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const characters = [...text];
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join("")}…`;
}

/**
 * The one log line of a decision: a denial or warning at warn with the broken
 * rules, an error at error with what was thrown, an allow at debug.
 */
export function logDecision(
  log: Logger,
  endpoint: EndpointKey,
  request: AdmissionRequest,
  decision: Decision,
  thrown: unknown,
): void {
  // Allows log at debug only; skip building the line on the hot path when it would be dropped.
  if (decision.result !== "warn" && decision.allowed && !log.isLevelEnabled("debug")) return;
  const fields = {
    handler: ENDPOINTS[endpoint].label,
    uid: cutShort(request.uid),
    operation: request.operation && cutShort(request.operation),
    kind: request.kind && cutShort(request.kind.kind),
    resource: request.namespace
      ? `${cutShort(request.namespace)}/${cutShort(request.name ?? "")}`
      : cutShort(request.name ?? ""),
    user: request.userInfo?.username && cutShort(request.userInfo.username),
    result: decision.result,
    reason: decision.reason,
  };
  if (decision.result === "error")
    log.error({ ...fields, message: decision.message, err: thrown }, "admission error");
  else if (decision.result === "deny")
    log.warn(
      { ...fields, message: decision.message, ...violationFields(decision.violations) },
      "admission denied",
    );
  else if (decision.result === "warn")
    log.warn(
      {
        ...fields,
        refused: decision.refused,
        message: decision.message,
        ...violationFields(decision.violations),
        ...(thrown === undefined ? {} : { err: thrown }),
      },
      `admission warned: allowed in warn mode, would have been ${decision.refused === "deny" ? "denied" : "refused (fail-closed)"}`,
    );
  else log.debug(fields, "admission allowed");
}

/** The broken rules as log fields: each listed rule id and path, and per rule how many went unlisted. */
function violationFields({ listed, unlistedByRule, total }: CollectedViolations) {
  if (total === 0) return {};
  return {
    violations: listed.map(({ rule, path }) => ({ rule, path })),
    ...(total > listed.length ? { unlisted: Object.fromEntries(unlistedByRule) } : {}),
  };
}
