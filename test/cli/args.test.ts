import { describe, expect, test } from "bun:test";
import { type FlagSpec, parseArgs } from "../../src/cli/args";
import { closestMatch, editDistance } from "../../src/cli/did-you-mean";

const SPECS: FlagSpec[] = [
  { long: "output", short: "o", takesValue: true },
  { long: "filename", short: "f", takesValue: true },
  { long: "strict", takesValue: false },
];

describe("parseArgs", () => {
  test.each([
    [["-o", "json"]],
    [["-o=json"]],
    [["-ojson"]],
    [["--output", "json"]],
    [["--output=json"]],
  ])("%p sets output to json", (args) => {
    expect(parseArgs(args, SPECS).flags.get("output")).toEqual(["json"]);
  });

  test("repeated flags keep every value; - and everything after -- are positionals", () => {
    const parsed = parseArgs(["-f", "a", "--filename=b", "-", "--strict", "--", "-o"], SPECS);
    expect(parsed.flags.get("filename")).toEqual(["a", "b"]);
    expect(parsed.flags.get("strict")).toEqual(["true"]);
    expect(parsed.positionals).toEqual(["-", "-o"]);
  });

  test.each([
    [["--frobnicate"], "unknown flag --frobnicate"],
    [["--outptu", "json"], "unknown flag --outptu; did you mean --output?"],
    [["-x"], "unknown flag -x"],
    [["-o"], "-o needs a value"],
    [["--strict=yes"], '--strict takes no value, got "yes"'],
  ])("%p is refused: %s", (args, message) => {
    expect(() => parseArgs(args, SPECS)).toThrow(message);
  });
});

describe("closestMatch", () => {
  test.each([
    ["imgae", "image"],
    ["replicass", "replicas"],
    ["staticIp", "staticIP"],
    ["snapshotpolicy", "snapshotPolicy"],
    ["podref", "podRef"],
    ["color", undefined],
    ["img", undefined],
  ])("%p → %p", (word, expected) => {
    const fields = ["image", "replicas", "staticIP", "snapshotPolicy", "podRef", "mode"];
    expect(closestMatch(word, fields)).toBe(expected);
  });

  test("a swap of two neighbours is one edit", () => {
    expect(editDistance("imgae", "image")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
});
