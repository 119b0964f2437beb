import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startWebhook } from "../e2e/harness";
import { createTestCa } from "../support/certs";
import { base64 } from "../support/kubeconfig";
import { type ControlPlane, runCommand } from "./cluster";
import { CHART, HELM_VERSIONS, type HelmVersion, helmOrThrow, localValues, RELEASE } from "./helm";
import { OPERATOR, ORDINARY_USER, parseYaml, WEBHOOK_NAMESPACE } from "./install";
import {
  admissionsDuring,
  COCOON_API,
  createNamespace,
  createOwnerCocoonSet,
  expectCreated,
  gatedPod,
  hibernation,
  type KubeObject,
  messageOf,
  uniqueName,
  workload,
} from "./objects";
import { controlPlaneTier } from "./setup";

/*
 * The Helm chart installed for real: the objects from manifests/default make
 * way for `helm install` of charts/cocoon-webhook (local clientConfig URL and
 * CA bundle, the serving certificate from a Secret instead of cert-manager),
 * the webhook gets a token of the chart's ServiceAccount, and a smoke test
 * of every endpoint runs against the chart's RBAC and webhook configurations.
 * Afterwards the chart is uninstalled and manifests/default is back.
 */

const [HELM_4] = HELM_VERSIONS as [HelmVersion];
const helm = (args: readonly string[]) => helmOrThrow(HELM_4, args);

let cluster: ControlPlane;
let namespace: string;

beforeAll(async () => {
  const { webhook } = controlPlaneTier();
  cluster = controlPlaneTier().cluster;
  await webhook.removeManifests();
  await helm(["install", RELEASE, CHART, `--namespace=${WEBHOOK_NAMESPACE}`, ...localValues()]);
  await webhook.reconnect();
  namespace = await createNamespace(cluster, "helm");
}, 120_000);

afterAll(async () => {
  await helm(["uninstall", RELEASE, `--namespace=${WEBHOOK_NAMESPACE}`, "--wait"]);
  await controlPlaneTier().webhook.applyManifests();
}, 120_000);

describe("the Helm chart installed into a real apiserver", () => {
  test("installs the same kinds of objects as manifests/default, without cert-manager", async () => {
    const manifest = await helm(["get", "manifest", RELEASE, `--namespace=${WEBHOOK_NAMESPACE}`]);
    const kinds = [...manifest.matchAll(/^kind: (\w+)$/gm)].map((match) => match[1]).sort();
    const withoutCertManager = controlPlaneTier()
      .webhook.manifests.filter((object) => object.apiVersion !== "cert-manager.io/v1")
      .map((object) => object.kind)
      .sort();
    expect(kinds).toEqual(withoutCertManager);
  });

  test("every endpoint answers through the chart's registrations and RBAC", async () => {
    const owner = await createOwnerCocoonSet(cluster, namespace);
    const pods = `/api/v1/namespaces/${namespace}/pods`;
    const handmade = await cluster.request("POST", pods, {
      as: ORDINARY_USER,
      body: gatedPod(uniqueName("handmade")),
    });
    expect(handmade.status).toBe(403);
    expect(messageOf(handmade)).toContain("has no CocoonSet or Sandbox owner");
    await expectCreated(
      cluster.request("POST", pods, { as: OPERATOR, body: gatedPod(uniqueName("vm"), owner) }),
    );

    const deployment = uniqueName("agents");
    await expectCreated(
      cluster.request("POST", `/apis/apps/v1/namespaces/${namespace}/deployments`, {
        as: ORDINARY_USER,
        body: workload("Deployment", deployment, 3, { cocoon: true }),
      }),
    );
    const counted = await admissionsDuring("validate", async () => {
      const scale = await cluster.kubectl(
        ["scale", "-n", namespace, `deployment/${deployment}`, "--replicas=1"],
        { as: ORDINARY_USER },
      );
      expect(scale.stderr).toContain("is not allowed");
    });
    // The deny needed a GET of the parent with the chart's RBAC.
    expect(counted).toEqual({ "deny/scale_down": 1 });

    const hibernations = `${COCOON_API}/namespaces/${namespace}/cocoonhibernations`;
    const podName = uniqueName("vm");
    const create = (body: KubeObject) =>
      cluster.request("POST", hibernations, { as: ORDINARY_USER, body });
    await expectCreated(create(hibernation(podName)));
    const duplicate = await create(hibernation(podName, "Wake"));
    expect(duplicate.status).toBe(403);
    expect(messageOf(duplicate)).toContain("spec.desire");
  });

  test("helm test: the test pod's script passes on the webhook's answer and fails on a refusal", async () => {
    const service = `cocoon-webhook.${WEBHOOK_NAMESPACE}.svc`;
    const ca = createTestCa("helm-test-ca");
    const webhook = await startWebhook({
      ca,
      serving: ca.issue("helm-test", { dnsNames: [service] }),
    });
    const scratch = mkdtempSync(join(tmpdir(), "helm-test-pod-"));
    try {
      const [pod] = parseYaml(
        await helm([
          "template",
          RELEASE,
          CHART,
          `--namespace=${WEBHOOK_NAMESPACE}`,
          "--show-only=templates/tests/test-pod.yaml",
          "--set=certificate.source=secret",
          `--set=webhook.caBundle=${base64(ca.cert)}`,
        ]),
      );
      const container = pod?.spec.containers[0];
      const env = Object.fromEntries(
        (container.env as { name: string; value: string }[]).map(({ name, value }) => [
          name,
          value,
        ]),
      );
      // The Service's name on 443 reaches the webhook process here, as kube-proxy would in a cluster.
      const port = new URL(webhook.admissionUrl).port;
      writeFileSync(join(scratch, ".curlrc"), `connect-to = ${service}:443:127.0.0.1:${port}\n`);
      const runPod = (review: string) =>
        runCommand([...container.command, container.args[0]], {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          CURL_HOME: scratch,
          TMPDIR: scratch,
          CA_BUNDLE: env.CA_BUNDLE ?? "",
          REVIEW: review,
        });
      const passed = await runPod(env.REVIEW ?? "");
      expect(passed.stderr).toBe("");
      expect(passed.exitCode).toBe(0);

      const review = JSON.parse(env.REVIEW ?? "");
      review.request.object.spec.tolerations = [
        { key: "virtual-kubelet.io/provider", operator: "Exists" },
      ];
      const refused = await runPod(JSON.stringify(review));
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain("did not answer the review with allowed: true");
    } finally {
      await webhook.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe("certificate.source generate on a real apiserver", () => {
  test("install makes the CA and serving pair; an upgrade keeps both and caBundle; rotation", async () => {
    // A second release of its own name and namespace, calling a closed port with failurePolicy
    // Ignore: its registrations exist without ever deciding a request of the other tests.
    const release = "generated";
    const target = await createNamespace(cluster, "generated");
    const values = [
      `--namespace=${target}`,
      "--set=certificate.source=generate",
      "--set=webhook.url=https://127.0.0.1:1",
      "--set=webhook.failurePolicy=Ignore",
    ];
    const stored = async () => {
      const secret = await cluster.request(
        "GET",
        `/api/v1/namespaces/${target}/secrets/${release}-cocoon-webhook-tls`,
      );
      expect(secret.status).toBe(200);
      const configuration = await cluster.request(
        "GET",
        `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${release}-cocoon-webhook`,
      );
      expect(configuration.status).toBe(200);
      const bundles = (configuration.body.webhooks as { clientConfig: { caBundle: string } }[]).map(
        (webhook) => webhook.clientConfig.caBundle,
      );
      return { data: secret.body.data as Record<string, string>, bundles };
    };
    try {
      await helm(["install", release, CHART, ...values]);
      const installed = await stored();
      expect([...new Set(installed.bundles)]).toEqual([String(installed.data["ca.crt"])]);
      await helm(["upgrade", release, CHART, ...values, "--set=commonLabels.revision=two"]);
      const upgraded = await stored();
      expect(upgraded).toEqual(installed);
      // Rotation as the chart's README gives it: delete the Secret, upgrade.
      const secret = `/api/v1/namespaces/${target}/secrets/${release}-cocoon-webhook-tls`;
      expect((await cluster.request("DELETE", secret)).status).toBe(200);
      await helm(["upgrade", release, CHART, ...values, "--reuse-values"]);
      const rotated = await stored();
      expect(rotated.data["ca.crt"]).not.toBe(installed.data["ca.crt"]);
      expect([...new Set(rotated.bundles)]).toEqual([String(rotated.data["ca.crt"])]);
    } finally {
      await helm(["uninstall", release, `--namespace=${target}`, "--wait"]);
    }
  }, 120_000);
});
