/*
 * The one way untrusted JSON objects are read: an admission request's
 * object, a document of the offline CLI, an apiserver answer
 * (src/kube/answer-fields.ts checks an answer's fields through these same
 * readers). Objects are never decoded whole. A reader walks a path to the
 * one field it needs and says what it found there: a value of the expected
 * type, `undefined` when the field or a parent on the way is absent or null
 * (how the apiserver omits them), or MISTYPED when it holds something else.
 * Plain code, no schema per read and no allocation: the pod gate reads every
 * pod of a cluster (docs/performance.md, "Reading JSON: one way").
 */

/** A JSON object (not null, not an array), as decoded objects hold them. */
export type JsonObject = Record<string, unknown>;

/** A path into a JSON document through objects, such as `["spec", "tolerations"]`. */
export type JsonPath = readonly string[];

/** What a read gives for a value of the wrong type: not absent, but not readable either. */
export const MISTYPED: unique symbol = Symbol("mistyped");
export type Mistyped = typeof MISTYPED;

/** A typed read: the value, `undefined` when absent or null, or MISTYPED. */
export type Read<T> = T | undefined | Mistyped;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at `path` as it is (null included); MISTYPED when a parent on the way is not an object. */
export function valueAt(root: unknown, path: JsonPath): unknown {
  if (!isJsonObject(root)) return MISTYPED;
  let current: unknown = root;
  for (let index = 0; index < path.length; index++) {
    if (current === undefined || current === null) return undefined;
    if (!isJsonObject(current)) return MISTYPED;
    current = current[path[index] as string];
  }
  return current;
}

/** A value that cannot be read counts as absent: for fields whose mistyped value means nothing. */
export function absentIfMistyped(value: unknown): unknown {
  return value === MISTYPED ? undefined : value;
}

export function readObject(value: unknown): Read<JsonObject> {
  if (value === undefined || value === null) return undefined;
  return isJsonObject(value) ? value : MISTYPED;
}

/** The list itself, never copied: its entries are the caller's to judge one by one. */
export function readList(value: unknown): Read<readonly unknown[]> {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value : MISTYPED;
}

export function readString(value: unknown): Read<string> {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : MISTYPED;
}

/** A whole number a JSON reader can hold exactly (a safe integer). */
export function readInt(value: unknown): Read<number> {
  if (value === undefined || value === null) return undefined;
  return Number.isSafeInteger(value) ? (value as number) : MISTYPED;
}

/** The string at `path`, or undefined whatever else is there (absent, null, mistyped). */
export function stringAt(root: unknown, path: JsonPath): string | undefined {
  const value = valueAt(root, path);
  return typeof value === "string" ? value : undefined;
}

/** A list whose entries are all objects, never copied: for apiserver answers, untrusted by one bad entry. */
export function readObjectList(value: unknown): Read<readonly JsonObject[]> {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return MISTYPED;
  for (let index = 0; index < value.length; index++) {
    if (!isJsonObject(value[index])) return MISTYPED;
  }
  return value as JsonObject[];
}
