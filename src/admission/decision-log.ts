import type { Logger } from "../observability/logger";
import type { CollectedViolations } from "../violations";
import type { HandlerLabel } from "./endpoints";
import type { AdmissionRequest } from "./review";
import type { Verdict } from "./verdict";

/**
 * The one log line of a decision: a denial at warn with the broken rules, an
 * error at error with what was thrown, an allow at debug. `handler` is the
 * endpoint's label, as in the metrics.
 */
export function logVerdict(
  log: Logger,
  endpoint: HandlerLabel,
  request: AdmissionRequest,
  verdict: Verdict,
  thrown: unknown,
): void {
  // Allows log at debug only; skip building the line on the hot path when it would be dropped.
  if (verdict.allowed && !log.isLevelEnabled("debug")) return;
  const fields = {
    handler: endpoint,
    uid: request.uid,
    operation: request.operation,
    kind: request.kind?.kind,
    resource: request.namespace
      ? `${request.namespace}/${request.name ?? ""}`
      : (request.name ?? ""),
    user: request.userInfo?.username,
    result: verdict.result,
    reason: verdict.reason,
  };
  if (verdict.result === "error")
    log.error({ ...fields, message: verdict.message, err: thrown }, "admission error");
  else if (verdict.result === "deny")
    log.warn(
      { ...fields, message: verdict.message, ...violationFields(verdict.violations) },
      "admission denied",
    );
  else log.debug(fields, "admission allowed");
}

/**
 * The broken rules of a denial as log fields, so the logs can tell which rule
 * denies most: each listed violation's rule id and JSON path, and how many
 * more each rule had past the listing cap.
 */
function violationFields({ listed, unlistedByRule, total }: CollectedViolations) {
  if (total === 0) return {};
  return {
    violations: listed.map(({ rule, path }) => ({ rule, path })),
    ...(total > listed.length ? { unlisted: Object.fromEntries(unlistedByRule) } : {}),
  };
}
