/*
 * The one way untrusted JSON objects are read, never decoded whole: a reader
 * walks a path to the one field it needs and tells a value of the expected
 * type from `undefined` (absent or null, as the apiserver omits fields) and
 * from MISTYPED. No schema per read: the pod gate reads every pod of a cluster.
 */

export type JsonObject = Record<string, unknown>;

/** A path into a JSON document through objects, such as `["spec", "tolerations"]`. */
export type JsonPath = readonly string[];

/** What a read gives for a value of the wrong type: not absent, but not readable either. */
export const MISTYPED: unique symbol = Symbol("mistyped");

export type Read<T> = T | undefined | typeof MISTYPED;

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

/** For fields whose mistyped value means nothing. */
export function absentIfMistyped(value: unknown): unknown {
  return value === MISTYPED ? undefined : value;
}

function readAs<T>(value: unknown, isExpected: (value: unknown) => value is T): Read<T> {
  if (value === undefined || value === null) return undefined;
  return isExpected(value) ? value : MISTYPED;
}

const isString = (value: unknown): value is string => typeof value === "string";

/** A whole number a JSON reader can hold exactly (a safe integer). */
const isInt = (value: unknown): value is number => Number.isSafeInteger(value);

/** Every entry an object: an apiserver answer is untrusted by one bad entry. */
const isObjectList = (value: unknown): value is readonly JsonObject[] =>
  Array.isArray(value) && value.every(isJsonObject);

export const readObject = (value: unknown): Read<JsonObject> => readAs(value, isJsonObject);

/** The list itself, never copied: its entries are the caller's to judge one by one. */
export const readList = (value: unknown): Read<readonly unknown[]> => readAs(value, Array.isArray);

export const readString = (value: unknown): Read<string> => readAs(value, isString);

export const readInt = (value: unknown): Read<number> => readAs(value, isInt);

export const readObjectList = (value: unknown): Read<readonly JsonObject[]> =>
  readAs(value, isObjectList);

/** The string at `path`, or undefined whatever else is there (absent, null, mistyped). */
export function stringAt(root: unknown, path: JsonPath): string | undefined {
  const value = valueAt(root, path);
  return typeof value === "string" ? value : undefined;
}
