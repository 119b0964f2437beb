import type { AdmissionRequest } from "../admission/review";
import { allowed, errored, skipped, type Verdict } from "../admission/verdict";
import { namespaceOf } from "../cocoon/namespace";
import { COCOONSET_KIND } from "../cocoon/resources";
import { specsSemanticallyEqual } from "../cocoon/spec-equality";
import { isJsonObject } from "../json/read";
import type { CocoonSetRuleId } from "../rules/catalogue";
import { checkCocoonSet } from "../rules/cocoonset";
import { collected, LISTED_VIOLATIONS_LIMIT } from "../violations";
import { ruleDenial } from "./rule-denial";

/**
 * `/validate-cocoonset`. An UPDATE that leaves `spec` unchanged is
 * not checked, so a CR that predates a rule can still lose its finalizer.
 * The denial lists at most LISTED_VIOLATIONS_LIMIT violations and counts the
 * rest per rule, so answer, log line and work stay bounded.
 */
export function validateCocoonSet(
  request: AdmissionRequest,
): Verdict<"validate_cocoonset", CocoonSetRuleId> {
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
  const namespace = namespaceOf(object, request.namespace);
  const found = collected<CocoonSetRuleId>(
    (report) => checkCocoonSet(object, namespace, report),
    LISTED_VIOLATIONS_LIMIT,
  );
  return ruleDenial(COCOONSET_KIND, found) ?? allowed();
}
