import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ControlPlane } from "./cluster";
import { parseYaml, renderDefault, yamlDocuments } from "./install";
import { controlPlaneTier } from "./setup";

let cluster: ControlPlane;

/**
 * cert-manager is not installed here. Its Issuer and Certificate kinds are
 * registered with schema-less CRDs, so the apiserver checks their
 * apiVersion, kind and metadata; their fields are checked against
 * cert-manager's schemas in test/manifests.
 */
const CERT_MANAGER_KINDS = [
  { kind: "Issuer", plural: "issuers" },
  { kind: "Certificate", plural: "certificates" },
];

beforeAll(async () => {
  cluster = controlPlaneTier().cluster;
  const crds = CERT_MANAGER_KINDS.map(({ kind, plural }) => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.cert-manager.io` },
    spec: {
      group: "cert-manager.io",
      scope: "Namespaced",
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      ],
    },
  }));
  const applied = await cluster.kubectl(["apply", "--server-side", "-f", "-"], {
    stdin: yamlDocuments(crds),
  });
  expect(applied.stderr).toBe("");
  const established = await cluster.kubectl([
    "wait",
    "--for=condition=Established",
    "--timeout=30s",
    ...crds.map((crd) => `crd/${crd.metadata.name}`),
  ]);
  expect(established.stderr).toBe("");
});

describe("manifests/default, validated by a real apiserver", () => {
  test("every object passes a strict server-side dry-run", async () => {
    const objects = await renderDefault(cluster);
    expect(objects.map((object) => object.kind).sort()).toEqual([
      "Certificate",
      "Certificate",
      "ClusterRole",
      "ClusterRoleBinding",
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
    const result = await cluster.kubectl(
      [
        "apply",
        "--dry-run=server",
        "--validate=strict",
        "--server-side",
        "--force-conflicts",
        "-f",
        "-",
      ],
      { stdin: yamlDocuments(objects) },
    );
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
    const result = await cluster.kubectl(
      [
        "apply",
        "--dry-run=server",
        "--validate=strict",
        "--server-side",
        "--force-conflicts",
        "-f",
        "-",
      ],
      { stdin: yamlDocuments(webhooks) },
    );
    expect(result.stderr).toBe("");
  });
});
