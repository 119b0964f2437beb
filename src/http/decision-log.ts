import { cutShort } from "../bounded-text";
import type { AdmissionRequest } from "../contract/admission-request";
import type { Decision } from "../contract/verdict";
import type { CollectedViolations } from "../contract/violations";
import { ENDPOINTS, type EndpointKey } from "../endpoints";
import type { Logger } from "../observability/logger";

/**
 * The one log line of a decision: a denial at warn with the broken rules, an
 * error at error with what was thrown, a warning (warn mode) at warn like the
 * denial or error it stands for, an allow at debug. `handler` is the
 * endpoint's label, as in the metrics.
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
