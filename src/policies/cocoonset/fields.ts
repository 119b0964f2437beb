import type { ReportViolation, Violation } from "../../admission/violations";
import { violation } from "../../admission/violations";
import type { PathSegments } from "../../json/path";
import {
  isJsonObject,
  type JsonObject,
  MISTYPED,
  readInt,
  readObject,
  readString,
} from "../../json/read";
import type { RuleId } from "../catalogue";
import { describeJson } from "../json-values";

/**
 * A field read as a violation when it has the wrong type: `<expected>, got
 * <value>` at its path, such as `must be a string, got 5`. Without `got`
 * the message is `expected` alone.
 */
export function mistypedField<R extends RuleId>(
  rule: R,
  at: PathSegments,
  expected: string,
  ...got: [value: unknown] | []
): Violation<R> {
  const message = got.length === 0 ? expected : `${expected}, got ${describeJson(got[0])}`;
  return violation(rule, at, message);
}

/**
 * The type a field must have: a string, a whole number, or any value, for a
 * field whose rule judges the raw value itself (an enumerated field, whose
 * message lists the allowed values whatever was given; a nested object or
 * list read on its own).
 */
export type FieldType = "string" | "int" | "any";
export type FieldShape = Readonly<Record<string, FieldType>>;

type ValueOf<T extends FieldType> = T extends "string"
  ? string
  : T extends "int"
    ? number
    : unknown;

/** The fields of a shape as read: absent or null ones are left out. */
export type Fields<S extends FieldShape> = { -readonly [K in keyof S]?: ValueOf<S[K]> };

const EXPECTED: Readonly<Record<Exclude<FieldType, "any">, string>> = {
  string: "must be a string",
  int: "must be a whole number",
};

/**
 * The fields of `shape` read from `raw`, each on its own, so each mistyped
 * field is reported as a violation of `rule` at its own path and sibling
 * objects are still read. An absent or null object reads as empty (its
 * required fields are then the rules' to report). A value that is not an
 * object, or an object with a mistyped field, is reported and yields
 * undefined: the object's other rules wait until its types are right,
 * rather than guessing from a half-read object (a dropped `image: 5` would
 * also read as "image is required").
 */
export function readFields<S extends FieldShape, R extends RuleId>(
  shape: S,
  raw: unknown,
  at: PathSegments,
  rule: R,
  report: ReportViolation<R>,
): Fields<S> | undefined {
  const object = readObject(raw);
  if (object === undefined) return {};
  if (object === MISTYPED) {
    report(rule, () => mistypedField(rule, at, "must be an object", raw));
    return undefined;
  }
  if (!hasAnyKeyOf(shape, object)) return NOTHING_READ;
  const fields: Record<string, unknown> = {};
  let mistyped = false;
  for (const key of keysOf(shape)) {
    const type = shape[key] as FieldType;
    const value = object[key];
    const read = type === "string" ? readString(value) : type === "int" ? readInt(value) : value;
    if (read === undefined || read === null) continue;
    if (read !== MISTYPED) {
      fields[key] = read;
      continue;
    }
    mistyped = true;
    const expected = EXPECTED[type as Exclude<FieldType, "any">];
    report(rule, () => mistypedField(rule, [...at, key], expected, value));
  }
  return mistyped ? undefined : (fields as Fields<S>);
}

const NOTHING_READ: Readonly<Record<string, never>> = Object.freeze({});

/**
 * Whether reading `shape` from `raw` finds nothing and reports nothing: an
 * object without any of the shape's keys. Most entries of a large list carry
 * few or none of them; walking the entry's own keys is far cheaper than
 * looking up every shape key in it (a CocoonSet may hold a million
 * toolboxes), such entries share one empty result, and their path need not
 * be built.
 */
export function hasNoFieldOf(shape: FieldShape, raw: unknown): boolean {
  return isJsonObject(raw) && !hasAnyKeyOf(shape, raw);
}

/** The fields `readFields` gives for an entry of which `hasNoFieldOf` holds. */
export function noFields<S extends FieldShape>(): Fields<S> {
  return NOTHING_READ as Fields<S>;
}

function hasAnyKeyOf(shape: FieldShape, object: JsonObject): boolean {
  for (const key in object) if (Object.hasOwn(shape, key)) return true;
  return false;
}

const shapeKeys = new WeakMap<FieldShape, readonly string[]>();

/** The keys of a shape, listed once: a CocoonSet may hold a million toolboxes. */
function keysOf(shape: FieldShape): readonly string[] {
  let keys = shapeKeys.get(shape);
  if (!keys) {
    keys = Object.keys(shape);
    shapeKeys.set(shape, keys);
  }
  return keys;
}
