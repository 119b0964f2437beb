import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ControlPlane } from "./cluster";
import {
  parseYaml,
  registerCertManagerKinds,
  renderDefault,
  strictServerDryRun,
  yamlDocuments,
} from "./install";
import type { KubeObject } from "./objects";
import { controlPlaneTier } from "./setup";

let cluster: ControlPlane;

beforeAll(async () => {
  cluster = controlPlaneTier().cluster;
  await registerCertManagerKinds(cluster);
});

const strictDryRun = (objects: readonly KubeObject[]) =>
  strictServerDryRun(cluster, yamlDocuments(objects));

describe("manifests/default, validated by a real apiserver", () => {
  test("every object passes a strict server-side dry-run", async () => {
    const objects = await renderDefault(cluster);
    expect(objects.map((object) => object.kind).sort()).toEqual([
      "Certificate",
      "Certificate",
      "ClusterRole",
      "ClusterRoleBinding",
      "ConfigMap",
      "Deployment",
      "Issuer",
      "Issuer",
      "MutatingWebhookConfiguration",
      "PodDisruptionBudget",
      "ResourceQuota",
      "Service",
      "ServiceAccount",
      "ValidatingWebhookConfiguration",
    ]);
    const result = await strictDryRun(objects);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim().split("\n")).toHaveLength(objects.length);
  });

  test("the variant without matchConditions is accepted too", async () => {
    const rendered = await cluster.kubectl([
      "kustomize",
      join(import.meta.dir, "../../manifests/default-no-match-conditions"),
    ]);
    const webhooks = parseYaml(rendered.stdout).filter((object) =>
      String(object.kind).endsWith("WebhookConfiguration"),
    );
    expect(webhooks).toHaveLength(2);
    const result = await strictDryRun(webhooks);
    expect(result.stderr).toBe("");
  });
});
