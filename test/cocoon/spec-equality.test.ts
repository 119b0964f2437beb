import { describe, expect, test } from "bun:test";
import { COCOONSET_SCHEMA, type SchemaNode, schemaAt } from "../../src/cocoon/crd-schema";
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

/**
 * Every field of the CocoonSet spec as cocoon-common's Go types (v0.3.0)
 * hold it: "value" when absent reads as the zero value of its type, so the
 * two are the same spec; "pointer" when absent differs from any value.
 */
const GO_TYPES = {
  agent: "value",
  "agent.backend": "value",
  "agent.connType": "value",
  "agent.envFrom": "value",
  "agent.envFrom[].configMapRef": "pointer",
  "agent.envFrom[].configMapRef.name": "value",
  "agent.envFrom[].configMapRef.optional": "pointer",
  "agent.envFrom[].prefix": "value",
  "agent.envFrom[].secretRef": "pointer",
  "agent.envFrom[].secretRef.name": "value",
  "agent.envFrom[].secretRef.optional": "pointer",
  "agent.forcePull": "value",
  "agent.image": "value",
  "agent.mode": "value",
  "agent.network": "value",
  "agent.noDirectIO": "value",
  "agent.os": "value",
  "agent.probePort": "value",
  "agent.replicas": "value",
  "agent.resources": "value",
  "agent.resources.claims": "value",
  "agent.resources.claims[].name": "value",
  "agent.resources.claims[].request": "value",
  "agent.resources.limits": "value",
  "agent.resources.requests": "value",
  "agent.serviceAccountName": "value",
  "agent.storage": "pointer",
  hibernatePolicy: "value",
  nodeName: "value",
  nodePool: "value",
  snapshotCompatibilityClass: "value",
  snapshotPolicy: "value",
  suspend: "value",
  toolboxes: "value",
  "toolboxes[].backend": "value",
  "toolboxes[].connType": "value",
  "toolboxes[].forcePull": "value",
  "toolboxes[].image": "value",
  "toolboxes[].mode": "value",
  "toolboxes[].name": "value",
  "toolboxes[].network": "value",
  "toolboxes[].noDirectIO": "value",
  "toolboxes[].os": "value",
  "toolboxes[].probePort": "value",
  "toolboxes[].resources": "value",
  "toolboxes[].resources.claims": "value",
  "toolboxes[].resources.claims[].name": "value",
  "toolboxes[].resources.claims[].request": "value",
  "toolboxes[].resources.limits": "value",
  "toolboxes[].resources.requests": "value",
  "toolboxes[].staticIP": "value",
  "toolboxes[].staticVMID": "value",
  "toolboxes[].storage": "pointer",
  "toolboxes[].vncPort": "value",
};

/** What Go's encoding/json writes for the zero value of a field of this schema type. */
function zeroOf(node: SchemaNode): unknown {
  if (node["x-kubernetes-int-or-string"]) return "0";
  return { boolean: false, integer: 0, string: "", array: [], object: {} }[node.type ?? ""];
}

/** A spec holding `leaf` at `steps` (`[]` a one-item list), or the same spec without it. */
function specWith(steps: readonly string[], leaf: unknown): unknown {
  const [step, ...rest] = steps;
  if (step === undefined) return leaf;
  if (step === "[]") return [specWith(rest, leaf)];
  if (rest.length === 0 && leaf === undefined) return {};
  return { [step]: specWith(rest, leaf) };
}

/** Each field below `node` and whether the comparison reads its zero value as absent. */
function comparedFields(node: SchemaNode, steps: readonly string[] = []): [string, string][] {
  const fields: [string, string][] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const at = [...steps, name];
    const sameAsAbsent = specsSemanticallyEqual(
      specWith(at, zeroOf(child)),
      specWith(at, undefined),
    );
    fields.push([at.join(".").replaceAll(".[]", "[]"), sameAsAbsent ? "value" : "pointer"]);
    fields.push(...comparedFields(child, at));
  }
  if (node.items) fields.push(...comparedFields(node.items, [...steps, "[]"]));
  return fields;
}

describe("the Go types, as the schema and the kept pointer list derive them", () => {
  test("every field of the embedded schema compares as the Go types hold it", () => {
    const spec = schemaAt(COCOONSET_SCHEMA, ["spec"]);
    expect(Object.fromEntries(comparedFields(spec))).toEqual(GO_TYPES);
  });
});
