import type { FieldNode } from "../../cocoon/crd-fields";
import type { PathSegment, PathSegments } from "../../json/path";
import { isJsonObject } from "../../json/read";
import { closestMatch } from "../did-you-mean";

/** A key the CRD does not define, and the defined sibling it most likely meant. */
export interface UnknownField {
  readonly segments: PathSegments;
  readonly key: string;
  readonly suggestion: string | undefined;
}

/**
 * Every key of `value` that `tree` does not define, in document order. Keys
 * inside maps (labels, resource limits) are the user's own and never
 * reported; a value of the wrong type is left to the rules that read it.
 */
export function unknownFields(
  value: unknown,
  tree: FieldNode,
  at: readonly PathSegment[] = [],
): UnknownField[] {
  if (tree.type === "list" && Array.isArray(value)) {
    return value.flatMap((item, index) => unknownFields(item, tree.items, [...at, index]));
  }
  if (tree.type !== "object" || !isJsonObject(value)) return [];
  return Object.entries(value).flatMap(([key, field]) => {
    const known = Object.hasOwn(tree.fields, key) ? tree.fields[key] : undefined;
    if (known) return unknownFields(field, known, [...at, key]);
    const suggestion = closestMatch(key, Object.keys(tree.fields));
    return [{ segments: [...at, key], key, suggestion }];
  });
}
