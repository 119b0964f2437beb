import { describe, expect, test } from "bun:test";
import {
  COCOON_TOLERATION_KEY,
  hasCocoonToleration,
  hasCocoonTolerationAt,
} from "../../src/cocoon/markers";
import { MISTYPED, readList } from "../../src/json/read";

const cocoonToleration = { key: COCOON_TOLERATION_KEY, operator: "Exists", effect: "NoSchedule" };
const keylessExists = { operator: "Exists" };
const notReady = { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" };

describe("hasCocoonToleration", () => {
  test.each<[string, readonly unknown[], boolean]>([
    ["cocoon key, Exists, no value", [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }], true],
    [
      "cocoon key, Equal with value and effect",
      [{ key: COCOON_TOLERATION_KEY, operator: "Equal", value: "cocoon", effect: "NoSchedule" }],
      true,
    ],
    ["cocoon key, no operator", [{ key: COCOON_TOLERATION_KEY }], true],
    ["cocoon key among others", [notReady, cocoonToleration], true],
    ["keyless Exists is not a marker", [keylessExists], false],
    [
      "cocoon key as value only",
      [{ key: "dedicated", operator: "Equal", value: COCOON_TOLERATION_KEY }],
      false,
    ],
    ["key differs in case", [{ key: "Virtual-Kubelet.io/provider", operator: "Exists" }], false],
    ["empty list", [], false],
    ["malformed entries beside a cocoon one", [null, 7, "x", { key: 5 }, cocoonToleration], true],
    ["only malformed entries", [null, { key: 5 }], false],
  ])("%s → %p", (_name, tolerations, expected) => {
    expect(hasCocoonToleration(tolerations)).toBe(expected);
  });

  test("reading leaves the list as it is, uncopied", () => {
    const tolerations = [cocoonToleration, null, { key: 5 }];
    expect(readList(tolerations)).toBe(tolerations);
  });
});

describe("hasCocoonTolerationAt", () => {
  const path = ["spec", "tolerations"];

  test.each<[string, unknown, boolean | typeof MISTYPED]>([
    ["a cocoon toleration", { spec: { tolerations: [notReady, cocoonToleration] } }, true],
    ["only other tolerations", { spec: { tolerations: [notReady, keylessExists] } }, false],
    ["an empty list", { spec: { tolerations: [] } }, false],
    ["no list", { spec: {} }, false],
    ["a null list", { spec: { tolerations: null } }, false],
    ["no parent", {}, false],
    ["a list that is an object", { spec: { tolerations: cocoonToleration } }, MISTYPED],
    ["a list that is a string", { spec: { tolerations: COCOON_TOLERATION_KEY } }, MISTYPED],
    ["a parent that is not an object", { spec: [cocoonToleration] }, MISTYPED],
    ["an object that is not an object", "garbage", MISTYPED],
  ])("%s → %p", (_name, object, expected) => {
    expect(hasCocoonTolerationAt(object, path)).toBe(expected);
  });

  test("reads the path it is given, as a node's taints", () => {
    const node = { spec: { taints: [{ key: COCOON_TOLERATION_KEY, effect: "NoSchedule" }] } };
    expect(hasCocoonTolerationAt(node, ["spec", "taints"])).toBe(true);
    expect(hasCocoonTolerationAt(node, path)).toBe(false);
  });
});
