import { describe, expect, test } from "bun:test";
import {
  DERIVED_NAME_LIMIT,
  derivedSetName,
  deriveName,
  overlongSlotNames,
  overlongToolboxNames,
  slotRunsByWidth,
} from "../../src/cocoon/derived-names";

const A = (length: number) => "a".repeat(length);

describe("derived names", () => {
  test("follow the operator's patterns", () => {
    expect(deriveName.pod("agents", "demo", 0)).toBe("demo-0");
    expect(deriveName.pod("agents", "demo", "browser")).toBe("demo-browser");
    expect(deriveName.VM("agents", "demo", 3)).toBe("vk-agents-demo-3");
    expect(deriveName.VM("agents", "demo", "browser")).toBe("vk-agents-demo-browser");
  });

  test.each([
    ["name", { name: "demo" }, "demo"],
    ["name wins over generateName", { name: "demo", generateName: "demo-" }, "demo"],
    ["generateName + 5 characters", { generateName: "demo-" }, "demo-xxxxx"],
    ["empty name", { name: "", generateName: "demo-" }, "demo-xxxxx"],
    ["neither", {}, undefined],
  ])("<set> from %s", (_case, metadata, expected) => {
    expect(derivedSetName(metadata)).toBe(expected);
  });
});

describe("slotRunsByWidth", () => {
  test.each([
    [0, [{ firstMember: 0, lastMember: 0, count: 1 }]],
    [9, [{ firstMember: 0, lastMember: 9, count: 10 }]],
    [
      10,
      [
        { firstMember: 0, lastMember: 9, count: 10 },
        { firstMember: 10, lastMember: 10, count: 1 },
      ],
    ],
    [
      1234,
      [
        { firstMember: 0, lastMember: 9, count: 10 },
        { firstMember: 10, lastMember: 99, count: 90 },
        { firstMember: 100, lastMember: 999, count: 900 },
        { firstMember: 1000, lastMember: 1234, count: 235 },
      ],
    ],
  ])("replicas %p", (replicas, runs) => {
    expect(slotRunsByWidth(replicas)).toEqual(runs);
  });

  test("stays small for int32 replicas", () => {
    expect(slotRunsByWidth(2 ** 31 - 1)).toHaveLength(10);
  });
});

describe("overlongSlotNames", () => {
  const kindsAndLengths = (namespace: string, set: string, replicas: number) =>
    overlongSlotNames(namespace, set, replicas).map(({ kind, length }) => `${kind} ${length}`);

  test.each([
    // pod "<set>-0" is set + 2; VM "vk-n-<set>-0" is set + 7.
    ["pod at exactly 63, VM over", A(61), ["VM 68"]],
    ["pod at 64", A(62), ["pod 64", "VM 69"]],
    ["VM at exactly 63", A(56), []],
    ["VM at 64", A(57), ["VM 64"]],
  ])("%s", (_case, set, expected) => {
    expect(kindsAndLengths("n", set, 0)).toEqual(expected);
  });

  test("reports a run of equal-length slot names once, with its first and last name", () => {
    expect(overlongSlotNames("n", A(56), 250)).toEqual([
      {
        kind: "VM",
        firstMember: 10,
        lastMember: 99,
        first: `vk-n-${A(56)}-10`,
        last: `vk-n-${A(56)}-99`,
        count: 90,
        length: 64,
      },
      {
        kind: "VM",
        firstMember: 100,
        lastMember: 250,
        first: `vk-n-${A(56)}-100`,
        last: `vk-n-${A(56)}-250`,
        count: 151,
        length: 65,
      },
    ]);
  });

  test("treats negative replicas as the main agent only", () => {
    expect(overlongSlotNames("n", A(57), -5)).toHaveLength(1);
  });
});

describe("overlongToolboxNames", () => {
  test.each([
    ["VM at exactly 63", A(53), []],
    ["VM at 64", A(54), ["VM 64"]],
    ["pod at exactly 63", A(58), ["VM 68"]],
    ["pod at 64", A(59), ["pod 64", "VM 69"]],
  ])("%s", (_case, toolbox, expected) => {
    // pod "demo-<toolbox>" is toolbox + 5; VM "vk-n-demo-<toolbox>" is toolbox + 10.
    expect(
      overlongToolboxNames("n", "demo", toolbox).map(({ kind, length }) => `${kind} ${length}`),
    ).toEqual(expected);
  });

  test("the limit is a DNS label", () => {
    expect(DERIVED_NAME_LIMIT).toBe(63);
  });
});
