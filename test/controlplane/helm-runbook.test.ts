import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import packageJson from "../../package.json";
import type { ControlPlane } from "./cluster";
import {
  CHART,
  docsBlock,
  HELM_VERSIONS,
  helmOrThrow,
  localValues,
  RELEASE,
  runDocsBlock,
} from "./helm";
import { WEBHOOK_NAMESPACE } from "./install";
import { controlPlaneTier } from "./setup";

/*
 * The emergency runbook of docs/operations.md, its shell blocks run as
 * written with Helm 4 and with Helm 3 against a release of the chart (URL
 * mode: the tier's webhook process answers, nothing waits for a pod): each
 * way of disabling, then that Helm's re-enable block, which must bring back
 * the chart's registrations with failurePolicy Fail.
 */

const RUNBOOK = "docs/operations.md";
let cluster: ControlPlane;

const REGISTRATIONS = {
  mutating: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/cocoon-webhook",
  validating:
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/cocoon-webhook",
};

/** Every webhook's failurePolicy, by registration; absent when the registration is. */
async function failurePolicies(): Promise<Record<string, string[] | undefined>> {
  const entries = await Promise.all(
    Object.entries(REGISTRATIONS).map(async ([name, path]) => {
      const answer = await cluster.request("GET", path);
      if (answer.status === 404) return [name, undefined] as const;
      return [
        name,
        (answer.body.webhooks as { failurePolicy: string }[]).map(
          (webhook) => webhook.failurePolicy,
        ),
      ] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** The pod gate in the mutating registration; the scale guard and the two CR checks in the validating one. */
const ALL_FAIL = { mutating: ["Fail"], validating: ["Fail", "Fail", "Fail"] };
/** After the runbook's patch of the scale guard (the validating registration's first webhook). */
const GUARD_IGNORED = ["Ignore", "Fail", "Fail"];

beforeAll(async () => {
  cluster = controlPlaneTier().cluster;
  await controlPlaneTier().webhook.removeManifests();
}, 60_000);

afterAll(async () => {
  await controlPlaneTier().webhook.applyManifests();
}, 120_000);

describe.each(HELM_VERSIONS)("the emergency runbook with $name", (helm) => {
  const reEnable = docsBlock(RUNBOOK, `# Re-enable, ${helm.name}`);

  beforeAll(async () => {
    await helmOrThrow(helm, [
      "install",
      RELEASE,
      CHART,
      `--namespace=${WEBHOOK_NAMESPACE}`,
      "--set=replicaCount=0",
      ...localValues(),
    ]);
    const policies = await failurePolicies();
    expect(policies).toEqual(ALL_FAIL);
  }, 60_000);

  afterAll(async () => {
    await helmOrThrow(helm, ["uninstall", RELEASE, `--namespace=${WEBHOOK_NAMESPACE}`, "--wait"]);
  }, 60_000);

  test("the re-enable block finds the installed chart version", async () => {
    const [versionLine = ""] = reEnable.split("\n").filter((line) => line.startsWith("v="));
    const printed = await runDocsBlock(helm, `${versionLine}\necho "$v"`);
    expect(printed.stdout.trim()).toBe(packageJson.version);
  });

  test("patched to Ignore, then re-enabled: Fail again", async () => {
    const patched = await runDocsBlock(
      helm,
      docsBlock(RUNBOOK, "kubectl patch validatingwebhookconfiguration"),
    );
    expect(patched.exitCode).toBe(0);
    expect((await failurePolicies()).validating).toEqual(GUARD_IGNORED);

    const result = await runDocsBlock(helm, reEnable);
    expect(result.stderr).not.toContain("Error");
    expect(result.exitCode).toBe(0);
    expect(await failurePolicies()).toEqual(ALL_FAIL);
  }, 120_000);

  test("registrations deleted, then re-enabled: back, with failurePolicy Fail", async () => {
    const deleted = await runDocsBlock(
      helm,
      docsBlock(RUNBOOK, "kubectl delete mutatingwebhookconfiguration"),
    );
    expect(deleted.exitCode).toBe(0);
    expect(await failurePolicies()).toEqual({ mutating: undefined, validating: undefined });

    const result = await runDocsBlock(helm, reEnable);
    expect(result.exitCode).toBe(0);
    expect(await failurePolicies()).toEqual(ALL_FAIL);
  }, 120_000);

  if (helm.name === "Helm 4") {
    test("without --force-conflicts, Helm 4 stops on kubectl's field and leaves Ignore (why the flag)", async () => {
      await runDocsBlock(helm, docsBlock(RUNBOOK, "kubectl patch validatingwebhookconfiguration"));
      const result = await runDocsBlock(helm, reEnable.replace(" --force-conflicts", ""));
      expect(result.exitCode).not.toBe(0);
      expect(result.stderr).toContain("conflict");
      expect((await failurePolicies()).validating).toEqual(GUARD_IGNORED);
      expect((await runDocsBlock(helm, reEnable)).exitCode).toBe(0);
      expect(await failurePolicies()).toEqual(ALL_FAIL);
    }, 120_000);
  }
});
