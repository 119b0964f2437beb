import type { AdmissionRequest } from "../admission/review";
import { allowed, denied, errored, skipped, type Verdict } from "../admission/verdict";
import { namespaceOf } from "../cocoon/namespace";
import { specsSemanticallyEqual } from "../cocoon/spec-equality";
import { isJsonObject } from "../json/read";
import { collectCocoonSetViolations } from "../rules/cocoonset";
import { describeCollected, LISTED_VIOLATIONS_LIMIT } from "../rules/violation";

/**
 * `/validate-cocoonset`. An UPDATE that leaves `spec` unchanged is
 * not checked, so a CR that predates a rule can still lose its finalizer.
 * The denial lists at most LISTED_VIOLATIONS_LIMIT violations and counts the
 * rest per rule, so answer, log line and work stay bounded.
 */
export function validateCocoonSet(request: AdmissionRequest): Verdict<"validate_cocoonset"> {
  const { object, oldObject } = request;
  if (!isJsonObject(object)) {
    return errored(
      "decode",
      "the request's object is not a JSON object, so it cannot be a CocoonSet",
    );
  }
  if (request.operation === "UPDATE" && isJsonObject(oldObject)) {
    if (specsSemanticallyEqual(oldObject.spec, object.spec)) return skipped("no_change");
  }
  const found = collectCocoonSetViolations(
    object,
    namespaceOf(object, request.namespace),
    LISTED_VIOLATIONS_LIMIT,
  );
  if (!found || found.total === 0) return allowed();
  return denied("invalid_spec", `invalid CocoonSet: ${describeCollected(found)}`, found);
}
