import { parseArgs } from "node:util";
import { z } from "zod";
import { errorText } from "../errors";
import { checkObjects } from "./check";
import { parseSource, type SourceObject } from "./documents";
import { type InputProblem, readInputs } from "./inputs";
import { OUTPUT_FORMATS, problemLine, render } from "./report";

export const VALIDATE_USAGE = `usage: cocoon-webhook validate [-f PATH]... [PATH]... [-n NAMESPACE] [-o text|json]

Checks CocoonSet and CocoonHibernation manifests offline with the webhook's own rules.

  -f, --filename PATH   a file, a directory (its *.yaml, *.yml, *.json files, recursively,
                        hidden entries skipped) or - for stdin; repeatable; PATH arguments
                        without -f count the same
  -n, --namespace NS    namespace for objects without metadata.namespace (default "default")
  -o, --output FORMAT   text (default) or json
  -h, --help            show this help

exit status: 0 all valid, 1 violations found, 2 usage error or unreadable/unparsable input
`;

const EXIT_VALID = 0;
const EXIT_VIOLATIONS = 1;
const EXIT_UNUSABLE = 2;

const optionsSchema = z.object({
  filename: z.array(z.string()).default([]),
  namespace: z.string().min(1, "--namespace must not be empty").default("default"),
  output: z.enum(OUTPUT_FORMATS, { error: '--output must be "text" or "json"' }).default("text"),
  help: z.boolean().default(false),
});

export interface ValidateIo {
  readonly readStdin: () => Promise<string>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const processIo: ValidateIo = {
  readStdin: () => Bun.stdin.text(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** `cocoon-webhook validate …`; resolves to the exit status. */
export async function runValidate(args: readonly string[], io = processIo): Promise<number> {
  const options = parseOptions(args);
  if ("error" in options) {
    io.stderr(`cocoon-webhook validate: ${options.error}\n${VALIDATE_USAGE}`);
    return EXIT_UNUSABLE;
  }
  if (options.help) {
    io.stdout(VALIDATE_USAGE);
    return EXIT_VALID;
  }
  const { sources, problems } = await readInputs(options.paths, io.readStdin);
  const objects: SourceObject[] = [];
  const unparsable: InputProblem[] = [];
  for (const source of sources) {
    const parsed = parseSource(source);
    if (parsed.problem) unparsable.push(parsed.problem);
    else objects.push(...parsed.objects);
  }
  const summary = checkObjects(objects, options.namespace);
  const unusable = [...problems, ...unparsable];
  for (const problem of unusable) io.stderr(`cocoon-webhook validate: ${problemLine(problem)}\n`);
  const output = render(options.output, summary, sources.length, unusable.length);
  io.stdout(output.stdout);
  io.stderr(output.stderr);
  if (unusable.length > 0) return EXIT_UNUSABLE;
  return summary.findings.length > 0 ? EXIT_VIOLATIONS : EXIT_VALID;
}

type ValidateOptions = Omit<z.infer<typeof optionsSchema>, "filename"> & {
  readonly paths: string[];
};

function parseOptions(args: readonly string[]): ValidateOptions | { error: string } {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(args);
  } catch (error) {
    return { error: errorText(error) };
  }
  const options = optionsSchema.safeParse(parsed.values);
  if (!options.success) return { error: options.error.issues.map((i) => i.message).join("; ") };
  const { filename, ...rest } = options.data;
  const paths = [...filename, ...parsed.positionals];
  if (paths.length === 0 && !rest.help) {
    // Waiting on stdin would hang a CI job that forgot its -f; ask for `-f -` instead.
    return {
      error: "name the manifests to check: -f PATH (a file or directory), or -f - for stdin",
    };
  }
  return { ...rest, paths };
}

function parseCommandLine(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    options: {
      filename: { type: "string", short: "f", multiple: true },
      namespace: { type: "string", short: "n" },
      output: { type: "string", short: "o" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
    strict: true,
  });
}
