import { isJsonObject } from "../json/read";
import { COCOONSET_SCHEMA, type SchemaNode, schemaAt } from "./crd-schema";
import { quantitiesEqual } from "./quantity";

/*
 * The operator adds and removes its finalizer by writing the whole CocoonSet
 * back through its Go types, so a spec it never meant to change arrives
 * re-encoded: `suspend: false`, `toolboxes: []` or `probePort: 0` dropped
 * (omitempty), `resources: {}` added, quantities in canonical form. Two specs
 * are the same when those types would hold the same values, field by field
 * as the CRD schema types them (docs/behaviour.md lists the rule per field).
 * A field the types do not know, or a value of the wrong type, compares as
 * sent (only `null` equals absent), so nothing outside the types can hide a
 * real change.
 */

/** The zero value of a Go value field, which `encoding/json` reads from an absent or null one. */
type GoZero = false | 0 | "";

/** A field as the Go types hold it. */
type GoField =
  /** `pointer`: absent and `{}` differ; otherwise absent reads as `{}`. */
  | {
      readonly type: "object";
      readonly fields: Readonly<Record<string, GoField>>;
      readonly pointer: boolean;
    }
  | { readonly type: "list"; readonly items: GoField }
  /** Keys of the user's choosing (resource limits), values of `values`. */
  | { readonly type: "map"; readonly values: GoField | undefined }
  /** `zero`: what absent reads as (none for a pointer); `quantity`: equal to another spelling of the same amount. */
  | { readonly type: "scalar"; readonly zero: GoZero | undefined; readonly quantity: boolean };

/**
 * What the schema cannot say: the spec fields the Go types hold behind a
 * pointer (envFrom's `*ConfigMapEnvSource`, `*SecretEnvSource` and their
 * `optional *bool`). Quantities need no entry: `storage` is a pointer and a
 * resource list's values are never absent.
 */
export const GO_POINTER_FIELDS: readonly string[] = [
  "agent.envFrom[].configMapRef",
  "agent.envFrom[].configMapRef.optional",
  "agent.envFrom[].secretRef",
  "agent.envFrom[].secretRef.optional",
];

const ZERO_OF_TYPE: Readonly<Record<string, GoZero>> = { boolean: false, integer: 0, string: "" };

function goFieldOf(node: SchemaNode, path: string): GoField {
  const pointer = GO_POINTER_FIELDS.includes(path);
  const { properties, items, additionalProperties } = node;
  if (properties) {
    const fields = Object.entries(properties).map(([name, child]) => [
      name,
      goFieldOf(child, path ? `${path}.${name}` : name),
    ]);
    return { type: "object", fields: Object.fromEntries(fields), pointer };
  }
  if (items) return { type: "list", items: goFieldOf(items, `${path}[]`) };
  if (node.type === "object") {
    return {
      type: "map",
      values: additionalProperties && goFieldOf(additionalProperties, `${path}.*`),
    };
  }
  const quantity = node["x-kubernetes-int-or-string"] === true;
  const zero = pointer || quantity || !node.type ? undefined : ZERO_OF_TYPE[node.type];
  return { type: "scalar", zero, quantity };
}

const COCOONSET_SPEC = goFieldOf(schemaAt(COCOONSET_SCHEMA, ["spec"]), "");

/** Whether two CocoonSet specs hold the same values as the operator's Go types read them. */
export function specsSemanticallyEqual(left: unknown, right: unknown): boolean {
  return equalAs(COCOONSET_SPEC, left, right);
}

const absent = (value: unknown): boolean => value === undefined || value === null;

function equalAs(node: GoField | undefined, left: unknown, right: unknown): boolean {
  switch (node?.type) {
    case "scalar":
      return scalarsEqual(node, left, right);
    case "list":
      return listsEqual(node.items, left, right);
    case "map":
      return mapsEqual(node.values, left, right);
    case "object":
      if (node.pointer && (absent(left) || absent(right))) return absent(left) && absent(right);
      return objectsEqual(node.fields, absent(left) ? {} : left, absent(right) ? {} : right);
    default:
      return equalAsSent(left, right);
  }
}

function scalarsEqual(
  node: Extract<GoField, { type: "scalar" }>,
  left: unknown,
  right: unknown,
): boolean {
  const a = absent(left) ? node.zero : left;
  const b = absent(right) ? node.zero : right;
  if (node.quantity) {
    const x = quantityText(a);
    const y = quantityText(b);
    if (x !== undefined && y !== undefined && quantitiesEqual(x, y)) return true;
  }
  return equalAsSent(a, b);
}

/** A nil and an empty slice are the same to the Go types. */
function listsEqual(items: GoField, left: unknown, right: unknown): boolean {
  const a = absent(left) ? [] : left;
  const b = absent(right) ? [] : right;
  if (!Array.isArray(a) || !Array.isArray(b)) return equalAsSent(a, b);
  return a.length === b.length && a.every((item, index) => equalAs(items, item, b[index]));
}

/** A nil and an empty map are the same; every key present on one side must be on the other. */
function mapsEqual(values: GoField | undefined, left: unknown, right: unknown): boolean {
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
  fields: Readonly<Record<string, GoField>>,
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
  if (Array.isArray(left) || Array.isArray(right)) {
    return (
      Array.isArray(left) &&
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => equalAsSent(item, right[index]))
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
