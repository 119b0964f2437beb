import {
  type CelInput,
  CelScalar,
  celEnv,
  celFunc,
  isCelError,
  isCelMap,
  parse,
  plan,
} from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import type { Json } from "./kustomize";

/*
 * The apiserver evaluates matchConditions with cel-go; the tests evaluate
 * them with @bufbuild/cel. The two disagree on one point that matters here:
 * for a key whose value is null, cel-go's has() says present and
 * @bufbuild/cel's says absent. Expressions that guard every field with both
 * has() and `!= null` give the same verdict either way; `evaluate` runs an
 * expression under both readings so a test can prove it.
 *
 * The cel-go reading is modelled by rewriting `has(path.field)` into
 * `present(path, 'field')`, a function that answers from the map's keys.
 * Whole numbers are bound as CEL ints, as the apiserver's unstructured
 * objects carry them (int64), not as doubles.
 */

/** An expression as the apiserver reads it from the manifest's folded block: lines joined with spaces. */
export const asFolded = (expression: string): string => expression.replaceAll("\n", " ");

export type NullReading = "null-is-absent" | "null-is-present";
export const NULL_READINGS: readonly NullReading[] = ["null-is-absent", "null-is-present"];

const HAS_FIELD = /\bhas\(\s*([A-Za-z_][\w.]*)\.([A-Za-z_]\w*)\s*\)/g;

const present = celFunc(
  "present",
  [CelScalar.DYN, CelScalar.STRING],
  CelScalar.BOOL,
  (map, key) => isCelMap(map) && [...map.keys()].includes(key),
);

/** `value` as the apiserver binds it: whole numbers as ints, everything else unchanged. */
export function toCelInput(value: Json): CelInput {
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCelInput);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [key, toCelInput(child)]),
    ) as CelInput;
  }
  return value;
}

export type Program = (bindings: { [name: string]: Json }) => boolean;

/** Compiles a boolean matchCondition expression under one reading of null. */
export function compileCondition(expression: string, reading: NullReading): Program {
  const source =
    reading === "null-is-present" ? expression.replace(HAS_FIELD, "present($1, '$2')") : expression;
  if (reading === "null-is-present" && source === expression && expression.includes("has(")) {
    throw new Error(`cannot model cel-go's has() in: ${expression}`);
  }
  const program = plan(celEnv({ funcs: [present, ...strings] }), parse(source));
  return (bindings) => {
    const input = Object.fromEntries(
      Object.entries(bindings).map(([name, value]) => [name, toCelInput(value)]),
    );
    const result = program(input);
    if (isCelError(result)) {
      throw new Error(
        `errored (${result.message}) under ${reading} on ${JSON.stringify(bindings)}`,
      );
    }
    if (typeof result !== "boolean") throw new Error(`returned ${String(result)} under ${reading}`);
    return result;
  };
}
