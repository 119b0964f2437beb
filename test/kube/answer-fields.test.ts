import { describe, expect, test } from "bun:test";
import {
  AUDITED_COCOONSETS,
  AUDITED_DEPLOYMENTS,
  AUDITED_NODES,
  AUDITED_PODS,
} from "../../src/cli/audit/resources";
import type { JsonObject } from "../../src/json/read";
import { type FieldsCheck, MalformedField } from "../../src/kube/answer-fields";
import { workloadFields } from "../../src/kube/api-resources";

/** What a check says of `object`: "ok" (and then the object itself, uncopied) or where and what. */
function verdictOf(check: FieldsCheck, object: JsonObject): string {
  const checked = check(object);
  if (checked instanceof MalformedField) return checked.describe();
  expect(checked).toBe(object);
  return "ok";
}

const identity = { name: "web", namespace: "default" };

describe("the field checks of apiserver answers", () => {
  test.each<[string, JsonObject, string]>([
    ["no spec at all", {}, "ok"],
    ["null parents", { spec: { template: null } }, "ok"],
    ["well-typed", { spec: { replicas: 2, template: { spec: { tolerations: [{}] } } } }, "ok"],
    ["spec a list", { spec: [] }, "spec: expected an object, got a list"],
    ["template a number", { spec: { template: 5 } }, "spec.template: expected an object, got 5"],
    [
      "replicas a string",
      { spec: { replicas: "3" } },
      'spec.replicas: expected a whole number, got "3"',
    ],
    [
      "replicas fractional",
      { spec: { replicas: 1.5 } },
      "spec.replicas: expected a whole number, got 1.5",
    ],
    [
      "a toleration that is not an object",
      { spec: { template: { spec: { tolerations: [{}, "x"] } } } },
      'spec.template.spec.tolerations: expected a list of objects, got a list whose entry [1] is "x"',
    ],
  ])("a workload: %s", (_name, object, expected) => {
    expect(verdictOf(workloadFields, object)).toBe(expected);
  });

  test.each<[string, FieldsCheck, JsonObject, string]>([
    ["a pod", AUDITED_PODS.fields, { metadata: identity, spec: {} }, "ok"],
    [
      "a pod without spec",
      AUDITED_PODS.fields,
      { metadata: identity },
      "spec: expected an object, got nothing",
    ],
    [
      "a pod without metadata",
      AUDITED_PODS.fields,
      { spec: {} },
      "metadata: expected an object, got nothing",
    ],
    [
      "a pod with an empty name",
      AUDITED_PODS.fields,
      { metadata: { ...identity, name: "" }, spec: {} },
      'metadata.name: expected a non-empty string, got ""',
    ],
    [
      "an annotation that is not a string",
      AUDITED_PODS.fields,
      { metadata: { ...identity, annotations: { a: "1", b: 2 } }, spec: {} },
      "metadata.annotations: expected an object of strings, got an object",
    ],
    [
      "a nodeName that is not a string",
      AUDITED_PODS.fields,
      { metadata: identity, spec: { nodeName: 7 } },
      "spec.nodeName: expected a string, got 7",
    ],
    ["a node needs no namespace", AUDITED_NODES.fields, { metadata: { name: "vk-1" } }, "ok"],
    [
      "a node's taints",
      AUDITED_NODES.fields,
      { metadata: { name: "vk-1" }, spec: { taints: {} } },
      "spec.taints: expected a list of objects, got an object",
    ],
    [
      "a CocoonSet without namespace",
      AUDITED_COCOONSETS.fields,
      { metadata: { name: "s" } },
      "metadata.namespace: expected a non-empty string, got nothing",
    ],
    [
      "a Deployment's identity, then its workload fields",
      AUDITED_DEPLOYMENTS.fields,
      { metadata: identity, spec: { replicas: null, template: { spec: { tolerations: 1 } } } },
      "spec.template.spec.tolerations: expected a list of objects, got 1",
    ],
  ])("audit: %s", (_name, check, object, expected) => {
    expect(verdictOf(check, object)).toBe(expected);
  });
});
