/*
 * Writes .github/action-inputs.yaml: for every action the workflows (and the
 * workflow examples in docs/) pin to a commit, the inputs its action.yml
 * declares at that commit. actionlint knows the inputs of popular actions by
 * tag, not by commit, so with SHA pins it checks none; test/release/action-inputs.test.ts
 * checks every `with:` against this table instead, offline. Run it after
 * changing a pin (Dependabot's updates included):
 *
 *   bun scripts/action-inputs.ts                  action.yml from raw.githubusercontent.com,
 *                                                 the pin comment's tag checked with GitHub's API
 *   bun scripts/action-inputs.ts --git-dirs DIR   both from bare clones DIR/<owner>+<repo>/repo
 *
 * The version recorded is the commit's own vX.Y.Z tag, not the pin's comment,
 * so the test also catches a comment that names another release.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { z } from "zod";
import { ACTION_INPUTS_FILE, type ActionInputs, type Pin, pinnedActions } from "./workflow-pins";

const REPO_ROOT = resolve(import.meta.dir, "..");
const HEADER = `# The inputs of each action the workflows pin to a commit, from its action.yml at
# that commit; \`required\` lists those without a default. Written by
# scripts/action-inputs.ts (run it after changing a pin); test/release/action-inputs.test.ts
# checks every \`with:\` against it.`;

const actionSchema = z.object({
  inputs: z
    .record(
      z.string(),
      z.object({ required: z.boolean().optional(), default: z.unknown().optional() }).nullable(),
    )
    .optional(),
});

/** The table entry of one action.yml: its inputs, and those required without a default. */
export function inputsOf(actionYaml: string, version: string): ActionInputs {
  const inputs = Object.entries(actionSchema.parse(parse(actionYaml)).inputs ?? {});
  return {
    version,
    inputs: inputs.map(([name]) => name).sort(),
    required: inputs
      .filter(([, input]) => input?.required === true && input.default === undefined)
      .map(([name]) => name)
      .sort(),
  };
}

/** Reads a pinned commit's files and release tag, from a bare clone or from GitHub. */
interface Source {
  file(pin: Pin, path: string): Promise<string | undefined>;
  /** The vX.Y.Z tag of the pinned commit, found independently of the pin's comment. */
  version(pin: Pin): Promise<string>;
}

function gitSource(gitDirs: string): Source {
  const git = (pin: Pin, ...args: string[]) => {
    const [owner, repo] = pin.action.split("/");
    const gitDir = join(gitDirs, `${owner}+${repo}`, "repo");
    const result = Bun.spawnSync(["git", "--git-dir", gitDir, ...args]);
    return result.exitCode === 0 ? result.stdout.toString() : undefined;
  };
  return {
    file: async (pin, path) => git(pin, "show", `${pin.sha}:${path}`),
    version: async (pin) => {
      const tags = (git(pin, "tag", "--points-at", pin.sha) ?? "").split("\n");
      const release = tags.find((tag) => /^v\d+\.\d+\.\d+$/.test(tag));
      if (!release) throw new Error(`${pin.action}@${pin.sha} has no vX.Y.Z tag`);
      return release;
    },
  };
}

const gitHubSource: Source = {
  file: async (pin, path) => {
    const [owner, repo] = pin.action.split("/");
    const response = await fetch(
      `https://raw.githubusercontent.com/${owner}/${repo}/${pin.sha}/${path}`,
    );
    return response.ok ? response.text() : undefined;
  },
  version: async (pin) => {
    const [owner, repo] = pin.action.split("/");
    const response = await fetch(
      `https://api.github.com/repos/${owner}/${repo}/commits/${pin.version}`,
    );
    const { sha } = z.object({ sha: z.string() }).parse(await response.json());
    if (sha !== pin.sha)
      throw new Error(`${pin.action}: tag ${pin.version} is ${sha}, not ${pin.sha}`);
    return pin.version;
  },
};

async function tableEntry(pin: Pin, source: Source): Promise<ActionInputs> {
  const path = pin.action.split("/").slice(2);
  for (const file of ["action.yml", "action.yaml"]) {
    const text = await source.file(pin, [...path, file].join("/"));
    if (text !== undefined) return inputsOf(text, await source.version(pin));
  }
  throw new Error(`no action.yml for ${pin.action}@${pin.sha}`);
}

if (import.meta.main) {
  const flag = process.argv.indexOf("--git-dirs");
  const gitDirs = flag < 0 ? undefined : process.argv[flag + 1];
  const source = gitDirs ? gitSource(gitDirs) : gitHubSource;
  const table: Record<string, ActionInputs> = {};
  for (const pin of pinnedActions(REPO_ROOT)) {
    const key = `${pin.action}@${pin.sha}`;
    table[key] ??= await tableEntry(pin, source);
  }
  const sorted = Object.fromEntries(Object.entries(table).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(join(REPO_ROOT, ACTION_INPUTS_FILE), `${HEADER}\n${stringify(sorted)}`);
}
