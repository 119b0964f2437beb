import { describe, expect, test } from "bun:test";
import { cocoonSetSchemaProblems } from "../../src/cli/validate/crd-schema";
import { COCOONSET_SCHEMA, type SchemaNode } from "../../src/cocoon/crd-schema";

const set = (spec: Record<string, unknown>) => ({
  apiVersion: "cocoonset.cocoonstack.io/v1",
  kind: "CocoonSet",
  metadata: { name: "s" },
  spec: { agent: { image: "org/agent:1" }, ...spec },
});
const found = (spec: Record<string, unknown>) =>
  cocoonSetSchemaProblems(set(spec)).map(({ rule, segments }) => `${rule} ${segments.join(".")}`);

describe("the CocoonSet CRD's own schema, offline", () => {
  test.each<[string, Record<string, unknown>, string[]]>([
    ["a valid set", { agent: { image: "a:1", probePort: 8080, storage: "20Gi" } }, []],
    [
      "ports at the edges",
      {
        agent: { image: "a:1", probePort: 0 },
        toolboxes: [{ name: "t", vncPort: 65535, probePort: 65535 }],
      },
      [],
    ],
    [
      "ports over 65535, negative or not whole",
      {
        agent: { image: "a:1", probePort: 65536 },
        toolboxes: [
          { name: "t", vncPort: -1, probePort: 80.5 },
          { name: "u", vncPort: "5900" },
        ],
      },
      [
        "manifest.crd-port spec.agent.probePort",
        "manifest.crd-port spec.toolboxes.0.vncPort",
        "manifest.crd-port spec.toolboxes.0.probePort",
        "manifest.crd-port spec.toolboxes.1.vncPort",
      ],
    ],
    [
      "quantities that do not parse",
      {
        agent: {
          image: "a:1",
          storage: "20 GB",
          resources: { limits: { memory: "4GiB", cpu: 2 }, requests: { cpu: "two" } },
        },
        toolboxes: [{ name: "t", storage: true }],
      },
      [
        "manifest.crd-quantity spec.agent.storage",
        "manifest.crd-quantity spec.agent.resources.limits.memory",
        "manifest.crd-quantity spec.agent.resources.requests.cpu",
        "manifest.crd-quantity spec.toolboxes.0.storage",
      ],
    ],
    [
      "a snapshot class of 63 characters",
      { snapshotCompatibilityClass: `a${"b".repeat(61)}c` },
      [],
    ],
    ["an empty snapshot class", { snapshotCompatibilityClass: "" }, []],
    [
      "a snapshot class of 64 characters",
      { snapshotCompatibilityClass: "a".repeat(64) },
      ["manifest.crd-snapshot-class spec.snapshotCompatibilityClass"],
    ],
    [
      "a snapshot class ending in a dot",
      { snapshotCompatibilityClass: "x86-v3." },
      ["manifest.crd-snapshot-class spec.snapshotCompatibilityClass"],
    ],
    [
      "a snapshot class with a space",
      { snapshotCompatibilityClass: "x86 v3" },
      ["manifest.crd-snapshot-class spec.snapshotCompatibilityClass"],
    ],
    [
      "release with the main agent alone",
      { hibernatePolicy: "release", agent: { image: "a:1", replicas: 0 }, toolboxes: [] },
      [],
    ],
    [
      "release with sub-agents and toolboxes",
      {
        hibernatePolicy: "release",
        agent: { image: "a:1", replicas: 2 },
        toolboxes: [{ name: "t" }],
      },
      [
        "manifest.crd-hibernate-release spec.agent.replicas",
        "manifest.crd-hibernate-release spec.toolboxes",
      ],
    ],
    [
      "retain with sub-agents",
      { hibernatePolicy: "retain", agent: { image: "a:1", replicas: 2 } },
      [],
    ],
  ])("%s", (_name, spec, expected) => {
    expect(found(spec)).toEqual(expected);
  });

  test("messages say what the CRD allows and what to do", () => {
    const [port, quantity, release] = cocoonSetSchemaProblems(
      set({
        hibernatePolicy: "release",
        agent: { image: "a:1", probePort: 70000, storage: "lots", replicas: 1 },
      }),
    ).map((problem) => problem.message);
    expect(port).toContain("is 70000, but the CRD allows a whole number from 0 to 65535");
    expect(quantity).toContain('is "lots", which is not a Kubernetes quantity');
    expect(release).toContain("hibernatePolicy release needs agent.replicas 0 and no toolboxes");
  });
});

/** Every path of the schema below `at` whose node `matches`, `[]` for list items and `*` for map values. */
function pathsWhere(node: SchemaNode, matches: (node: SchemaNode) => boolean, at = ""): string[] {
  const here = matches(node) ? [at] : [];
  const children = [
    ...Object.entries(node.properties ?? {}).map(
      ([name, child]) => [`${at}.${name}`, child] as const,
    ),
    ...(node.items ? [[`${at}[]`, node.items] as const] : []),
    ...(node.additionalProperties ? [[`${at}.*`, node.additionalProperties] as const] : []),
  ];
  return [...here, ...children.flatMap(([path, child]) => pathsWhere(child, matches, path))];
}

describe("the limits come from the embedded CRD schema", () => {
  const spec = COCOONSET_SCHEMA.properties?.spec ?? {};

  test("the integers it bounds on both sides are the ports, so crd-port's message fits them", () => {
    const bounded = pathsWhere(
      spec,
      (node) => node.type === "integer" && node.maximum !== undefined,
      "spec",
    );
    expect(bounded).toEqual([
      "spec.agent.probePort",
      "spec.toolboxes[].probePort",
      "spec.toolboxes[].vncPort",
    ]);
  });

  test("every quantity field is checked: storage and each resource list's values", () => {
    const quantities = pathsWhere(
      spec,
      (node) => node["x-kubernetes-int-or-string"] === true,
      "spec",
    );
    expect(quantities).toEqual([
      "spec.agent.resources.limits.*",
      "spec.agent.resources.requests.*",
      "spec.agent.storage",
      "spec.toolboxes[].resources.limits.*",
      "spec.toolboxes[].resources.requests.*",
      "spec.toolboxes[].storage",
    ]);
    const found = cocoonSetSchemaProblems(
      set({
        agent: { image: "a:1", resources: { limits: { cpu: "x" }, requests: { cpu: "x" } } },
        toolboxes: [{ name: "t", resources: { limits: { cpu: "x" }, requests: { cpu: "x" } } }],
      }),
    );
    expect(found).toHaveLength(4);
  });

  test("the CRD's release rule, which validate spells out, is in the schema", () => {
    const rules = (spec as { "x-kubernetes-validations"?: { rule: string }[] })[
      "x-kubernetes-validations"
    ];
    expect(rules?.some(({ rule }) => rule.includes("'release'"))).toBe(true);
  });
});
