import { isJsonObject } from "../json/read";
import { COCOONSET_SCHEMA, type SchemaNode, schemaAt } from "./crd-schema";
import { quantitiesEqual } from "./quantity";

/*
 * The operator writes its finalizers back through its Go types, re-encoding an unchanged spec
 * (omitempty zeros dropped, `resources: {}` added, quantities canonical): specs are equal when
 * those types would hold equal values. A field they do not know, or a mistyped value, compares
 * as sent, so nothing outside the types hides a change.
 */

/** What `encoding/json` reads into a Go value field from an absent or null one. */
const ZERO_OF_TYPE: Readonly<Record<string, false | 0 | "">> = {
  boolean: false,
  integer: 0,
  string: "",
};

const SPEC = schemaAt(COCOONSET_SCHEMA, ["spec"]);
const ENV_FROM = ["agent", "envFrom", "[]"];

/**
 * The Go types' pointers, where absent differs from zero, which the schema cannot say. Quantities
 * need none: `storage` is a pointer and a resource list's values are never absent.
 */
const GO_POINTERS: ReadonlySet<SchemaNode> = new Set(
  [
    [...ENV_FROM, "configMapRef"],
    [...ENV_FROM, "configMapRef", "optional"],
    [...ENV_FROM, "secretRef"],
    [...ENV_FROM, "secretRef", "optional"],
  ].map((path) => schemaAt(SPEC, path)),
);

export function specsSemanticallyEqual(left: unknown, right: unknown): boolean {
  return equalAs(SPEC, left, right);
}

const absent = (value: unknown): boolean => value === undefined || value === null;

function equalAs(node: SchemaNode | undefined, left: unknown, right: unknown): boolean {
  if (!node) return equalAsSent(left, right);
  const { properties, items } = node;
  if (properties) {
    if (GO_POINTERS.has(node) && (absent(left) || absent(right))) {
      return absent(left) && absent(right);
    }
    return objectsEqual(properties, absent(left) ? {} : left, absent(right) ? {} : right);
  }
  if (items) return listsEqual(items, left, right);
  if (node.type === "object") return mapsEqual(node.additionalProperties, left, right);
  return scalarsEqual(node, left, right);
}

/** A quantity equals another spelling of its amount and has no zero: `storage` is a pointer. */
function scalarsEqual(node: SchemaNode, left: unknown, right: unknown): boolean {
  const quantity = node["x-kubernetes-int-or-string"] === true;
  const zero = quantity || GO_POINTERS.has(node) ? undefined : ZERO_OF_TYPE[node.type ?? ""];
  const a = absent(left) ? zero : left;
  const b = absent(right) ? zero : right;
  if (quantity) {
    const x = quantityText(a);
    const y = quantityText(b);
    if (x !== undefined && y !== undefined && quantitiesEqual(x, y)) return true;
  }
  return equalAsSent(a, b);
}

/** A nil and an empty slice are the same to the Go types. */
function listsEqual(items: SchemaNode, left: unknown, right: unknown): boolean {
  const a = absent(left) ? [] : left;
  const b = absent(right) ? [] : right;
  if (!Array.isArray(a) || !Array.isArray(b)) return equalAsSent(a, b);
  return a.length === b.length && a.every((item, index) => equalAs(items, item, b[index]));
}

/** A nil and an empty map are the same; a key on one side must be on the other. */
function mapsEqual(values: SchemaNode | undefined, left: unknown, right: unknown): boolean {
  const a = absent(left) ? {} : left;
  const b = absent(right) ? {} : right;
  if (!isJsonObject(a) || !isJsonObject(b)) return equalAsSent(a, b);
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    if (!(key in a) || !(key in b) || !equalAs(values, a[key], b[key])) return false;
  }
  return true;
}

function objectsEqual(
  fields: Readonly<Record<string, SchemaNode>>,
  left: unknown,
  right: unknown,
): boolean {
  if (!isJsonObject(left) || !isJsonObject(right)) return equalAsSent(left, right);
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) {
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!equalAs(field, left[key], right[key])) return false;
  }
  return true;
}

/** Deep equality of JSON as sent: key order is irrelevant and `null` equals an absent key. */
function equalAsSent(left: unknown, right: unknown): boolean {
  if (Array.isArray(left) && Array.isArray(right)) {
    return (
      left.length === right.length && left.every((item, index) => equalAsSent(item, right[index]))
    );
  }
  if (isJsonObject(left) && isJsonObject(right)) return objectsEqual({}, left, right);
  return left === right || (absent(left) && absent(right));
}

/** Quantity fields are int-or-string in JSON: `2` and `"2"` are the same CPU count. */
function quantityText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}
