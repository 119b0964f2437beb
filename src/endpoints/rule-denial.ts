import type { Rule } from "../contract/endpoint";
import { denied, errored } from "../contract/verdict";
import {
  collectViolations,
  describeViolations,
  LISTED_VIOLATIONS_LIMIT,
  type ReportViolation,
} from "../contract/violations";

/**
 * One denial listing what `check` reports, up to the listing cap (collection stops there); the
 * first violation's rule gives the reason. Undefined when it found nothing.
 */
export function ruleDenial<const Rules extends readonly Rule[], Id extends Rules[number]["id"]>(
  rules: Rules,
  subject: string,
  check: (report: ReportViolation<Id>) => void,
) {
  const found = collectViolations<Id>(check, LISTED_VIOLATIONS_LIMIT);
  const [first] = found.listed;
  if (first === undefined) return undefined;
  const rule = rules.find((candidate) => candidate.id === first.rule);
  if (rule === undefined) throw new Error(`rule ${first.rule} is not among ${subject}'s rules`);
  const reason: Rules[number]["reason"] = rule.reason;
  return denied(reason, `invalid ${subject}: ${describeViolations(found)}`, found);
}

/** The refusal of a custom resource whose request carries no JSON object at all. */
export const notAnObject = (kind: string) =>
  errored("decode", `the request's object is not a JSON object, so it cannot be a ${kind}`);
