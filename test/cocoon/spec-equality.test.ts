import { describe, expect, test } from "bun:test";
import { specsSemanticallyEqual } from "../../src/cocoon/spec-equality";
import { FINALIZER_UPDATES } from "../platform/shapes";

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
    // Value fields of the Go types: the zero value reads as absent.
    ["suspend: false", { suspend: false, ...agent({}) }, agent({})],
    ['nodeName: ""', { nodeName: "", ...agent({}) }, agent({})],
    ["replicas: 0", agent({ replicas: 0 }), agent({})],
    ["probePort: 0", agent({ probePort: 0 }), agent({})],
    ['network: ""', agent({ network: "" }), agent({})],
    ["forcePull and noDirectIO false", agent({ forcePull: false, noDirectIO: false }), agent({})],
    ['serviceAccountName: ""', agent({ serviceAccountName: "" }), agent({})],
    ["vncPort: 0", { toolboxes: [{ name: "t", vncPort: 0 }] }, { toolboxes: [{ name: "t" }] }],
    ["resources: {} (a struct)", agent({ resources: {} }), agent({})],
    [
      "resources with empty lists and maps",
      agent({ resources: { limits: {}, claims: [] } }),
      agent({}),
    ],
    [
      "toolbox resources: {}",
      { toolboxes: [{ name: "t", resources: {} }] },
      { toolboxes: [{ name: "t" }] },
    ],
    ["toolboxes: []", { toolboxes: [], ...agent({}) }, agent({})],
    ["envFrom: []", agent({ envFrom: [] }), agent({})],
    [
      'envFrom prefix: ""',
      agent({ envFrom: [{ prefix: "", secretRef: { name: "s" } }] }),
      agent({ envFrom: [{ secretRef: { name: "s" } }] }),
    ],
    ["a whole agent of zero values", { agent: { image: "", replicas: 0, resources: {} } }, {}],
    [
      "null everywhere",
      { suspend: null, toolboxes: null, agent: { image: "org/a:1", storage: null } },
      agent({}),
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
    // Pointer fields keep absent apart from their zero value.
    ['storage "0" vs absent (a *Quantity)', agent({ storage: "0" }), agent({})],
    [
      "configMapRef {} vs absent (a pointer)",
      agent({ envFrom: [{ configMapRef: {} }] }),
      agent({ envFrom: [{}] }),
    ],
    [
      "optional: false vs absent (a *bool)",
      agent({ envFrom: [{ secretRef: { name: "s", optional: false } }] }),
      agent({ envFrom: [{ secretRef: { name: "s" } }] }),
    ],
    // A zero value is not any value: a real change is still a change.
    ["suspend true vs absent", { suspend: true, ...agent({}) }, agent({})],
    ["replicas 1 vs absent", agent({ replicas: 1 }), agent({})],
    ["a limit 0 vs no limit", agent({ resources: { limits: { cpu: "0" } } }), agent({})],
    ["toolboxes [t] vs []", { toolboxes: [{ name: "t" }] }, { toolboxes: [] }],
    ["a mistyped zero compares as sent", { suspend: "false", ...agent({}) }, agent({})],
    ["an unknown field compares as sent", agent({ extra: 0 }), agent({})],
    ['image "" vs a real image', { agent: { image: "" } }, agent({})],
  ])("different: %s", (_case, left, right) => {
    expect(specsSemanticallyEqual(left, right)).toBe(false);
  });
});

describe("the operator's finalizer updates leave the spec unchanged", () => {
  test.each(FINALIZER_UPDATES.map((update) => [update.name, update] as const))(
    "%s",
    (_name, { stored, written }) => {
      expect(specsSemanticallyEqual(stored, written)).toBe(true);
      expect(specsSemanticallyEqual(written, stored)).toBe(true);
    },
  );

  test.each(FINALIZER_UPDATES.map((update) => [update.name, update] as const))(
    "a real change hidden behind %s is still a change",
    (_name, { stored, written }) => {
      const changed = { ...written, agent: { ...written.agent, os: "windows" } };
      expect(specsSemanticallyEqual(stored, changed)).toBe(false);
    },
  );
});
