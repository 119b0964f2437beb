import { describe, expect, test } from "bun:test";
import { cocoonSetSchemaProblems } from "../../src/cli/validate/crd-schema";

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
        "manifest.crd-port spec.toolboxes.0.probePort",
        "manifest.crd-port spec.toolboxes.0.vncPort",
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
