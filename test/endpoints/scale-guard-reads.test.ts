import { describe, expect, test } from "bun:test";
import { COCOON_TOLERATION_KEY } from "../../src/cocoon/markers";
import { isWorkloadKind, isWorkloadResource } from "../../src/cocoon/workload";
import {
  readScaleReplicas,
  readWorkloadReplicas,
  workloadIsCocoon,
} from "../../src/endpoints/scale-guard";

/** Turns `[name, input, expected]` rows into named cases, so a table stays one line per case. */
const cases = <Input, Expected>(rows: readonly (readonly [string, Input, Expected])[]) =>
  rows.map(([name, input, expected]) => ({ name, input, expected }));

const cocoonToleration = { key: COCOON_TOLERATION_KEY, operator: "Exists" };

/** A Deployment whose pod template carries `tolerations` (omitted when undefined). */
function deployment(tolerations?: unknown, replicas?: unknown) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "agent", namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { app: "agent" } },
      template: {
        metadata: { labels: { app: "agent" } },
        spec: { containers: [{ name: "agent", image: "agent:1" }], tolerations },
      },
    },
  };
}

describe("readWorkloadReplicas (missing means 1)", () => {
  test.each(
    cases<unknown, number | undefined>([
      ["replicas 3", { spec: { replicas: 3 } }, 3],
      ["replicas 0", { spec: { replicas: 0 } }, 0],
      ["replicas missing", { spec: {} }, 1],
      ["replicas null", { spec: { replicas: null } }, 1],
      ["spec missing", {}, 1],
      ["a full deployment without replicas", deployment([cocoonToleration]), 1],
      ["replicas a string", { spec: { replicas: "3" } }, undefined],
      ["replicas fractional", { spec: { replicas: 1.5 } }, undefined],
      ["spec a number", { spec: 5 }, undefined],
      ["null", null, undefined],
      ["an array", [], undefined],
    ]),
  )("$name → $expected", ({ input: workload, expected }) => {
    expect(readWorkloadReplicas(workload)).toBe(expected);
  });
});

describe("readScaleReplicas (missing means 0)", () => {
  test.each(
    cases<unknown, number | undefined>([
      ["replicas 2", { kind: "Scale", spec: { replicas: 2 } }, 2],
      ["spec: {} (kubectl scale --replicas=0)", { kind: "Scale", spec: {} }, 0],
      ["spec missing", { kind: "Scale" }, 0],
      ["replicas null", { spec: { replicas: null } }, 0],
      ["replicas a string", { spec: { replicas: "2" } }, undefined],
      ["spec an array", { spec: [] }, undefined],
      ["a string", "garbage", undefined],
      ["undefined", undefined, undefined],
    ]),
  )("$name → $expected", ({ input: scale, expected }) => {
    expect(readScaleReplicas(scale)).toBe(expected);
  });
});

describe("workloadIsCocoon", () => {
  test.each(
    cases<unknown, boolean>([
      ["template tolerates the cocoon key", deployment([cocoonToleration]), true],
      [
        "cocoon key with value and effect",
        deployment([
          { key: COCOON_TOLERATION_KEY, operator: "Equal", value: "cocoon", effect: "NoSchedule" },
        ]),
        true,
      ],
      ["cocoon key beside a malformed entry", deployment([null, cocoonToleration]), true],
      [
        "malformed replicas do not hide the toleration",
        deployment([cocoonToleration], "three"),
        true,
      ],
      ["no tolerations", deployment(), false],
      ["unrelated toleration", deployment([{ key: "dedicated", operator: "Exists" }]), false],
      ["keyless Exists toleration", deployment([{ operator: "Exists" }]), false],
      ["tolerations malformed", deployment("x"), false],
      ["template a number", { spec: { template: 5 } }, false],
      ["no spec", {}, false],
      ["null", null, false],
    ]),
  )("$name → $expected", ({ input: workload, expected }) => {
    expect(workloadIsCocoon(workload)).toBe(expected);
  });
});

describe("workload resources and kinds", () => {
  test.each<[string | undefined, boolean]>([
    ["deployments", true],
    ["statefulsets", true],
    ["replicasets", false],
    ["toString", false],
    ["", false],
    [undefined, false],
  ])("isWorkloadResource(%p) → %p", (resource, expected) => {
    expect(isWorkloadResource(resource)).toBe(expected);
  });

  test.each<[string | undefined, boolean]>([
    ["Deployment", true],
    ["StatefulSet", true],
    ["ReplicaSet", false],
    ["deployment", false],
    [undefined, false],
  ])("isWorkloadKind(%p) → %p", (kind, expected) => {
    expect(isWorkloadKind(kind)).toBe(expected);
  });
});
