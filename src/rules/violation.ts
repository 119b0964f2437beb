import type { z } from "zod";
import type { RuleId } from "./catalogue";
import { describeJson, quote } from "./json-values";

/** A step into a JSON document: an object key or an array index. */
export type PathSegment = string | number;
export type PathSegments = readonly PathSegment[];

/**
 * One broken rule at one place in an object. `segments` locate it in the
 * source document (an offline linter maps them to a line); `path` is their
 * printed form, such as `spec.toolboxes[2].name`.
 */
export interface Violation<R extends RuleId = RuleId> {
  readonly rule: R;
  readonly path: string;
  readonly segments: PathSegments;
  readonly message: string;
}

/**
 * Reports one violation of `rule`. `build` is called only when the violation
 * is kept in full: past the listing cap it is only counted, and a CocoonSet
 * with a million toolboxes must not pay for a million messages. A check run
 * once per list entry passes a builder that does not close over the entry,
 * and the entry as `subject`, so counting allocates nothing.
 */
export interface ReportViolation {
  (rule: RuleId, build: () => Violation): void;
  <S>(rule: RuleId, build: (subject: S) => Violation, subject: S): void;
}

export function violation<R extends RuleId>(
  rule: R,
  segments: PathSegments,
  message: string,
): Violation<R> {
  return { rule, path: formatPath(segments), segments, message };
}

/** Reports a violation that was already built (one rare enough not to defer); nothing when undefined. */
export function reportFound(report: ReportViolation, found: Violation | undefined): void {
  if (found) report(found.rule, () => found);
}

/** How many violations an admission answer (and its log line) lists; the rest are counted per rule. */
export const LISTED_VIOLATIONS_LIMIT = 20;

/** Violations as collected: the first `limit` in full, the rest counted per rule. */
export interface CollectedViolations {
  readonly listed: readonly Violation[];
  /** Rule → how many of its violations were left out of `listed`, in order of first occurrence. */
  readonly unlistedByRule: ReadonlyMap<RuleId, number>;
  /** listed + unlisted. */
  readonly total: number;
}

export interface ViolationCollector {
  readonly report: ReportViolation;
  collected(): CollectedViolations;
}

/**
 * Collects up to `limit` violations and counts the rest per rule without
 * reading their messages. The admission handlers pass LISTED_VIOLATIONS_LIMIT;
 * the offline CLI passes no limit and gets every finding.
 */
export function collectViolations(limit = Number.POSITIVE_INFINITY): ViolationCollector {
  const listed: Violation[] = [];
  const unlistedByRule = new Map<RuleId, number>();
  let total = 0;
  const report = (rule: RuleId, build: (subject: never) => Violation, subject?: unknown) => {
    total++;
    if (listed.length < limit) listed.push((build as (subject: unknown) => Violation)(subject));
    else unlistedByRule.set(rule, (unlistedByRule.get(rule) ?? 0) + 1);
  };
  return { report, collected: () => ({ listed, unlistedByRule, total }) };
}

export function formatPath(segments: PathSegments): string {
  // A plain loop: huge objects format a path per violation, and map/join costs several times more.
  let path = "";
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index];
    if (typeof segment === "number") path += `[${segment}]`;
    else path += index === 0 ? segment : `.${segment}`;
  }
  return path;
}

/** All violations as one sentence list: `<path>: <message>; …`. */
export function describeViolations(violations: readonly Violation[]): string {
  return violations.map(({ path, message }) => `${path}: ${message}`).join("; ");
}

/**
 * The listed violations as one sentence list, then, when some were left
 * out, `… and N more (rule-id: count, …)`. Bounded whatever the object: at
 * most the cap of messages (each quoting at most a short excerpt of any
 * value) and one count per rule of the catalogue.
 */
export function describeCollected({ listed, unlistedByRule, total }: CollectedViolations): string {
  const shown = describeViolations(listed);
  const unlisted = total - listed.length;
  if (unlisted === 0) return shown;
  const perRule = [...unlistedByRule].map(([rule, count]) => `${rule}: ${count}`).join(", ");
  return `${shown}; … and ${unlisted} more (${perRule})`;
}

/** An optional field counts as unset when absent, null or empty. */
export function isUnset(value: unknown): value is undefined | null | "" {
  return value === undefined || value === null || value === "";
}

type StringEnum = z.ZodEnum<Readonly<Record<string, string>>>;

/** The field's value after the CRD default, or undefined when it is not an allowed value. */
export function resolveEnum<E extends StringEnum>(
  allowed: E,
  value: unknown,
  fallback: z.infer<E>,
): z.infer<E> | undefined {
  if (isUnset(value)) return fallback;
  const parsed = allowed.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** A violation at `at.field` when a set value is not one of `allowed`; unset values are fine (and cost nothing). */
export function enumViolation(
  rule: RuleId,
  at: PathSegments,
  field: string,
  value: unknown,
  allowed: StringEnum,
  fallback?: string,
): Violation | undefined {
  if (isUnset(value) || allowed.safeParse(value).success) return undefined;
  const options = allowed.options.map(quote).join(", ");
  const unsetMeans = fallback === undefined ? "" : ` (or leave it unset for ${quote(fallback)})`;
  const caseHint =
    typeof value === "string" &&
    allowed.options.some((option) => option.toLowerCase() === value.toLowerCase())
      ? "; values are case-sensitive"
      : "";
  return violation(
    rule,
    [...at, field],
    `must be one of ${options}${unsetMeans}, got ${describeJson(value)}${caseHint}`,
  );
}
