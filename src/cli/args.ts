import { z } from "zod";
import { errorText } from "../bounded-text";
import { closestMatch } from "./did-you-mean";

/**
 * A flag as people type it: `--output json`, `--output=json`, `-o json`, `-o=json`, `-ojson`.
 * (node:util's parseArgs reads `-o=json` as the value `=json`, hence this parser.)
 */
export interface FlagSpec {
  readonly long: string;
  readonly short?: string;
  readonly takesValue: boolean;
}

export interface ParsedArgs {
  /** Each flag's values in order (`"true"` for a flag without a value). */
  readonly flags: ReadonlyMap<string, readonly string[]>;
  readonly positionals: readonly string[];
}

/**
 * Splits `args` by `specs`. `-` alone is a positional (stdin); after `--`
 * everything is. Throws an Error naming the flag for an unknown flag, a
 * missing value, or a value given to a flag that takes none.
 */
export function parseArgs(args: readonly string[], specs: readonly FlagSpec[]): ParsedArgs {
  const flags = new Map<string, string[]>();
  const positionals: string[] = [];
  const add = (spec: FlagSpec, value: string) => {
    flags.set(spec.long, [...(flags.get(spec.long) ?? []), value]);
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? "";
    if (arg === "--") {
      positionals.push(...args.slice(index + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      positionals.push(arg);
      continue;
    }
    const { spec, inline, typed } = lookUp(arg, specs);
    if (!spec.takesValue) {
      if (inline !== undefined) throw new Error(`${typed} takes no value, got "${inline}"`);
      add(spec, "true");
      continue;
    }
    if (inline !== undefined) {
      add(spec, inline);
      continue;
    }
    const next = args[index + 1];
    if (next === undefined) throw new Error(`${typed} needs a value`);
    add(spec, next);
    index++;
  }
  return { flags, positionals };
}

function lookUp(
  arg: string,
  specs: readonly FlagSpec[],
): { spec: FlagSpec; inline: string | undefined; typed: string } {
  if (arg.startsWith("--")) {
    const equals = arg.indexOf("=");
    const name = equals < 0 ? arg.slice(2) : arg.slice(2, equals);
    const spec = specs.find((each) => each.long === name);
    if (!spec) throw unknownFlag(`--${name}`, specs);
    return { spec, inline: equals < 0 ? undefined : arg.slice(equals + 1), typed: `--${name}` };
  }
  const letter = arg.slice(1, 2);
  const spec = specs.find((each) => each.short === letter);
  if (!spec) throw unknownFlag(`-${letter}`, specs);
  const rest = arg.slice(2);
  const inline = rest === "" ? undefined : rest.startsWith("=") ? rest.slice(1) : rest;
  if (!spec.takesValue && inline !== undefined) {
    throw new Error(`-${letter} takes no value, got "${inline}" (give each flag on its own)`);
  }
  return { spec, inline, typed: `-${letter}` };
}

function unknownFlag(flag: string, specs: readonly FlagSpec[]): Error {
  const names = specs.flatMap((spec) => [
    `--${spec.long}`,
    ...(spec.short ? [`-${spec.short}`] : []),
  ]);
  const meant = flag.startsWith("--") ? closestMatch(flag, names) : undefined;
  return new Error(`unknown flag ${flag}${meant ? `; did you mean ${meant}?` : ""}`);
}

/**
 * `args` split by `specs` and read through `schema`, or the first problem:
 * a flag `parseArgs` refuses, then `positionalProblem`, then the schema's.
 */
export function readOptions<Options>(
  args: readonly string[],
  specs: readonly FlagSpec[],
  schema: z.ZodType<Options>,
  positionalProblem: (positionals: readonly string[]) => string | undefined = () => undefined,
):
  | { readonly options: Options; readonly positionals: readonly string[] }
  | { readonly error: string } {
  let parsed: ParsedArgs;
  try {
    parsed = parseArgs(args, specs);
  } catch (error) {
    return { error: errorText(error) };
  }
  const problem = positionalProblem(parsed.positionals);
  if (problem !== undefined) return { error: problem };
  const options = schema.safeParse(Object.fromEntries(parsed.flags));
  if (!options.success) {
    return { error: options.error.issues.map((issue) => issue.message).join("; ") };
  }
  return { options: options.data, positionals: parsed.positionals };
}

/** A flag's value as options read it: the last one given wins. */
export const lastValue = z
  .array(z.string())
  .optional()
  .transform((values) => values?.at(-1));

/** A flag without a value: whether it was given. */
export const present = lastValue.transform((value) => value !== undefined);
