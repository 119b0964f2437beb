import { z } from "zod";
import { readCappedStream } from "../../safe-file";
import { lastValue, present, readOptions } from "../args";
import { OUTPUT_FORMATS } from "../formats/render";
import {
  answerWithoutRunning,
  type CliIo,
  collectorPastSoftLimit,
  EXIT_CLEAN,
  EXIT_FINDINGS,
  EXIT_UNUSABLE,
  isRunnable,
  type ParsedOptions,
  processCliIo,
} from "../subcommand";
import { createObjectChecker } from "./check";
import { parseSource, type SourceObject } from "./documents";
import { type InputProblem, readInputs, STDIN_NAME } from "./inputs";
import { errorCount, render } from "./output";

export const VALIDATE_USAGE = `usage: cocoon-webhook validate [FLAGS] [-f PATH]... [PATH]...

Checks CocoonSet and CocoonHibernation manifests offline with the webhook's own rules,
and reports fields their CRD does not define and cocoonstack.io objects it does not know.

  -f, --filename PATH   a file, a directory (its *.yaml, *.yml, *.json files, recursively,
                        hidden entries skipped), a glob ('deploy/**/*.yaml', quoted so
                        the shell leaves it) or - for stdin; repeatable; PATH arguments
                        without -f count the same
  -n, --namespace NS    namespace for objects without metadata.namespace (default "default")
  -o, --output FORMAT   text (default), json, junit, sarif or github (workflow annotations)
      --strict          unknown fields and unknown cocoon objects are errors, not warnings
  -v, --version         print the version and exit
  -h, --help            show this help

Flags take their value as -o json, -o=json, --output json or --output=json.

examples:
  cocoon-webhook validate deploy/
  cocoon-webhook validate --strict -o github -f deploy/ -f extra/set.yaml
  cocoon-webhook validate -o sarif deploy/ > cocoon.sarif
  cocoon-webhook validate -o junit -n team-a deploy/ > cocoon-junit.xml
  kustomize build overlays/prod | cocoon-webhook validate -f -

exit status: 0 no error (warnings allowed), 1 findings at error level,
             2 usage error or unreadable/unparsable input
`;

const optionsSchema = z.object({
  filename: z.array(z.string()).default([]),
  namespace: lastValue.pipe(z.string().min(1, "--namespace must not be empty").default("default")),
  output: lastValue.pipe(
    z
      .enum(OUTPUT_FORMATS, { error: `--output must be one of ${OUTPUT_FORMATS.join(", ")}` })
      .default("text"),
  ),
  strict: present,
  version: present,
  help: present,
});

const SHORT_FLAGS = { filename: "f", namespace: "n", output: "o", version: "v", help: "h" };

export interface ValidateIo extends CliIo {
  readonly readStdin: (maxBytes: number) => Promise<string>;
}

const processIo: ValidateIo = {
  ...processCliIo,
  readStdin: (maxBytes) => readCappedStream(Bun.stdin.stream(), STDIN_NAME, maxBytes),
};

const DOCUMENTS_BETWEEN_MEMORY_CHECKS = 1000;

export async function runValidate(args: readonly string[], io = processIo): Promise<number> {
  const options = parseOptions(args);
  if (!isRunnable(options)) return answerWithoutRunning("validate", VALIDATE_USAGE, options, io);
  const checker = createObjectChecker({ ...options, listChecked: options.output === "junit" });
  const collectPastSoftLimit = collectorPastSoftLimit(DOCUMENTS_BETWEEN_MEMORY_CHECKS);
  const check = (object: SourceObject) => {
    checker.check(object);
    collectPastSoftLimit();
  };
  const problems: InputProblem[] = [];
  let files = 0;
  for await (const input of readInputs(options.paths, io.readStdin)) {
    if ("problem" in input) {
      problems.push(input.problem);
      continue;
    }
    files++;
    const unparsable = parseSource(input.source, check);
    if (unparsable) problems.push(unparsable);
  }
  const summary = checker.summary();
  const report = { summary, files, problems };
  const output = render(options.output, report, { sharedStream: io.stderrSharesStdout() });
  await io.stdout(output.stdout);
  await io.stderr(output.stderr);
  if (report.problems.length > 0) return EXIT_UNUSABLE;
  return errorCount(summary.findings) > 0 ? EXIT_FINDINGS : EXIT_CLEAN;
}

type ValidateOptions = Omit<z.infer<typeof optionsSchema>, "filename"> & {
  readonly paths: string[];
};

function parseOptions(args: readonly string[]): ParsedOptions<ValidateOptions> {
  const read = readOptions(args, optionsSchema, SHORT_FLAGS);
  if ("error" in read) return read;
  const { filename, ...rest } = read.options;
  const paths = [...filename, ...read.positionals];
  if (paths.length === 0 && !rest.help && !rest.version) {
    // Waiting on stdin would hang a CI job that forgot its -f; ask for `-f -` instead.
    return {
      error: "name the manifests to check: -f PATH (a file or directory), or -f - for stdin",
    };
  }
  return { ...rest, paths };
}
