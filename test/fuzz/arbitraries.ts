import fc from "fast-check";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Path = readonly (string | number)[];

/** Any JSON value, nested a few levels. */
export const anyJson: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json>;

/** A value of some JSON type, biased towards the ones that break naive decoders. */
export const wrongValue: fc.Arbitrary<Json> = fc.oneof<fc.Arbitrary<Json>[]>(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constant(-1),
  fc.string(),
  fc.constant(""),
  fc.constant([]),
  fc.constant({}),
  fc.array(anyJson, { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 4 }),
  anyJson,
);

const isRecord = (value: unknown): value is Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every path in `value` that leads to a value (the root excluded), depth first. */
export function allPaths(value: Json, prefix: Path = []): Path[] {
  const children: [string | number, Json][] = Array.isArray(value)
    ? value.map((child, index) => [index, child])
    : isRecord(value)
      ? Object.entries(value)
      : [];
  return children.flatMap(([key, child]) => {
    const path = [...prefix, key];
    return [path, ...allPaths(child, path)];
  });
}

/** A deep copy of `value` with the value at `path` replaced by `replacement`. */
export function replaceAt(value: Json, path: Path, replacement: Json): Json {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  if (Array.isArray(value) && typeof head === "number") {
    return value.map((child, index) =>
      index === head ? replaceAt(child, rest, replacement) : child,
    );
  }
  if (isRecord(value) && typeof head === "string") {
    return { ...value, [head]: replaceAt(value[head] ?? null, rest, replacement) };
  }
  return value;
}

/** `value` with the value at one of its paths replaced by a value of a random (usually wrong) type. */
export function corruptedAnywhere(value: Json): fc.Arbitrary<{ path: Path; corrupted: Json }> {
  const paths = allPaths(value);
  return fc
    .tuple(fc.constantFrom(...paths), wrongValue)
    .map(([path, replacement]) => ({ path, corrupted: replaceAt(value, path, replacement) }));
}

/** Bounded runs: these properties run inside `make test`. */
export const RUNS = { numRuns: 300 } as const;
