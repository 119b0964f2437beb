import { denied } from "../contract/verdict";
import { type CollectedViolations, describeViolations } from "../contract/violations";
import { type RuleId, reasonOf } from "./catalogue";

/**
 * One denial listing what the rules found, up to the listing cap; the first
 * violation's rule gives the reason. Undefined when they found nothing.
 */
export function ruleDenial<R extends RuleId>(subject: string, found: CollectedViolations<R>) {
  const [first] = found.listed;
  if (first === undefined) return undefined;
  return denied(reasonOf(first.rule), `invalid ${subject}: ${describeViolations(found)}`, found);
}
