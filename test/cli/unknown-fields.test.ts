import { describe, expect, test } from "bun:test";
import { unknownFields, withObjectMeta } from "../../src/cli/validate/unknown-fields";
import { COCOONHIBERNATION_SCHEMA, COCOONSET_SCHEMA } from "../../src/cocoon/crd-schema";
import { checkText } from "../support/validate-input";

const COCOONSET_FIELDS = withObjectMeta(COCOONSET_SCHEMA);
const COCOONHIBERNATION_FIELDS = withObjectMeta(COCOONHIBERNATION_SCHEMA);

function check(text: string, strict = false) {
  return checkText({ file: "m.yaml", text }, { namespace: "default", strict });
}

describe("unknownFields", () => {
  test("reports each key the CRD lacks at its path, with a near miss", () => {
    const set = {
      apiVersion: "cocoonset.cocoonstack.io/v1",
      kind: "CocoonSet",
      metadata: { name: "s", labels: { "any/key": "x" }, annotations: { free: "y" }, nmae: "z" },
      spec: {
        agent: {
          imgae: "x",
          image: "org/a:1",
          resources: { limits: { cpu: "1", "example.com/gpu": 1 }, limts: {} },
          envFrom: [{ configMapRef: { name: "c", optinal: true } }],
        },
        toolboxes: [{ name: "t", staticIp: "10.0.0.1", constructor: 1 }],
        nodePool: "default",
        suspend: true,
      },
      status: { phase: "Ready", agents: [{ slot: 0, colour: "x" }] },
      extra: 1,
    };
    expect(
      unknownFields(set, COCOONSET_FIELDS).map(({ segments, suggestion }) => [
        segments.join("."),
        suggestion,
      ]),
    ).toEqual([
      ["metadata.nmae", "name"],
      ["spec.agent.imgae", "image"],
      ["spec.agent.resources.limts", "limits"],
      ["spec.agent.envFrom.0.configMapRef.optinal", "optional"],
      ["spec.toolboxes.0.staticIp", "staticIP"],
      ["spec.toolboxes.0.constructor", undefined],
      ["status.agents.0.colour", undefined],
      ["extra", undefined],
    ]);
  });

  test("a hibernation's spec has podRef and desire only", () => {
    const found = unknownFields(
      { spec: { podRef: { name: "p", namespace: "n" }, desire: "Wake", desier: "Wake" } },
      COCOONHIBERNATION_FIELDS,
    );
    expect(found.map((each) => each.segments.join("."))).toEqual([
      "spec.podRef.namespace",
      "spec.desier",
    ]);
  });

  test("a value of the wrong type is left to the rules", () => {
    expect(unknownFields({ spec: { agent: "x", toolboxes: { a: 1 } } }, COCOONSET_FIELDS)).toEqual(
      [],
    );
  });
});

const TYPO = `apiVersion: cocoonset.cocoonstack.io/v1
kind: CocoonSet
metadata: {name: s}
spec:
  agent:
    image: org/agent:1
    replicass: 2
`;

describe("createObjectChecker", () => {
  test("an unknown field is a warning at its line and column; --strict makes it an error", () => {
    const [warning] = check(TYPO).findings;
    expect(warning).toMatchObject({
      line: 7,
      column: 5,
      severity: "warning",
      path: "spec.agent.replicass",
      rule: "manifest.unknown-field",
    });
    expect(warning?.message).toContain('did you mean "replicas"?');
    expect(check(TYPO, true).findings.map((finding) => finding.severity)).toEqual(["error"]);
  });

  test.each([
    [
      "apiVersion: cocoonset.cocoonstack.io/v1beta1\nkind: CocoonSet\n",
      'did you mean "cocoonset.cocoonstack.io/v1"?',
    ],
    ["apiVersion: cocoonset.cocoonstack.io/v1\nkind: Cocoonset\n", 'did you mean "CocoonSet"?'],
    [
      "apiVersion: cocoonset.cocoonstack.io/v1\nkind: Snapshot\n",
      "its kinds are CocoonSet and CocoonHibernation",
    ],
    [
      "apiVersion: sandbox.cocoonstack.io/v1\nkind: Sandbox\n",
      "it checks cocoonset.cocoonstack.io/v1",
    ],
    [
      "kind: CocoonHibernation\nmetadata: {name: p}\n",
      "a CocoonHibernation needs apiVersion: cocoonset.cocoonstack.io/v1",
    ],
  ])("an unknown cocoon object is reported, never skipped: %p", (text, hint) => {
    const summary = check(text);
    expect(summary.skipped).toBe(0);
    expect(summary.findings).toHaveLength(1);
    expect(summary.findings[0]).toMatchObject({
      rule: "manifest.unknown-object",
      severity: "warning",
      line: 1,
      column: 1,
    });
    expect(summary.findings[0]?.message).toContain("the object was not checked");
    expect(summary.findings[0]?.message).toContain(hint);
    expect(check(text, true).findings[0]?.severity).toBe("error");
  });

  test("objects of other groups are skipped and counted", () => {
    const summary = check(
      "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: apps/v1\nkind: Deployment\n",
    );
    expect(summary).toMatchObject({ findings: [], skipped: 2, objects: 2 });
  });

  test.each(["cocoon.cis/v1alpha1", "apps/v1"])(
    "a CocoonSet of %s, an API version this tool does not know, is reported, not skipped",
    (apiVersion) => {
      const summary = check(`apiVersion: ${apiVersion}\nkind: CocoonSet\nmetadata: {name: old}\n`);
      expect(summary).toMatchObject({ skipped: 0, objects: 1 });
      expect(summary.findings).toMatchObject([
        { rule: "manifest.unknown-object", severity: "warning", line: 1 },
      ]);
      expect(summary.findings[0]?.message).toContain(
        `apiVersion "${apiVersion}" is not one this tool knows`,
      );
    },
  );

  test("a valid set from the operator's full schema has no findings", () => {
    const text = `apiVersion: cocoonset.cocoonstack.io/v1
kind: CocoonSet
metadata:
  name: full
  labels: {app: agents}
  ownerReferences: [{apiVersion: v1, kind: X, name: x, uid: u, controller: true}]
spec:
  suspend: false
  nodePool: default
  snapshotCompatibilityClass: gen2
  agent:
    image: org/agent:1
    replicas: 1
    network: default
    storage: 20Gi
    probePort: 22
    resources: {requests: {cpu: "1", memory: 2Gi}}
    envFrom: [{secretRef: {name: s}, prefix: P_}]
    serviceAccountName: agent
  toolboxes:
    - {name: browser, image: org/browser:1, mode: run, vncPort: 5900, forcePull: true, noDirectIO: true}
`;
    expect(check(text).findings).toEqual([]);
  });
});
