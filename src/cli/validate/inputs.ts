import { existsSync, readdirSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { errorText } from "../../bounded-text";
import { readRegularFile } from "../../safe-file";

export interface SourceText {
  readonly file: string;
  readonly text: string;
}

export interface InputProblem {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
}

/** Bytes of one input (a file, or stdin): far more than a large `kustomize build` writes. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

const STDIN_PATH = "-";
export const STDIN_NAME = "<stdin>";
const MANIFEST_EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

export type Input = { readonly source: SourceText } | { readonly problem: InputProblem };

/**
 * Globs are for the ones a shell leaves unexpanded (quoted, or no match). A directory or glob that
 * yields no file is a problem: a mistyped path must not pass CI as "0 files".
 */
export async function* readInputs(
  paths: readonly string[],
  readStdin: (maxBytes: number) => Promise<string>,
): AsyncGenerator<Input> {
  let stdinText: string | undefined;
  for (const path of paths) {
    if (path === STDIN_PATH) {
      try {
        stdinText ??= await readStdin(MAX_INPUT_BYTES);
        yield { source: { file: STDIN_NAME, text: stdinText } };
      } catch (error) {
        yield { problem: { file: STDIN_NAME, message: `cannot read: ${describeFsError(error)}` } };
      }
      continue;
    }
    const problems: InputProblem[] = [];
    for (const file of filesUnder(path, problems)) {
      let text: string;
      try {
        text = readRegularFile(file, MAX_INPUT_BYTES);
      } catch (error) {
        yield { problem: { file, message: `cannot read: ${describeFsError(error)}` } };
        continue;
      }
      yield { source: { file, text } };
    }
    for (const problem of problems) yield { problem };
  }
}

function filesUnder(path: string, problems: InputProblem[]): string[] {
  if (!existsSync(path) && GLOB_CHARACTERS.test(path)) return globMatches(path, problems);
  try {
    if (!statSync(path).isDirectory()) return [path];
  } catch (error) {
    problems.push({ file: path, message: `cannot read: ${describeFsError(error)}` });
    return [];
  }
  const files = manifestsIn(path);
  if (files.length === 0) {
    problems.push({ file: path, message: `holds no manifest (no ${MANIFEST_NAMES} file)` });
  }
  return files;
}

const GLOB_CHARACTERS = /[*?[{]/;
const MANIFEST_NAMES = "*.yaml, *.yml or *.json";

function globMatches(pattern: string, problems: InputProblem[]): string[] {
  const segments = pattern.split("/");
  const literal = segments.findIndex((segment) => GLOB_CHARACTERS.test(segment));
  const base = segments.slice(0, literal).join("/");
  const rest = segments.slice(literal).join("/");
  const cwd = pattern.startsWith("/") ? base || "/" : base || ".";
  const matches = existsSync(cwd)
    ? [...new Bun.Glob(rest).scanSync({ cwd, onlyFiles: false })].sort(byName)
    : [];
  const files = matches.flatMap((match) => {
    const path = base === "" ? match : join(base, match);
    return statSync(path).isDirectory() ? manifestsIn(path) : [path];
  });
  if (files.length === 0) {
    problems.push({ file: pattern, message: `matches no manifest (no ${MANIFEST_NAMES} file)` });
  }
  return files;
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function manifestsIn(directory: string): string[] {
  const entries = readdirSync(directory, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith("."))
    .sort((a, b) => byName(a.name, b.name));
  return entries.flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return manifestsIn(path);
    return MANIFEST_EXTENSIONS.has(extname(entry.name).toLowerCase()) ? [path] : [];
  });
}

function describeFsError(error: unknown): string {
  if (error instanceof Error && "code" in error) {
    switch (error.code) {
      case "ENOENT":
        return "no such file or directory";
      case "EACCES":
        return "permission denied";
      case "EISDIR":
        return "is a directory";
    }
  }
  return errorText(error);
}
