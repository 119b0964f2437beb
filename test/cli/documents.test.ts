import { describe, expect, test } from "bun:test";
import { parseSource, type SourceObject } from "../../src/cli/documents";
import { fastDocumentValues } from "../../src/cli/fast-yaml";

function objectsIn(text: string): SourceObject[] {
  const parsed = parseSource({ file: "f.yaml", text });
  if (parsed.problem) throw new Error(parsed.problem.message);
  return parsed.objects;
}

describe("fastDocumentValues", () => {
  test.each<[string, unknown[]]>([
    ["a: 1\n", [{ a: 1 }]],
    ["---\na: 1\n", [{ a: 1 }]],
    ["# only a comment\n", []],
    ["", []],
    ["- x\n- y\n", [["x", "y"]]],
    ["---\n- x\n", [["x"]]],
    ["a: 1\n---\nb: 2\n", [{ a: 1 }, { b: 2 }]],
    ["# head\n---\na: 1\n---\n", [{ a: 1 }, null]],
    ["- a\n---\n- b\n", [["a"], ["b"]]],
  ])("%p", (text, documents) => {
    expect(fastDocumentValues(text)).toEqual(documents);
  });

  test.each([
    ["a stream with an end marker", "a: 1\n...\nb: 2\n"],
    ["a directive", "%YAML 1.2\n---\na: 1\n"],
    ["a parse error", "a: [1\n"],
  ])("leaves %s to the yaml package", (_name, text) => {
    expect(fastDocumentValues(text)).toBeUndefined();
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

  test("the fast and the yaml-package paths find the same objects at the same lines", () => {
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
    const parsed = parseSource({ file: "f.yaml", text: "a: 1\nb: [1\nc: 2\n" });
    expect(parsed.problem).toMatchObject({ file: "f.yaml", line: 3, column: 1 });
    expect(parsed.problem?.message).not.toContain("\n");
  });

  test("a repeated key reads alike on both paths: the last value wins", () => {
    const fast = objectsIn("a: 1\na: 2\n");
    const slow = objectsIn("a: 1\na: 2\n...\n");
    expect(fast.map((object) => object.value)).toEqual([{ a: 2 }]);
    expect(slow.map((object) => object.value)).toEqual([{ a: 2 }]);
  });

  test("empty documents are not objects", () => {
    expect(objectsIn("---\n---\n# nothing\n")).toEqual([]);
  });
});
