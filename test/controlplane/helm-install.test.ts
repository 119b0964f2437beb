import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ControlPlane } from "./cluster";
import {
  CHART,
  docsBlock,
  HELM_VERSIONS,
  helmOrThrow,
  localValues,
  RELEASE,
  releaseExists,
  runDocsBlock,
  runHelm,
} from "./helm";
import {
  parseYaml,
  registerCertManagerKinds,
  strictServerDryRun,
  WEBHOOK_NAMESPACE,
} from "./install";
import { controlPlaneTier } from "./setup";

/*
 * A first install that fails must leave nothing that intercepts requests,
 * under Helm 4 and Helm 3, on a real apiserver:
 *
 * - a value the chart's schema refuses: nothing is created at all;
 * - a value only the apiserver refuses (requests above limits), and an
 *   image that never starts: with the flags docs/installation.md gives
 *   (--rollback-on-failure / --atomic), the release is removed,
 *   registrations included. This control plane has no kubelet and no
 *   controller-manager, so no Deployment ever becomes available here: every
 *   image is one that never starts, which is what the second case needs;
 * - without the flags, the registrations stay (what NOTES and the docs warn
 *   of) until the documented `helm uninstall`.
 *
 * And the move from a kustomize install to the chart, as the docs give it.
 * manifests/default is installed before and after this file.
 */

let cluster: ControlPlane;

const WEBHOOK_CONFIGURATIONS = [
  "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/cocoon-webhook",
  "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/cocoon-webhook",
];

/** The HTTP status of a GET of each registration: 404 when nothing intercepts. */
const registrations = () =>
  Promise.all(
    WEBHOOK_CONFIGURATIONS.map(async (path) => (await cluster.request("GET", path)).status),
  );

const install = (helm: (typeof HELM_VERSIONS)[number], ...args: string[]) =>
  runHelm(helm, [
    "install",
    RELEASE,
    CHART,
    `--namespace=${WEBHOOK_NAMESPACE}`,
    ...localValues(),
    ...args,
  ]);

beforeAll(async () => {
  cluster = controlPlaneTier().cluster;
  await registerCertManagerKinds(cluster);
});

test("every object the chart can render passes a strict server-side dry-run, every switch on", async () => {
  const [helm4] = HELM_VERSIONS;
  if (!helm4) throw new Error("no Helm");
  const rendered = await helmOrThrow(helm4, [
    "template",
    RELEASE,
    CHART,
    `--namespace=${WEBHOOK_NAMESPACE}`,
    // helm template knows no cluster: this one serves cert-manager's kinds (registered above).
    "--api-versions=cert-manager.io/v1",
    "--set=autoscaling.enabled=true,networkPolicy.enabled=true,monitoring.dashboard.enabled=true",
    "--set=networkPolicy.egress[0].ports[0].port=6443",
    "--set=affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key=kubernetes.io/os",
    "--set=affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator=Exists",
    "--set=ports.admission=9443,podSecurityContext.runAsUser=1000,securityContext.runAsUser=1000",
    "--set=audit.rbac.enabled=true,audit.cronJob.enabled=true",
  ]);
  const kinds = parseYaml(rendered).map((object) => object.kind);
  expect(kinds).toEqual(
    expect.arrayContaining(["HorizontalPodAutoscaler", "NetworkPolicy", "Pod", "CronJob"]),
  );
  const dryRun = await strictServerDryRun(cluster, rendered);
  expect(dryRun.stderr).toBe("");
  expect(dryRun.exitCode).toBe(0);
});

describe.each(HELM_VERSIONS)("moving from kustomize to the chart with $name", (helm) => {
  test("refused while the objects are kustomize's; after the docs' hand-over, adopted without a gap", async () => {
    const refused = await install(helm, "--set=replicaCount=0");
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain("invalid ownership metadata");
    const before = await Promise.all(
      WEBHOOK_CONFIGURATIONS.map(
        async (path) => (await cluster.request("GET", path)).body.metadata.uid,
      ),
    );

    const handOver = await runDocsBlock(
      helm,
      docsBlock("docs/installation.md", "kubectl -n cocoon-system label"),
    );
    expect(handOver.stderr).toBe("");
    const installed = await install(
      helm,
      "--set=replicaCount=0",
      ...helm.rollbackOnFailure,
      "--timeout=60s",
    );
    expect(installed.stderr).not.toContain("Error");
    expect(installed.exitCode).toBe(0);
    // The same objects, never deleted: the registrations intercepted throughout.
    const after = await Promise.all(
      WEBHOOK_CONFIGURATIONS.map(async (path) => (await cluster.request("GET", path)).body),
    );
    expect(after.map((object) => object.metadata.uid)).toEqual(before);
    for (const object of after) {
      expect(object.metadata.labels["app.kubernetes.io/managed-by"]).toBe("Helm");
    }

    // docs/cli.md switches audit's objects on in the release; the audit scenario may have
    // installed them with kustomize first (and reinstalls them in its own setup).
    await cluster.kubectl([
      "delete",
      "-k",
      join(import.meta.dir, "../../manifests/audit-cronjob"),
      "--ignore-not-found",
      "--wait",
    ]);
    const auditOn = await runDocsBlock(
      helm,
      docsBlock("docs/cli.md", "audit's ServiceAccount and list-only ClusterRole only"),
    );
    expect(auditOn.stderr).toBe("");
    expect(auditOn.exitCode).toBe(0);
    const cronJob = await cluster.request(
      "GET",
      `/apis/batch/v1/namespaces/${WEBHOOK_NAMESPACE}/cronjobs/cocoon-webhook-audit`,
    );
    expect(cronJob.status).toBe(200);
    expect(cronJob.body.spec.schedule).toBe("@daily");
    expect(cronJob.body.metadata.labels["app.kubernetes.io/managed-by"]).toBe("Helm");

    await helmOrThrow(helm, ["uninstall", RELEASE, `--namespace=${WEBHOOK_NAMESPACE}`, "--wait"]);
    expect(await registrations()).toEqual([404, 404]);
    await controlPlaneTier().webhook.applyManifests();
  }, 180_000);
});

describe.each(HELM_VERSIONS)("a first install that fails, with $name", (helm) => {
  beforeAll(async () => {
    await controlPlaneTier().webhook.removeManifests();
    expect(await registrations()).toEqual([404, 404]);
  }, 60_000);

  afterAll(async () => {
    if (await releaseExists(helm)) {
      await helmOrThrow(helm, ["uninstall", RELEASE, `--namespace=${WEBHOOK_NAMESPACE}`, "--wait"]);
    }
    await controlPlaneTier().webhook.applyManifests();
  }, 120_000);

  test("a value the schema refuses creates nothing", async () => {
    const result = await install(helm, "--set=resources.limtis.memory=1Gi");
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("limtis");
    expect(await releaseExists(helm)).toBe(false);
    expect(await registrations()).toEqual([404, 404]);
    const role = await cluster.request(
      "GET",
      "/apis/rbac.authorization.k8s.io/v1/clusterroles/cocoon-webhook",
    );
    expect(role.status).toBe(404);
  });

  test("a Deployment the apiserver refuses: rolled back, no registration left", async () => {
    const result = await install(
      helm,
      "--set=resources.requests.memory=1Gi",
      "--set=resources.limits.memory=512Mi",
      ...helm.rollbackOnFailure,
      "--timeout=60s",
    );
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("must be less than or equal to memory limit");
    expect(await releaseExists(helm)).toBe(false);
    expect(await registrations()).toEqual([404, 404]);
  }, 120_000);

  test("an image that never starts: removed when --timeout passes, no registration left", async () => {
    const result = await install(
      helm,
      "--set=image.tag=never-starts",
      ...helm.rollbackOnFailure,
      "--timeout=15s",
    );
    expect(result.exitCode).not.toBe(0);
    expect(await releaseExists(helm)).toBe(false);
    expect(await registrations()).toEqual([404, 404]);
    const deployment = await cluster.request(
      "GET",
      `/apis/apps/v1/namespaces/${WEBHOOK_NAMESPACE}/deployments/cocoon-webhook`,
    );
    expect(deployment.status).toBe(404);
  }, 120_000);

  test("without the flags the registrations stay, until the helm uninstall NOTES names", async () => {
    const result = await install(
      helm,
      "--set=resources.requests.memory=1Gi",
      "--set=resources.limits.memory=512Mi",
    );
    expect(result.exitCode).not.toBe(0);
    expect(await registrations()).toEqual([200, 200]);
    await helmOrThrow(helm, ["uninstall", RELEASE, `--namespace=${WEBHOOK_NAMESPACE}`, "--wait"]);
    expect(await registrations()).toEqual([404, 404]);
  }, 120_000);
});
