import type { MatchCondition } from "../contract/endpoint";

// Each matchCondition mirrors a predicate the decision applies itself, so it can only save a call,
// never change a verdict. Every field read is guarded with `has(x.f) && x.f != null`: cel-go counts
// a null field as present, and a CEL error would count as a webhook failure.

/**
 * A CEL expression written as the manifest shows it: each line's indentation is dropped, and an
 * interpolated piece keeps its own line breaks.
 */
export const cel = (parts: TemplateStringsArray, ...pieces: (string | number)[]): string =>
  String.raw({ raw: parts.map((part) => part.replace(/\n\s*/g, "\n")) }, ...pieces).trim();

export function condition(name: string, expression: string, comment?: string): MatchCondition {
  return { name, expression, ...(comment ? { comment } : {}) };
}

/** `path` of `object`, or `empty` where it or a parent on the way is absent or null. */
export function fieldOr(object: string, path: readonly string[], empty: string): string {
  const guards = path.map((_, index) => {
    const field = [object, ...path.slice(0, index + 1)].join(".");
    return `has(${field}) && ${field} != null`;
  });
  return `(${guards.join(" && ")} ? ${[object, ...path].join(".")} : ${empty})`;
}
