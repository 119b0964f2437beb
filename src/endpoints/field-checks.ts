import type { CrdEnum } from "../cocoon/crd-enums";
import { type Violation, violation } from "../contract/violations";
import { describeJson, quote } from "../json/describe";
import type { PathSegments } from "../json/path";

/** An optional field counts as unset when absent, null or empty. */
export function isUnset(value: unknown): value is undefined | null | "" {
  return value === undefined || value === null || value === "";
}

export const isNonEmptyString = (value: unknown): value is string =>
  typeof value === "string" && value !== "";

/** The field's value after the CRD default, or undefined when it is not an allowed value. */
export function resolveEnum(
  allowed: CrdEnum,
  value: unknown,
  fallback: string,
): string | undefined {
  if (isUnset(value)) return fallback;
  return allowed.allows(value) ? value : undefined;
}

/** A violation at `at.field` when a set value is not one of `allowed`; unset values are fine (and cost nothing). */
export function enumViolation<R extends string>(
  rule: R,
  at: PathSegments,
  field: string,
  value: unknown,
  allowed: CrdEnum,
  fallback?: string,
): Violation<R> | undefined {
  if (isUnset(value) || allowed.allows(value)) return undefined;
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
