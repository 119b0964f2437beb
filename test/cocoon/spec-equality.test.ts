import { describe, expect, test } from "bun:test";
import { specsSemanticallyEqual } from "../../src/cocoon/spec-equality";

const agent = (fields: Record<string, unknown>) => ({ agent: { image: "org/a:1", ...fields } });

describe("specsSemanticallyEqual", () => {
  test.each([
    ["identical", agent({}), agent({})],
    ["key order", { a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }],
    ["null equals absent", agent({ mode: null }), agent({})],
    ["both absent", undefined, undefined],
    [
      "memory limit 1Gi vs 1024Mi",
      agent({ resources: { limits: { memory: "1Gi" } } }),
      agent({ resources: { limits: { memory: "1024Mi" } } }),
    ],
    [
      "cpu request 0.5 vs 500m",
      agent({ resources: { requests: { cpu: "0.5" } } }),
      agent({ resources: { requests: { cpu: "500m" } } }),
    ],
    [
      "cpu as number vs string",
      agent({ resources: { limits: { cpu: 2 } } }),
      agent({ resources: { limits: { cpu: "2" } } }),
    ],
    ["storage 20Gi vs 20480Mi", agent({ storage: "20Gi" }), agent({ storage: "20480Mi" })],
    [
      "toolbox storage",
      { toolboxes: [{ name: "t", storage: "1Gi" }] },
      { toolboxes: [{ storage: "1024Mi", name: "t" }] },
    ],
  ])("equal: %s", (_case, left, right) => {
    expect(specsSemanticallyEqual(left, right)).toBe(true);
  });

  test.each([
    ["a changed value", agent({ mode: "run" }), agent({ mode: "clone" })],
    ["an added field", agent({}), agent({ os: "linux" })],
    ["a different quantity", agent({ storage: "1Gi" }), agent({ storage: "1G" })],
    ["quantity-looking names", { toolboxes: [{ name: "1k" }] }, { toolboxes: [{ name: "1000" }] }],
    ["quantity-looking images", agent({ image: "1e3" }), agent({ image: "1000" })],
    [
      "array order",
      { toolboxes: [{ name: "a" }, { name: "b" }] },
      { toolboxes: [{ name: "b" }, { name: "a" }] },
    ],
    ["array length", { toolboxes: [{ name: "a" }] }, { toolboxes: [] }],
    ["array vs object", { toolboxes: [] }, { toolboxes: {} }],
    ["number vs string outside quantities", agent({ replicas: 1 }), agent({ replicas: "1" })],
    ["spec removed", agent({}), undefined],
  ])("different: %s", (_case, left, right) => {
    expect(specsSemanticallyEqual(left, right)).toBe(false);
  });
});
