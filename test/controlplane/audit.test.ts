import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { POLICY_REPORT_NAME } from "../../src/cli/audit/policy-report";
import { BINARY } from "../e2e/harness";
import { findObject, render } from "../manifests/kustomize";
import { eventually } from "../support/eventually";
import { kubeconfigYaml } from "../support/kubeconfig";
import { type ControlPlane, type Identity, runCommand } from "./cluster";
import { OPERATOR, ORDINARY_USER, WEBHOOK_NAMESPACE, writeServiceAccountToken } from "./install";
import {
  COCOON_API,
  cocoonSet,
  createNamespace,
  createOwnerCocoonSet,
  expectCreated,
  gatedPod,
  hibernation,
  type KubeObject,
  pod,
  uniqueName,
  vmNode,
} from "./objects";
import { controlPlaneTier } from "./setup";

/*
 * `cocoon-webhook audit` against the real control plane: objects the webhook
 * would refuse are created while its registrations are gone (the emergency
 * disable of the operations guide), then audit runs with the token of the
 * ServiceAccount of manifests/audit and its RBAC only, and its PolicyReports
 * are applied through the apiserver (a stub of the PolicyReport CRD, see
 * test/fixtures/policyreport) with the RBAC of manifests/audit-cronjob, by
 * the CronJob's apply step, which also deletes the reports of namespaces
 * left with nothing to check.
 */

const REPO_ROOT = join(import.meta.dir, "../..");
const AUDIT_ACCOUNT = "cocoon-webhook-audit";
const AUDIT_IDENTITY: Identity = {
  user: `system:serviceaccount:${WEBHOOK_NAMESPACE}:${AUDIT_ACCOUNT}`,
};
const LONG_SET = `agents-${"x".repeat(45)}`;

let cluster: ControlPlane;
let namespace: string;
/** Holds one finding, deleted in the stale-report scenario. */
let staleNamespace: string;
let vmNodeName: string;
let auditKubeconfig: string;

async function kubectlOrThrow(args: string[], options: { as?: Identity; stdin?: string } = {}) {
  const result = await cluster.kubectl(args, options);
  if (result.exitCode !== 0) throw new Error(`kubectl ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/** A kubeconfig holding a fresh TokenRequest token of `account` in the webhook's namespace. */
async function serviceAccountKubeconfig(account: string): Promise<string> {
  const path = join(cluster.dir, `${account}-${crypto.randomUUID().slice(0, 8)}`);
  await writeServiceAccountToken(cluster, `${path}.token`, account);
  writeFileSync(
    `${path}.kubeconfig`,
    kubeconfigYaml(cluster.url, cluster.ca.cert, { tokenFile: `${path}.token` }),
  );
  return `${path}.kubeconfig`;
}

function audit(args: readonly string[], kubeconfig = auditKubeconfig) {
  return runCommand([BINARY, "audit", ...args], {
    PATH: process.env.PATH ?? "",
    KUBECONFIG: kubeconfig,
    APISERVER_LIST_PAGE_SIZE: "2",
  });
}

/**
 * The CronJob's apply step of manifests/audit-cronjob as the job runs it
 * (bash, kubectl, the audit account), on a reports file of this machine.
 */
function runApplyStep(reports: string) {
  const job = findObject(render("manifests/audit-cronjob"), "CronJob", "cocoon-webhook-audit");
  const spec = job.spec as {
    jobTemplate: { spec: { template: { spec: { containers: Record<string, string[]>[] } } } };
  };
  const [apply] = spec.jobTemplate.spec.template.spec.containers;
  const [file, ...flags] = apply?.args ?? [];
  if (!apply?.command || file !== "/reports/policyreports.json") {
    throw new Error("the apply step no longer takes the reports file as its first argument");
  }
  const cache = join(cluster.dir, "apply-step-cache");
  const kubectl = Bun.which(controlPlaneTier().kubectl) ?? controlPlaneTier().kubectl;
  return runCommand(
    [
      ...apply.command,
      reports,
      ...flags.map((flag) => (flag === "--cache-dir=/cache" ? `--cache-dir=${cache}` : flag)),
    ],
    {
      PATH: `${dirname(kubectl)}:${process.env.PATH ?? ""}`,
      KUBECONFIG: auditKubeconfig,
      HOME: cluster.dir,
    },
  );
}

const MANAGED = { "app.kubernetes.io/managed-by": "cocoon-webhook" };
/** What the apply step reads to know whether the run audited every namespace. */
const SCOPE_ANNOTATION = "audit.cocoon-webhook.cocoonstack.io/scope";

function reportPath(reportNamespace: string, name = POLICY_REPORT_NAME) {
  return `/apis/wgpolicyk8s.io/v1alpha2/namespaces/${reportNamespace}/policyreports/${name}`;
}

/** `audit -o policyreport` into a file, as the CronJob's first step writes it; its path. */
async function auditReports(args: readonly string[]): Promise<string> {
  const file = join(cluster.dir, `reports-${crypto.randomUUID().slice(0, 8)}.json`);
  const { exitCode, stderr } = await audit([
    "-o",
    "policyreport",
    "--exit-zero",
    `--output-file=${file}`,
    ...args,
  ]);
  if (exitCode !== 0) throw new Error(`audit ${args.join(" ")} exited ${exitCode}: ${stderr}`);
  return file;
}

/** A PolicyReport audit did not write (another name, or without its label); its path. */
async function createForeignReport(
  reportNamespace: string,
  name: string,
  labels: Record<string, string>,
): Promise<string> {
  await expectCreated(
    cluster.request(
      "POST",
      `/apis/wgpolicyk8s.io/v1alpha2/namespaces/${reportNamespace}/policyreports`,
      {
        body: {
          apiVersion: "wgpolicyk8s.io/v1alpha2",
          kind: "PolicyReport",
          metadata: { name, labels },
          summary: { pass: 1, fail: 0, warn: 0, error: 0, skip: 0 },
          results: [],
        },
      },
    ),
  );
  return reportPath(reportNamespace, name);
}

/** Stored once the apiserver no longer calls the (deleted) webhook registrations. */
function createWhileDown(path: string, body: KubeObject, as: Identity = ORDINARY_USER) {
  return eventually(
    () => cluster.request("POST", path, { as, body }),
    (answer) => answer.status === 201,
    30_000,
  ).then((answer) => expectCreated(Promise.resolve(answer)));
}

beforeAll(async () => {
  cluster = controlPlaneTier().cluster;
  namespace = await createNamespace(cluster, "audit");
  staleNamespace = await createNamespace(cluster, "audit-stale");
  vmNodeName = uniqueName("vm-node");
  await expectCreated(cluster.request("POST", "/api/v1/nodes", { body: vmNode(vmNodeName) }));
  await kubectlOrThrow([
    "apply",
    "--server-side",
    "-f",
    join(REPO_ROOT, "test/fixtures/policyreport/policyreports.wgpolicyk8s.io.yaml"),
  ]);
  await kubectlOrThrow([
    "wait",
    "--for=condition=Established",
    "--timeout=30s",
    "crd/policyreports.wgpolicyk8s.io",
  ]);
  await kubectlOrThrow([
    "apply",
    "--server-side",
    "-k",
    join(REPO_ROOT, "manifests/audit-cronjob"),
  ]);
  auditKubeconfig = await serviceAccountKubeconfig(AUDIT_ACCOUNT);

  // A valid set with a pod its operator made: audit must leave both alone.
  const owner = await createOwnerCocoonSet(cluster, namespace);
  await expectCreated(
    cluster.request("POST", `/api/v1/namespaces/${namespace}/pods`, {
      as: OPERATOR,
      body: gatedPod("agents-0", owner),
    }),
  );

  const { webhook } = controlPlaneTier();
  await kubectlOrThrow([
    "delete",
    "mutatingwebhookconfiguration/cocoon-webhook",
    "validatingwebhookconfiguration/cocoon-webhook",
  ]);
  try {
    await createWhileDown(`${COCOON_API}/namespaces/${namespace}/cocoonsets`, cocoonSet(LONG_SET));
    await createWhileDown(
      `${COCOON_API}/namespaces/${namespace}/cocoonhibernations`,
      hibernation("vm-0"),
    );
    const second = hibernation("vm-0");
    second.metadata.name = "vm-0-again";
    await createWhileDown(`${COCOON_API}/namespaces/${namespace}/cocoonhibernations`, second);
    await createWhileDown(`/api/v1/namespaces/${namespace}/pods`, gatedPod("by-hand"));
    await createWhileDown(
      `/api/v1/namespaces/${namespace}/pods`,
      pod("squatter", { spec: { nodeName: vmNodeName } }),
    );
    await createWhileDown(`/api/v1/namespaces/${staleNamespace}/pods`, gatedPod("by-hand"));
  } finally {
    await webhook.applyManifests();
  }
}, 120_000);

afterAll(async () => {
  await cluster.request("DELETE", `/api/v1/nodes/${vmNodeName}`);
});

describe("cocoon-webhook audit on a real control plane, with its documented RBAC", () => {
  test("every object the webhook would refuse, and nothing else; exit 1", async () => {
    const { exitCode, stdout, stderr } = await audit(["-n", namespace, "-o", "json"]);
    // The tier's other scenarios leave nodes behind: every other count is this namespace's.
    expect(stderr).toContain("5 errors, 0 warnings, 0 notices about 4 objects; ");
    expect(stderr).toContain(`checked in namespace "${namespace}" (`);
    expect(stderr).toContain(
      " 2 CocoonSets, 0 Sandboxes, 2 CocoonHibernations, 3 Pods, 0 Deployments, 0 StatefulSets)\n",
    );
    expect(exitCode).toBe(1);
    const findings = JSON.parse(stdout) as Record<string, string>[];
    expect(
      findings.map(
        ({ severity, kind, name, path, rule }) => `${severity} ${kind} ${name} ${path} ${rule}`,
      ),
    ).toEqual([
      `error CocoonSet ${LONG_SET} metadata.name set.derived-name-budget`,
      "error CocoonHibernation vm-0-again metadata.name hibernation.name-matches-pod",
      "error CocoonHibernation vm-0-again spec.podRef.name hibernation.one-per-pod",
      "error Pod by-hand metadata.ownerReferences pod.not-owned",
      "error Pod squatter spec.nodeName pod.unmarked-on-vm-node",
    ]);
    const squatter = findings.find((finding) => finding.name === "squatter");
    expect(squatter?.message).toContain(`runs on "${vmNodeName}", a VM node`);
    // The apiserver records who wrote the pod; the impersonated user's client is kubectl-less here.
    expect(findings.find((finding) => finding.name === "by-hand")?.message).toMatch(
      /field manager "[^"]+" \(Update, /,
    );
    expect(findings.every((finding) => finding.uid !== "")).toBe(true);
  });

  test("every namespace: the same findings among the tier's others, every kind checked", async () => {
    const { exitCode, stdout, stderr } = await audit(["-o", "text"]);
    expect(exitCode).toBe(1);
    expect(stderr).toBe("");
    expect(stdout).toContain(`error: Pod ${namespace}/by-hand: metadata.ownerReferences: `);
    expect(stdout).not.toContain("could not check");
  });

  test("its PolicyReport, applied with the CronJob's RBAC, is stored as audit wrote it", async () => {
    const { exitCode, stdout } = await audit([
      "-n",
      namespace,
      "-o",
      "policyreport",
      "--exit-zero",
    ]);
    expect(exitCode).toBe(0);
    await kubectlOrThrow(
      ["apply", "--server-side", "--field-manager=cocoon-webhook-audit", "-f", "-"],
      { as: AUDIT_IDENTITY, stdin: stdout },
    );
    const stored = await cluster.request("GET", reportPath(namespace));
    expect(stored.status).toBe(200);
    // Checked here: 2 sets, 2 hibernations, 3 pods; 4 of them with (5) findings.
    expect(stored.body.summary).toEqual({ pass: 3, fail: 5, warn: 0, error: 0, skip: 0 });
    expect(stored.body.results.map((result: { rule: string }) => result.rule)).toEqual([
      "set.derived-name-budget",
      "hibernation.name-matches-pod",
      "hibernation.one-per-pod",
      "pod.not-owned",
      "pod.unmarked-on-vm-node",
    ]);
    expect(stored.body.results[3].resources).toEqual([
      expect.objectContaining({ apiVersion: "v1", kind: "Pod", namespace, name: "by-hand" }),
    ]);
    // The audit account may write reports, and nothing else.
    const denied = await cluster.request("DELETE", `/api/v1/namespaces/${namespace}/pods/by-hand`, {
      as: AUDIT_IDENTITY,
    });
    expect(denied.status).toBe(403);
  });

  test("the CronJob's apply step applies the reports, and fails on a file audit never wrote", async () => {
    await cluster.request("DELETE", reportPath(namespace));
    expect((await cluster.request("GET", reportPath(namespace))).status).toBe(404);
    const applied = await runApplyStep(await auditReports(["-n", namespace]));
    expect(applied.stderr).toBe("");
    expect(applied.exitCode).toBe(0);
    const stored = await cluster.request("GET", reportPath(namespace));
    expect(stored.status).toBe(200);
    expect(stored.body.summary).toEqual({ pass: 3, fail: 5, warn: 0, error: 0, skip: 0 });
    // A file audit never wrote fails the job: it is not the same as no reports.
    expect((await runApplyStep(join(cluster.dir, "never-written.json"))).exitCode).not.toBe(0);
    expect((await cluster.request("GET", reportPath(namespace))).status).toBe(200);
  });

  test("a namespace left with nothing to check loses its report; no one else's report is touched", async () => {
    const otherName = await createForeignReport(staleNamespace, "someone-elses-audit", MANAGED);
    const emptyNamespace = await createNamespace(cluster, "audit-unlabelled");
    const unlabelled = await createForeignReport(emptyNamespace, POLICY_REPORT_NAME, {});

    const first = await runApplyStep(await auditReports([]));
    expect(first.stderr).toBe("");
    expect(first.exitCode).toBe(0);
    const found = await cluster.request("GET", reportPath(staleNamespace));
    expect(found.status).toBe(200);
    expect(found.body.summary).toEqual({ pass: 0, fail: 1, warn: 0, error: 0, skip: 0 });

    await cluster.request("DELETE", `/api/v1/namespaces/${staleNamespace}/pods/by-hand`);
    await eventually(
      () => cluster.request("GET", `/api/v1/namespaces/${staleNamespace}/pods/by-hand`),
      (answer) => answer.status === 404,
      30_000,
    );
    const reports = await auditReports([]);
    expect(readFileSync(reports, "utf8")).not.toContain(`"namespace": "${staleNamespace}"`);
    const next = await runApplyStep(reports);
    expect(next.stderr).toBe("");
    expect(next.exitCode).toBe(0);
    expect(next.stdout).toContain(
      `no object left to check in namespace ${staleNamespace}: deleting its report`,
    );
    expect((await cluster.request("GET", reportPath(staleNamespace))).status).toBe(404);
    expect((await cluster.request("GET", reportPath(namespace))).status).toBe(200);
    for (const report of [otherName, unlabelled]) {
      expect((await cluster.request("GET", report)).status).toBe(200);
    }
  });

  test("after a --namespace run only that namespace's report changes, even with nothing in it", async () => {
    const reports = await auditReports(["-n", staleNamespace]);
    const applied = await runApplyStep(reports);
    expect(applied.stderr).toBe("");
    expect(applied.exitCode).toBe(0);
    expect(applied.stdout).toContain("reports in other namespaces left alone");
    const cleared = await cluster.request("GET", reportPath(staleNamespace));
    expect(cleared.status).toBe(200);
    expect(cleared.body.summary).toEqual({ pass: 0, fail: 0, warn: 0, error: 0, skip: 0 });
    expect(cleared.body.metadata.annotations).toEqual({
      [SCOPE_ANNOTATION]: "namespace",
    });
    // Not written by this run, and still where the last all-namespaces run put it.
    expect((await cluster.request("GET", reportPath(namespace))).status).toBe(200);
  });

  test("a run that writes no report applies nothing, succeeds, and deletes every earlier one", async () => {
    // What audit writes when no namespace had an object to check (test/cli/audit.test.ts): no
    // namespace here is empty of them, so the file is written as audit would write it.
    const nothing = join(cluster.dir, "no-reports.json");
    writeFileSync(nothing, `${JSON.stringify({ apiVersion: "v1", kind: "List", items: [] })}\n`);
    const refused = await cluster.kubectl(["apply", "--server-side", "-f", "-"], {
      as: AUDIT_IDENTITY,
      stdin: readFileSync(nothing, "utf8"),
    });
    expect(refused.stderr).toContain("no objects passed to apply");
    const foreign = await createForeignReport(namespace, "someone-elses-audit", MANAGED);
    const skipped = await runApplyStep(nothing);
    expect(skipped.stderr).toBe("");
    expect(skipped.stdout).toContain("no PolicyReport to apply");
    expect(skipped.exitCode).toBe(0);
    for (const cleared of [namespace, staleNamespace]) {
      expect((await cluster.request("GET", reportPath(cleared))).status).toBe(404);
    }
    expect((await cluster.request("GET", foreign)).status).toBe(200);
    const left = await kubectlOrThrow([
      "get",
      "policyreports.wgpolicyk8s.io",
      "--all-namespaces",
      "--selector=app.kubernetes.io/managed-by=cocoon-webhook",
      `--field-selector=metadata.name=${POLICY_REPORT_NAME}`,
      "--output=name",
    ]);
    expect(left).toBe("");
  });

  test("without list on a kind: 'could not check' it and exit 2, never a clean result", async () => {
    // The webhook's own account may get pods and list hibernations, but not list pods or sets.
    const { exitCode, stderr } = await audit(
      ["-n", namespace],
      await serviceAccountKubeconfig("cocoon-webhook"),
    );
    expect(exitCode).toBe(2);
    expect(stderr).toContain("cocoon-webhook audit: could not check Pods: LIST pods in ");
    expect(stderr).toContain("apiserver answered 403 Forbidden");
    expect(stderr).toContain("could not check CocoonSets");
  });
});

describe("cocoon-webhook audit tells forged owners on a real control plane", () => {
  test("a VM pod whose CocoonSet owner reference carries another uid is a forged owner; its operator's pod is not", async () => {
    const forgedNamespace = await createNamespace(cluster, "audit-forged");
    const owner = await createOwnerCocoonSet(cluster, forgedNamespace);
    const pods = `/api/v1/namespaces/${forgedNamespace}/pods`;
    await expectCreated(
      cluster.request("POST", pods, { as: OPERATOR, body: gatedPod("real-0", owner) }),
    );
    // The operator's identity passes the gate whatever uid it writes: only audit can tell.
    const forged = gatedPod("forged-0", owner);
    forged.metadata.ownerReferences[0].uid = crypto.randomUUID();
    await expectCreated(cluster.request("POST", pods, { as: OPERATOR, body: forged }));

    const { exitCode, stdout } = await audit(["-n", forgedNamespace, "-o", "json"]);
    expect(exitCode).toBe(1);
    const findings = JSON.parse(stdout) as { name: string; rule: string; path: string }[];
    expect(findings.map(({ name, rule, path }) => `${name} ${rule} ${path}`)).toEqual([
      "forged-0 pod.forged-owner metadata.ownerReferences[0]",
    ]);
  });
});
