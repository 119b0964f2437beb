import { describe, expect, test } from "bun:test";
import type { SourceObject } from "../../src/cli/validate/documents";
import { documentTexts } from "../../src/cli/validate/yaml-stream";
import { parseWhole } from "../support/validate-input";

function objectsIn(text: string): SourceObject[] {
  const parsed = parseWhole({ file: "f.yaml", text });
  if (parsed.problem) throw new Error(parsed.problem.message);
  return parsed.objects;
}

describe("documentTexts", () => {
  test.each<[string, string[]]>([
    ["a: 1\n", ["a: 1\n"]],
    ["---\na: 1\n", ["---\na: 1\n"]],
    ["# only a comment\n", []],
    ["", []],
    ["a: 1\n---\nb: 2\n", ["a: 1\n", "---\nb: 2\n"]],
    ["# head\n---\na: 1\n---\n", ["---\na: 1\n", "---\n"]],
    ["a: 1\n...\nb: 2\n", ["a: 1\n...\n", "b: 2\n"]],
    ["a: 1\n...\n# tail\n", ["a: 1\n...\n"]],
    ["%YAML 1.2\n---\na: 1\n", ["%YAML 1.2\n---\na: 1\n"]],
    ["a: 1\n...\n%YAML 1.2\n# c\n---\nb: 2\n", ["a: 1\n...\n", "%YAML 1.2\n# c\n---\nb: 2\n"]],
    ["a: |\n  ---x\n  ...x\n", ["a: |\n  ---x\n  ...x\n"]],
  ])("%p", (text, documents) => {
    expect([...documentTexts(text)].map((document) => document.text)).toEqual(documents);
  });

  test("each document knows the line it starts on", () => {
    const lines = [...documentTexts("# c\na: 1\n---\nb: 2\n...\n\nc: 3\n")].map(
      (document) => document.firstLine,
    );
    expect(lines).toEqual([1, 3, 6]);
  });
});

/** Every object's value, or the problem's message. */
function valuesIn(text: string): unknown {
  const parsed = parseWhole({ file: "f.yaml", text });
  return parsed.problem ? parsed.problem.message : parsed.objects.map((object) => object.value);
}

describe("one YAML reading", () => {
  // Constructs on which YAML 1.1, YAML 1.2 and the two parsers disagree.
  const constructs: [string, string][] = [
    ["a merge key", "base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  b: 3\n"],
    ["a merge of several maps", "p: &p {a: 1}\nq: &q {c: 2}\nx:\n  <<: [*p, *q]\n"],
    ["YAML 1.1 booleans", "a: yes\nb: no\nc: on\nd: off\ne: y\nf: True\n"],
    ["YAML 1.1 numbers", "a: 0777\nb: 0o17\nc: 0x1F\nd: 1_000\ne: 0b101\nf: 190:20:30\n"],
    ["timestamps", "a: 2001-12-14t21:59:43.10-05:00\nb: 2002-12-14\n"],
    ["nulls", "a: ~\nb: null\nc:\nd: Null\n"],
    ["explicit tags", "a: !!str 12\nb: !!int '12'\nc: !!binary aGVsbG8=\nd: !!float 1\n"],
    ["sets and ordered maps", "s: !!set {a, b}\no: !!omap [a: 1, b: 2]\n"],
    ["a repeated key", "a: 1\na: 2\n"],
  ];
  const preambles = ["", "%YAML 1.2\n---\n", "%YAML 1.1\n---\n", "# c\n---\n", "---\n"];

  test.each(constructs)(
    "%s reads the same whatever the file starts or ends with",
    (_name, text) => {
      const expected = valuesIn(text);
      for (const preamble of preambles) {
        expect(valuesIn(`${preamble}${text}`)).toEqual(expected);
        expect(valuesIn(`${preamble}${text}...\n`)).toEqual(expected);
      }
      expect(valuesIn(`${text}---\n${text}`)).toEqual([
        ...(expected as unknown[]),
        ...(expected as unknown[]),
      ]);
    },
  );

  test("merge keys merge, the mapping's own keys winning", () => {
    expect(valuesIn(constructs[0]?.[1] ?? "")).toEqual([
      { base: { a: 1, b: 2 }, x: { a: 1, b: 3 } },
    ]);
  });

  test("YAML 1.2 core schema: yes and 0777 are a string and a decimal", () => {
    expect(valuesIn("%YAML 1.1\n---\na: yes\nb: 0777\n")).toEqual([{ a: "yes", b: 777 }]);
  });

  test("an alias bomb is a problem, not a hang", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let level = 1; level < 9; level++) {
      const [name, previous] = [String.fromCharCode(97 + level), String.fromCharCode(96 + level)];
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(", ")}]`);
    }
    const parsed = parseWhole({ file: "bomb.yaml", text: `${levels.join("\n")}\n` });
    expect(parsed.problem).toMatchObject({ file: "bomb.yaml", line: 1 });
  });
});

describe("parseSource", () => {
  const stream = `apiVersion: v1
kind: List
items:
  - kind: CocoonSet
    apiVersion: cocoonset.cocoonstack.io/v1
    spec:
      agent: {}
  - kind: ConfigMap
    apiVersion: v1
...
---
apiVersion: cocoonset.cocoonstack.io/v1
kind: CocoonSetList
items:
  - metadata: { name: a }
`;

  test("an end marker changes neither the objects nor their lines", () => {
    const slow = objectsIn(stream);
    const fast = objectsIn(stream.replace("...\n", ""));
    for (const objects of [slow, fast]) {
      expect(objects.map(({ kind, apiVersion }) => [kind, apiVersion])).toEqual([
        ["CocoonSet", "cocoonset.cocoonstack.io/v1"],
        ["ConfigMap", "v1"],
        ["CocoonSet", "cocoonset.cocoonstack.io/v1"],
      ]);
    }
    const slowLines = slow.map((object) => object.positionOf(["spec", "agent", "image"]).line);
    expect(slowLines).toEqual([7, 8, 15]);
    expect(fast.map((object) => object.positionOf(["spec", "agent", "image"]).line)).toEqual([
      7, 8, 14,
    ]);
  });

  test("a parse error names its line and column", () => {
    const parsed = parseWhole({ file: "f.yaml", text: "a: 1\nb: [1\nc: 2\n" });
    expect(parsed.problem).toMatchObject({ file: "f.yaml", line: 3, column: 1 });
    expect(parsed.problem?.message).not.toContain("\n");
  });

  test("a repeated key's last value wins, with or without an end marker", () => {
    const fast = objectsIn("a: 1\na: 2\n");
    const slow = objectsIn("a: 1\na: 2\n...\n");
    expect(fast.map((object) => object.value)).toEqual([{ a: 2 }]);
    expect(slow.map((object) => object.value)).toEqual([{ a: 2 }]);
  });

  test("empty documents are not objects", () => {
    expect(objectsIn("---\n---\n# nothing\n")).toEqual([]);
  });
});
