import type { MatchCondition } from "../contract/endpoint";

// Each matchCondition mirrors a predicate the decision applies itself, so it can only save a call,
// never change a verdict. Every field read is guarded with `has(x.f) && x.f != null`: cel-go counts
// a null field as present, and a CEL error would count as a webhook failure.

/** Lines of a CEL expression; a nested piece keeps its own line breaks. */
export type Cel = readonly string[];

export const cel = (...parts: (string | Cel)[]): Cel => parts.flat();

/** `piece` with `before` on its first line and `after` on its last. */
export function around(before: string, piece: Cel, after = ""): Cel {
  return piece.map(
    (line, index) =>
      `${index === 0 ? before : ""}${line}${index === piece.length - 1 ? after : ""}`,
  );
}

export function condition(name: string, lines: Cel, comment?: string): MatchCondition {
  return { name, expression: lines.join(" "), lines, ...(comment ? { comment } : {}) };
}

/** `path` of `object`, or `empty` where it or a parent on the way is absent or null. */
export function fieldOr(object: string, path: readonly string[], empty: string): string {
  const guards = path.map((_, index) => {
    const field = [object, ...path.slice(0, index + 1)].join(".");
    return `has(${field}) && ${field} != null`;
  });
  return `(${guards.join(" && ")} ? ${[object, ...path].join(".")} : ${empty})`;
}
