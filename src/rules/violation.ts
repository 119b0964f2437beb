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
export interface Violation {
  readonly rule: RuleId;
  readonly path: string;
  readonly segments: PathSegments;
  readonly message: string;
}

export type ReportViolation = (violation: Violation) => void;

export function violation(rule: RuleId, segments: PathSegments, message: string): Violation {
  return { rule, path: formatPath(segments), segments, message };
}

export function formatPath(segments: PathSegments): string {
  return segments
    .map((segment, index) =>
      typeof segment === "number" ? `[${segment}]` : index === 0 ? segment : `.${segment}`,
    )
    .join("");
}

/** All violations as one sentence list: `<path>: <message>; …`. */
export function describeViolations(violations: readonly Violation[]): string {
  return violations.map(({ path, message }) => `${path}: ${message}`).join("; ");
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

/** A violation when a set value is not one of `allowed`; unset values are fine. */
export function enumViolation(
  rule: RuleId,
  segments: PathSegments,
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
    segments,
    `must be one of ${options}${unsetMeans}, got ${describeJson(value)}${caseHint}`,
  );
}
