import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parse } from "yaml";
import { runValidate } from "../../src/cli/validate/command";

const ROOT = join(import.meta.dir, "../..");
const FIXTURES = join(ROOT, "test/fixtures/validate");

interface Hook {
  id: string;
  entry: string;
  language: string;
  files: string;
  require_serial?: boolean;
}

const [hook] = parse(readFileSync(join(ROOT, ".pre-commit-hooks.yaml"), "utf8")) as Hook[];

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

/** What pre-commit runs: the entry's arguments, then every staged file its `files` pattern matches. */
async function runHook(directory: string): Promise<{ code: number; stdout: string }> {
  if (!hook) throw new Error("no hook");
  const pattern = new RegExp(hook.files);
  const staged = filesUnder(directory).filter((file) => pattern.test(file));
  let stdout = "";
  const [binary, command, ...args] = hook.entry.split(" ");
  expect([binary, command]).toEqual(["cocoon-webhook", "validate"]);
  const code = await runValidate([...args, ...staged], {
    readStdin: async () => "",
    stdout: async (text) => {
      stdout += text;
    },
    stderr: async () => {},
    stderrSharesStdout: () => false,
  });
  return { code, stdout };
}

describe(".pre-commit-hooks.yaml", () => {
  test("runs cocoon-webhook validate on YAML and JSON files, in one process", () => {
    expect(hook).toMatchObject({
      id: "cocoon-webhook-validate",
      entry: "cocoon-webhook validate",
      language: "system",
      require_serial: true,
    });
    const pattern = new RegExp(hook?.files ?? "");
    expect(["a.yaml", "b.yml", "deploy/c.json"].every((file) => pattern.test(file))).toBe(true);
    expect(["notes.txt", "broken.yaml.txt", "yaml"].some((file) => pattern.test(file))).toBe(false);
  });

  test("fails a commit with an invalid manifest and passes a valid one", async () => {
    const invalid = await runHook(join(FIXTURES, "invalid"));
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toContain("test/fixtures/validate/invalid/set.json:7:7: error:");
    expect((await runHook(join(FIXTURES, "valid"))).code).toBe(0);
  });
});
