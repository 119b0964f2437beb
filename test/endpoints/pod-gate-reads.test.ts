import { describe, expect, test } from "bun:test";
import { COCOONSET_KIND } from "../../src/cocoon/crd-resources";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import {
  type PodMarkers,
  podEntersCocoonGate,
  podOwnerKinds,
  readPodMarkers,
} from "../../src/endpoints/pod-gate/decide";

/** Turns `[name, input, expected]` rows into named cases, so a table stays one line per case. */
const cases = <Input, Expected>(rows: readonly (readonly [string, Input, Expected])[]) =>
  rows.map(([name, input, expected]) => ({ name, input, expected }));

const cocoonToleration = { key: COCOON_TOLERATION_KEY, operator: "Exists", effect: "NoSchedule" };
const keylessExists = { operator: "Exists" };
const notReady = { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" };
const vmName = { [VM_NAME_ANNOTATION]: "vk-default-demo-0" };
const cocoonSetOwner = {
  apiVersion: "cocoonset.cocoonstack.io/v1",
  kind: COCOONSET_KIND,
  name: "demo",
  uid: "u1",
};
const replicaSetOwner = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-5d9", uid: "u2" };

/** A pod with only the marker fields set; `metadata`/`spec` override whole sections for malformed cases. */
function pod(fields: { tolerations?: unknown; annotations?: unknown; ownerReferences?: unknown }) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "p",
      annotations: fields.annotations,
      ownerReferences: fields.ownerReferences,
    },
    spec: { containers: [{ name: "c", image: "busybox" }], tolerations: fields.tolerations },
  };
}

describe("readPodMarkers and podEntersCocoonGate", () => {
  test.each(
    cases<unknown, PodMarkers>([
      // nothing readable at all
      ["null", null, "undecodable"],
      ["undefined", undefined, "undecodable"],
      ["a string", "garbage", "undecodable"],
      ["a number", 42, "undecodable"],
      ["an array", [pod({ tolerations: [cocoonToleration] })], "undecodable"],
      ["metadata and spec are numbers", { metadata: 1, spec: 2 }, "undecodable"],
      ["both marker fields malformed", pod({ tolerations: "x", annotations: 5 }), "undecodable"],
      [
        "metadata an array, tolerations an object",
        { metadata: [], spec: { tolerations: {} } },
        "undecodable",
      ],
      // readable, no marker
      ["empty object", {}, "not_gated"],
      ["plain pod", pod({}), "not_gated"],
      ["null sections", { metadata: null, spec: null }, "not_gated"],
      ["unrelated toleration", pod({ tolerations: [notReady] }), "not_gated"],
      [
        "keyless Exists toleration (known limit)",
        pod({ tolerations: [keylessExists] }),
        "not_gated",
      ],
      ["other annotations", pod({ annotations: { "vm.cocoonstack.io/other": "x" } }), "not_gated"],
      ["annotations malformed, no tolerations", pod({ annotations: 5 }), "not_gated"],
      [
        "tolerations malformed, no annotation",
        pod({ tolerations: "x", annotations: {} }),
        "not_gated",
      ],
      [
        "CocoonSet owner alone is no marker",
        pod({ ownerReferences: [cocoonSetOwner] }),
        "not_gated",
      ],
      // a marker in a well-formed field gates
      ["cocoon toleration", pod({ tolerations: [cocoonToleration] }), "gated"],
      [
        "cocoon toleration, Exists without value",
        pod({ tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }] }),
        "gated",
      ],
      ["annotation", pod({ annotations: vmName }), "gated"],
      ["annotation with empty value", pod({ annotations: { [VM_NAME_ANNOTATION]: "" } }), "gated"],
      ["annotation with null value", pod({ annotations: { [VM_NAME_ANNOTATION]: null } }), "gated"],
      [
        "annotation beside malformed values",
        pod({ annotations: { a: 1, [VM_NAME_ANNOTATION]: "vm" } }),
        "gated",
      ],
      [
        "toleration while annotations is a number",
        pod({ tolerations: [cocoonToleration], annotations: 5 }),
        "gated",
      ],
      [
        "annotation while tolerations is a string",
        pod({ tolerations: "x", annotations: vmName }),
        "gated",
      ],
      [
        "toleration while metadata is a number",
        { metadata: 5, spec: { tolerations: [cocoonToleration] } },
        "gated",
      ],
      [
        "annotation while spec is a number",
        { metadata: { annotations: vmName }, spec: 5 },
        "gated",
      ],
      [
        "malformed toleration entry beside a cocoon one",
        pod({ tolerations: [{ key: 7 }, cocoonToleration] }),
        "gated",
      ],
      [
        "toleration with malformed ownerReferences",
        pod({ tolerations: [cocoonToleration], ownerReferences: "x" }),
        "gated",
      ],
    ]),
  )("$name → $expected", ({ input: object, expected }) => {
    expect(readPodMarkers(object)).toBe(expected);
    expect(podEntersCocoonGate(object)).toBe(expected === "gated");
  });
});

describe("podOwnerKinds", () => {
  const cocoonSet = { group: "cocoonset.cocoonstack.io", kind: COCOONSET_KIND };
  const replicaSet = { group: "apps", kind: "ReplicaSet" };
  test.each(
    cases<unknown, { group: string; kind: string }[]>([
      ["CocoonSet owner", pod({ ownerReferences: [cocoonSetOwner] }), [cocoonSet]],
      [
        "CocoonSet among other owners",
        pod({ ownerReferences: [replicaSetOwner, cocoonSetOwner] }),
        [replicaSet, cocoonSet],
      ],
      [
        "malformed entries own nothing",
        pod({ ownerReferences: [null, { kind: 3 }, { kind: COCOONSET_KIND }, cocoonSetOwner] }),
        [cocoonSet],
      ],
      [
        "an apiVersion without a group is the core group",
        pod({ ownerReferences: [{ apiVersion: "v1", kind: "ReplicationController" }] }),
        [{ group: "", kind: "ReplicationController" }],
      ],
      [
        "the Sandbox of sandbox-operator",
        pod({ ownerReferences: [{ apiVersion: "agents.x-k8s.io/v1beta1", kind: "Sandbox" }] }),
        [{ group: "agents.x-k8s.io", kind: "Sandbox" }],
      ],
      [
        "kind as sent, case included",
        pod({ ownerReferences: [{ ...cocoonSetOwner, kind: "cocoonset" }] }),
        [{ ...cocoonSet, kind: "cocoonset" }],
      ],
      ["no ownerReferences", pod({}), []],
      ["empty ownerReferences", pod({ ownerReferences: [] }), []],
      ["ownerReferences is a string", pod({ ownerReferences: COCOONSET_KIND }), []],
      ["ownerReferences is an object", pod({ ownerReferences: cocoonSetOwner }), []],
      ["metadata is a number", { metadata: 5 }, []],
      ["not an object", "garbage", []],
    ]),
  )("$name", ({ input: object, expected }) => {
    expect(podOwnerKinds(object)).toEqual(expected);
  });
});
