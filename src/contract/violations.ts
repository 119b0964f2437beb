import { formatPath, type PathSegments } from "../json/path";

/** `segments` locate it in the source (the CLI maps them to a line); `path` prints them. */
export interface Violation<Rule extends string = string> {
  readonly rule: Rule;
  readonly path: string;
  readonly segments: PathSegments;
  readonly message: string;
}

/**
 * `build` runs only for a violation listed in full: past the cap it is only counted, so a CocoonSet
 * with a million toolboxes pays for no million messages. A per-entry check passes the entry as
 * `subject` to a builder that does not close over it, so counting allocates nothing.
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

/** Reports a violation already built (one rare enough not to defer); nothing when undefined. */
export function reportFound<Rule extends string>(
  report: ReportViolation<Rule>,
  found: Violation<Rule> | undefined,
): void {
  if (found) report(found.rule, () => found);
}

/** How many violations an admission answer (and its log line) lists. */
export const LISTED_VIOLATIONS_LIMIT = 20;

export interface CollectedViolations<Rule extends string = string> {
  readonly listed: readonly Violation<Rule>[];
  /** How many of each rule's violations `listed` left out, in order of first occurrence. */
  readonly unlistedByRule: ReadonlyMap<Rule, number>;
  readonly total: number;
}

export const NO_VIOLATIONS: CollectedViolations<never> = Object.freeze({
  listed: Object.freeze([]),
  unlistedByRule: new Map<never, number>(),
  total: 0,
});

/** The first `limit` in full, the rest counted per rule; the offline CLI passes no limit. */
export function collectViolations<Rule extends string>(
  check: (report: ReportViolation<Rule>) => void,
  limit = Number.POSITIVE_INFINITY,
): CollectedViolations<Rule> {
  const listed: Violation<Rule>[] = [];
  const unlistedByRule = new Map<Rule, number>();
  let total = 0;
  const report = (rule: Rule, build: (subject: never) => Violation<Rule>, subject?: unknown) => {
    total++;
    if (listed.length < limit)
      listed.push((build as (subject: unknown) => Violation<Rule>)(subject));
    else unlistedByRule.set(rule, (unlistedByRule.get(rule) ?? 0) + 1);
  };
  check(report);
  return { listed, unlistedByRule, total };
}

/** `path: message; …`, then `… and N more (rule: count, …)`: bounded whatever the object. */
export function describeViolations({ listed, unlistedByRule, total }: CollectedViolations): string {
  const shown = listed.map(({ path, message }) => `${path}: ${message}`).join("; ");
  const unlisted = total - listed.length;
  if (unlisted === 0) return shown;
  const perRule = [...unlistedByRule].map(([rule, count]) => `${rule}: ${count}`).join(", ");
  return `${shown}; … and ${unlisted} more (${perRule})`;
}
