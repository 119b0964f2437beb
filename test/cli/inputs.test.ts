import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readInputs } from "../../src/cli/inputs";

const root = mkdtempSync(join(tmpdir(), "cocoon-inputs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const noStdin = async () => "";

function tree(files: Record<string, string>): string {
  const directory = mkdtempSync(join(root, "tree-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(directory, name, ".."), { recursive: true });
    writeFileSync(join(directory, name), text);
  }
  return directory;
}

describe("readInputs", () => {
  test("a directory without manifests is a problem naming it", async () => {
    const directory = tree({ "notes.txt": "x", ".hidden/a.yaml": "a: 1\n" });
    const { sources, problems } = await readInputs([directory], noStdin);
    expect(sources).toEqual([]);
    expect(problems).toEqual([
      { file: directory, message: "holds no manifest (no *.yaml, *.yml or *.json file)" },
    ]);
  });

  test("an unexpanded glob is expanded, in name order, directories walked", async () => {
    const directory = tree({
      "b.yaml": "b: 1\n",
      "a.yaml": "a: 1\n",
      "c.txt": "c",
      "sub/d.yml": "d: 1\n",
      "sub/e.txt": "e",
    });
    const { sources, problems } = await readInputs([join(directory, "*")], noStdin);
    expect(problems).toEqual([]);
    expect(sources.map((source) => source.file)).toEqual(
      ["a.yaml", "b.yaml", "c.txt", "sub/d.yml"].map((name) => join(directory, name)),
    );
    const recursive = await readInputs([join(directory, "**/*.y*ml")], noStdin);
    expect(recursive.sources.map((source) => source.file)).toEqual(
      ["a.yaml", "b.yaml", "sub/d.yml"].map((name) => join(directory, name)),
    );
  });

  test("a glob that matches no manifest is a problem naming it", async () => {
    const directory = tree({ "a.txt": "a" });
    for (const pattern of [join(directory, "*.yaml"), join(directory, "missing/*.yaml")]) {
      const { sources, problems } = await readInputs([pattern], noStdin);
      expect(sources).toEqual([]);
      expect(problems).toEqual([
        { file: pattern, message: "matches no manifest (no *.yaml, *.yml or *.json file)" },
      ]);
    }
  });

  test("a relative glob is read from the working directory", async () => {
    const { sources, problems } = await readInputs(
      ["test/fixtures/validate/hibernations/*.yaml"],
      noStdin,
    );
    expect(problems).toEqual([]);
    expect(sources.map((source) => source.file)).toEqual([
      "test/fixtures/validate/hibernations/first.yaml",
      "test/fixtures/validate/hibernations/second.yaml",
    ]);
  });

  test("a missing plain path stays a read error", async () => {
    const { problems } = await readInputs([join(root, "nope.yaml")], noStdin);
    expect(problems).toEqual([
      { file: join(root, "nope.yaml"), message: "cannot read: no such file or directory" },
    ]);
  });
});
