import { isJsonObject } from "./read";

/**
 * Whether two decoded JSON values hold the same data: lists in order,
 * objects whatever the order of their keys. As CEL's `==` compares the
 * apiserver's objects, so a matchCondition and the code agree.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return (
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((entry, index) => jsonEqual(entry, b[index]))
    );
  }
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
  );
}
