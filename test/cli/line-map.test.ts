import { describe, expect, test } from "bun:test";
import { isNode, LineCounter, parseDocument } from "yaml";
import { positionOf } from "../../src/cli/validate/line-map";
import type { PathSegments } from "../../src/json/path";

function lineIn(text: string, segments: PathSegments): number {
  const lines = new LineCounter();
  const { contents } = parseDocument(text, { lineCounter: lines });
  if (!isNode(contents)) throw new Error("empty document");
  return positionOf(contents, segments, lines).line;
}

const SET = `apiVersion: cocoonset.cocoonstack.io/v1
kind: CocoonSet
metadata:
  name: agents
spec:
  agent:
    replicas: 2
    image:
  toolboxes:
    - name: browser
      image: cocoon/browser:1
    -   name: "quoted"
  snapshotPolicy: never
`;

describe("positionOf: the line", () => {
  test.each<[string, PathSegments, number]>([
    ["a present field is found at its key", ["spec", "snapshotPolicy"], 13],
    ["a nested field", ["spec", "agent", "replicas"], 7],
    ["a key with no value still has a line", ["spec", "agent", "image"], 8],
    ["a missing field maps to its nearest parent", ["spec", "agent", "os"], 6],
    ["a missing parent maps further up", ["spec", "missing", "deeper"], 5],
    ["a list item's field", ["spec", "toolboxes", 1, "name"], 12],
    ["a list index past the end maps to the list", ["spec", "toolboxes", 7, "name"], 9],
    ["an index into a map is not followed", ["spec", "agent", 0], 6],
    ["the empty path is the document's first line", [], 1],
  ])("%s", (_name, segments, line) => {
    expect(lineIn(SET, segments)).toBe(line);
  });

  test("JSON maps to lines too (JSON is YAML)", () => {
    const json = `{
  "kind": "CocoonSet",
  "spec": {
    "agent": { "image": "x" },
    "toolboxes": [
      { "name": "a" },
      { "name": "b" }
    ]
  }
}`;
    expect(lineIn(json, ["spec", "agent", "image"])).toBe(4);
    expect(lineIn(json, ["spec", "toolboxes", 1, "name"])).toBe(7);
    expect(lineIn(json, ["spec", "snapshotPolicy"])).toBe(3);
  });
});
