import { formatPath, type PathSegments } from "../json/path";

/*
 * What a check reports: broken rules, each at a place in the object. The
 * rules report them, a denial lists them, the offline CLI locates them in
 * their files. `Rule` is the rule ids a reporter may use.
 */

/**
 * One broken rule at one place in an object. `segments` locate it in the
 * source document (an offline linter maps them to a line); `path` is their
 * printed form, such as `spec.toolboxes[2].name`.
 */
export interface Violation<Rule extends string = string> {
  readonly rule: Rule;
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
export interface ReportViolation<Rule extends string = string> {
  (rule: Rule, build: () => Violation<Rule>): void;
  <S>(rule: Rule, build: (subject: S) => Violation<Rule>, subject: S): void;
}

export function violation<Rule extends string>(
  rule: Rule,
  segments: PathSegments,
  message: string,
): Violation<Rule> {
  return { rule, path: formatPath(segments), segments, message };
}

/** Reports a violation that was already built (one rare enough not to defer); nothing when undefined. */
export function reportFound<Rule extends string>(
  report: ReportViolation<Rule>,
  found: Violation<Rule> | undefined,
): void {
  if (found) report(found.rule, () => found);
}

/** How many violations an admission answer (and its log line) lists; the rest are counted per rule. */
export const LISTED_VIOLATIONS_LIMIT = 20;

/** Violations as collected: the first `limit` in full, the rest counted per rule. */
export interface CollectedViolations<Rule extends string = string> {
  readonly listed: readonly Violation<Rule>[];
  /** Rule → how many of its violations were left out of `listed`, in order of first occurrence. */
  readonly unlistedByRule: ReadonlyMap<Rule, number>;
  /** listed + unlisted. */
  readonly total: number;
}

export const NO_VIOLATIONS: CollectedViolations<never> = Object.freeze({
  listed: Object.freeze([]),
  unlistedByRule: new Map<never, number>(),
  total: 0,
});

export interface ViolationCollector<Rule extends string> {
  readonly report: ReportViolation<Rule>;
  violations(): CollectedViolations<Rule>;
}

/**
 * Collects up to `limit` violations and counts the rest per rule without
 * reading their messages. The admission handlers pass LISTED_VIOLATIONS_LIMIT;
 * the offline CLI passes no limit and gets every finding.
 */
export function violationCollector<Rule extends string>(
  limit = Number.POSITIVE_INFINITY,
): ViolationCollector<Rule> {
  const listed: Violation<Rule>[] = [];
  const unlistedByRule = new Map<Rule, number>();
  let total = 0;
  const report = (rule: Rule, build: (subject: never) => Violation<Rule>, subject?: unknown) => {
    total++;
    if (listed.length < limit)
      listed.push((build as (subject: unknown) => Violation<Rule>)(subject));
    else unlistedByRule.set(rule, (unlistedByRule.get(rule) ?? 0) + 1);
  };
  return { report, violations: () => ({ listed, unlistedByRule, total }) };
}

/** What `check` reports, collected: the first `limit` in full, the rest counted per rule. */
export function collectViolations<Rule extends string>(
  check: (report: ReportViolation<Rule>) => void,
  limit?: number,
): CollectedViolations<Rule> {
  const collector = violationCollector<Rule>(limit);
  check(collector.report);
  return collector.violations();
}

/**
 * The listed violations as `<path>: <message>; …`, then, when some were left
 * out, `… and N more (rule-id: count, …)`. Bounded whatever the object: at
 * most the cap of messages (each quoting at most a short excerpt of any
 * value) and one count per rule.
 */
export function describeViolations({ listed, unlistedByRule, total }: CollectedViolations): string {
  const shown = listed.map(({ path, message }) => `${path}: ${message}`).join("; ");
  const unlisted = total - listed.length;
  if (unlisted === 0) return shown;
  const perRule = [...unlistedByRule].map(([rule, count]) => `${rule}: ${count}`).join(", ");
  return `${shown}; … and ${unlisted} more (${perRule})`;
}
