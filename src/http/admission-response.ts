import { withoutControlCharacters } from "../bounded-text";
import type { AdmissionApiVersion } from "../contract/admission-request";
import type { Decision, Warned } from "../contract/verdict";
import type { EndpointKey } from "../endpoints";
import { enforcementName } from "../endpoints/enforcement";

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
 * The AdmissionReview answer, in the apiVersion the apiserver sent. Never
 * carries a patch. A refusal carries its message as the status, a warning
 * its texts as `warnings`, and both say in `auditAnnotations` what was
 * decided, so the cluster's audit log tells why without our logs. Texts
 * carry no control character (a request's values can hold them): each is
 * written as its escape.
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
 * What a refusal would have said, one warning per violation (or its message
 * when it names none), each within what the apiserver passes through whole,
 * at most LISTED_WARNINGS_LIMIT and then one that counts the rest. Each
 * leads with what identifies it and what to do first, since kubectl shows
 * only a warning's first 256 characters: a violation's rule id and its
 * rule's remedy, then its path and message; a refusal that names none, its
 * reason and the reason's remedy, then its message.
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

/**
 * Keys the apiserver prefixes with the webhook's name (for example
 * `pods.cocoon-webhook.cocoonstack.io/reason`): the endpoint, what it did,
 * the reason and, when the refusal names catalogue rules, their ids.
 */
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
