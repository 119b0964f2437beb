import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type InputProblem,
  MAX_INPUT_BYTES,
  readInputs,
  type SourceText,
} from "../../src/cli/validate/inputs";
import { readCappedStream } from "../../src/safe-file";

const root = mkdtempSync(join(tmpdir(), "cocoon-inputs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const noStdin = async () => "";

/** Every input of `paths`, read to the end. */
async function readAll(
  paths: string[],
  readStdin: (maxBytes: number) => Promise<string> = noStdin,
) {
  const sources: SourceText[] = [];
  const problems: InputProblem[] = [];
  for await (const input of readInputs(paths, readStdin)) {
    if ("problem" in input) problems.push(input.problem);
    else sources.push(input.source);
  }
  return { sources, problems };
}

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
    const { sources, problems } = await readAll([directory]);
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
    const { sources, problems } = await readAll([join(directory, "*")]);
    expect(problems).toEqual([]);
    expect(sources.map((source) => source.file)).toEqual(
      ["a.yaml", "b.yaml", "c.txt", "sub/d.yml"].map((name) => join(directory, name)),
    );
    const recursive = await readAll([join(directory, "**/*.y*ml")]);
    expect(recursive.sources.map((source) => source.file)).toEqual(
      ["a.yaml", "b.yaml", "sub/d.yml"].map((name) => join(directory, name)),
    );
  });

  test("a glob that matches no manifest is a problem naming it", async () => {
    const directory = tree({ "a.txt": "a" });
    for (const pattern of [join(directory, "*.yaml"), join(directory, "missing/*.yaml")]) {
      const { sources, problems } = await readAll([pattern]);
      expect(sources).toEqual([]);
      expect(problems).toEqual([
        { file: pattern, message: "matches no manifest (no *.yaml, *.yml or *.json file)" },
      ]);
    }
  });

  test("a relative glob is read from the working directory", async () => {
    const { sources, problems } = await readAll(["test/fixtures/validate/hibernations/*.yaml"]);
    expect(problems).toEqual([]);
    expect(sources.map((source) => source.file)).toEqual([
      "test/fixtures/validate/hibernations/first.yaml",
      "test/fixtures/validate/hibernations/second.yaml",
    ]);
  });

  test("a missing plain path stays a read error", async () => {
    const { problems } = await readAll([join(root, "nope.yaml")]);
    expect(problems).toEqual([
      { file: join(root, "nope.yaml"), message: "cannot read: no such file or directory" },
    ]);
  });

  test("only regular files are read: a FIFO or a device named *.yaml is refused unread, in a directory too", async () => {
    const directory = tree({ "a.yaml": "a: 1\n" });
    const fifo = join(directory, "pipe.yaml");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const zero = join(directory, "zero.yaml");
    symlinkSync("/dev/zero", zero);
    const named = await readAll([fifo, zero]);
    expect(named.sources).toEqual([]);
    expect(named.problems).toEqual([
      { file: fifo, message: expect.stringContaining(`${fifo} is a FIFO, not a regular file`) },
      {
        file: zero,
        message: expect.stringContaining(`${zero} is a character device, not a regular file`),
      },
    ]);
    const walked = await readAll([directory]);
    expect(walked.sources.map((source) => source.file)).toEqual([join(directory, "a.yaml")]);
    expect(walked.problems.map((problem) => problem.file)).toEqual([fifo, zero]);
  });

  test(`a file over ${MAX_INPUT_BYTES} bytes is refused by its size, unread`, async () => {
    const directory = tree({});
    const big = join(directory, "big.yaml");
    writeFileSync(big, "");
    Bun.spawnSync(["truncate", "-s", String(MAX_INPUT_BYTES + 1), big]);
    expect((await readAll([big])).problems).toEqual([
      {
        file: big,
        message: `cannot read: ${big} is ${MAX_INPUT_BYTES + 1} bytes, over the ${MAX_INPUT_BYTES}-byte limit`,
      },
    ]);
  });

  test("stdin is read once, within the same cap", async () => {
    let reads = 0;
    const stdin = async (maxBytes: number) => {
      reads++;
      expect(maxBytes).toBe(MAX_INPUT_BYTES);
      return "a: 1\n";
    };
    const { sources } = await readAll(["-", "-"], stdin);
    expect(sources).toEqual([
      { file: "<stdin>", text: "a: 1\n" },
      { file: "<stdin>", text: "a: 1\n" },
    ]);
    expect(reads).toBe(1);
  });
});

describe("readCappedStream", () => {
  const endless = () =>
    new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(64 * 1024)),
    });

  test("an endless stream is refused at the cap", async () => {
    await expect(readCappedStream(endless(), "<stdin>", 1024 * 1024)).rejects.toThrow(
      "<stdin> is larger than the 1048576-byte limit",
    );
  });

  test("a stream within the cap is its text", async () => {
    const stream = new Blob(["a: 1\n", "b: 2\n"]).stream();
    expect(await readCappedStream(stream, "<stdin>", 10)).toBe("a: 1\nb: 2\n");
  });
});
