import { parseArgs as parseArgsOf } from "node:util";
import { z } from "zod";
import { errorText } from "../bounded-text";
import { closestMatch } from "./did-you-mean";

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

export function parseArgs(args: readonly string[], specs: readonly FlagSpec[]): ParsedArgs {
  const options = Object.fromEntries(
    specs.map(({ long, short, takesValue }) => [
      long,
      {
        type: takesValue ? ("string" as const) : ("boolean" as const),
        ...(short ? { short } : {}),
      },
    ]),
  );
  // Not strict: its errors do not name the flag the way a person typed it.
  const { tokens } = parseArgsOf({ args: [...args], options, strict: false, tokens: true });
  const flags = new Map<string, string[]>();
  const positionals: string[] = [];
  let previous: { index: number; rawName: string } | undefined;
  for (const token of tokens) {
    if (token.kind === "positional") positionals.push(token.value);
    if (token.kind !== "option") continue;
    if (token.index === previous?.index) {
      // `-vh`: parseArgs reads a group of short flags; one flag per argument is asked.
      const rest = (args[token.index] ?? "").slice(2).replace(/^=/, "");
      throw new Error(
        `${previous.rawName} takes no value, got "${rest}" (give each flag on its own)`,
      );
    }
    const spec = specs.find((each) => each.long === token.name);
    if (!spec) throw unknownFlag(token.rawName, specs);
    previous = token;
    // `-o=json` arrives as the value `=json`.
    const value = token.rawName.startsWith("--") ? token.value : token.value?.replace(/^=/, "");
    if (!spec.takesValue && value !== undefined) {
      throw new Error(`${token.rawName} takes no value, got "${value}"`);
    }
    if (spec.takesValue && value === undefined) throw new Error(`${token.rawName} needs a value`);
    flags.set(spec.long, [...(flags.get(spec.long) ?? []), value ?? "true"]);
  }
  return { flags, positionals };
}

function unknownFlag(flag: string, specs: readonly FlagSpec[]): Error {
  const names = specs.flatMap((spec) => [
    `--${spec.long}`,
    ...(spec.short ? [`-${spec.short}`] : []),
  ]);
  const meant = flag.startsWith("--") ? closestMatch(flag, names) : undefined;
  return new Error(`unknown flag ${flag}${meant ? `; did you mean ${meant}?` : ""}`);
}

/** The schema's keys are the long flags; one read as `present` takes no value. */
export function readOptions<Schema extends z.ZodObject>(
  args: readonly string[],
  schema: Schema,
  shorts: Readonly<Partial<Record<keyof Schema["shape"], string>>>,
  positionalProblem: (positionals: readonly string[]) => string | undefined = () => undefined,
):
  | { readonly options: z.infer<Schema>; readonly positionals: readonly string[] }
  | { readonly error: string } {
  const specs = Object.entries(schema.shape).map(([long, flag]) => ({
    long,
    short: shorts[long],
    takesValue: flag !== present,
  }));
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

/** The last value given wins. */
export const lastValue = z
  .array(z.string())
  .optional()
  .transform((values) => values?.at(-1));

export const present = lastValue.transform((value) => value !== undefined);
