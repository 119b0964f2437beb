import { z } from "zod";
import { isJsonObject } from "../json";
import { describeJson } from "./json-values";
import { type PathSegments, type ReportViolation, violation } from "./violation";

/**
 * Tolerant decoding: every field of an object is decoded on its own, so each
 * mistyped field becomes a violation at its own path, and sibling objects are
 * still checked. The CRD's structural schema already rejects wrong types at
 * the apiserver; this matters for the offline `validate` CLI, which reads raw
 * YAML.
 */

export const text = z.string({ error: "must be a string" });
export const wholeNumber = z.int({ error: "must be a whole number" });
/**
 * A field whose rule judges the raw value itself: an enumerated field (its
 * message lists the allowed values whatever was given), a nested object or a
 * list decoded by its own shape.
 */
export const anyValue = z.unknown().optional();

export type LenientShape = Readonly<Record<string, z.ZodType>>;
export type Lenient<S extends LenientShape> = { -readonly [K in keyof S]?: z.output<S[K]> };

/**
 * The fields of `shape` read from `raw`. An absent or null object decodes as
 * empty (its required fields are then reported by the rules). A value that is
 * not an object, or an object with a mistyped field, is reported and yields
 * undefined: the object's other rules wait until its types are right, rather
 * than guessing from a half-read object (a dropped `image: 5` would also read
 * as "image is required").
 */
export function decodeLeniently<S extends LenientShape>(
  shape: S,
  raw: unknown,
  at: PathSegments,
  report: ReportViolation,
): Lenient<S> | undefined {
  if (raw === undefined || raw === null) return {};
  if (!isJsonObject(raw)) {
    report("cocoonset.field-types", () =>
      violation("cocoonset.field-types", at, `must be an object, got ${describeJson(raw)}`),
    );
    return undefined;
  }
  // Most of a large object's entries carry few or none of the shape's keys:
  // walking the entry's own keys first is far cheaper than looking up every
  // shape key in it (a CocoonSet may hold a million toolboxes), and such an
  // entry shares one empty result.
  if (!hasAnyKeyOf(shape, raw)) return NOTHING_DECODED;
  const decoded: Lenient<S> = {};
  let mistyped = false;
  for (const key of keysOf(shape)) {
    const value = raw[key];
    if (value === undefined || value === null) continue;
    const result = shape[key]?.safeParse(value);
    if (result?.success) {
      decoded[key] = result.data as z.output<S[typeof key]>;
      continue;
    }
    mistyped = true;
    const expected = result?.error.issues[0]?.message ?? "has the wrong type";
    report("cocoonset.field-types", () =>
      violation("cocoonset.field-types", [...at, key], `${expected}, got ${describeJson(value)}`),
    );
  }
  return mistyped ? undefined : decoded;
}

const NOTHING_DECODED: Readonly<Record<string, never>> = Object.freeze({});

function hasAnyKeyOf(shape: LenientShape, raw: Record<string, unknown>): boolean {
  for (const key in raw) if (Object.hasOwn(shape, key)) return true;
  return false;
}

const shapeKeys = new WeakMap<LenientShape, readonly string[]>();

/** The keys of a shape, listed once: a CocoonSet may hold a million toolboxes. */
function keysOf<S extends LenientShape>(shape: S): readonly (keyof S & string)[] {
  let keys = shapeKeys.get(shape);
  if (!keys) {
    keys = Object.keys(shape);
    shapeKeys.set(shape, keys);
  }
  return keys as readonly (keyof S & string)[];
}
