import { describe, expect, test } from "bun:test";
import { AUDITED_RESOURCES } from "../../src/cli/audit/resources";
import { AUDIT_ACCOUNT } from "../../src/cli/audit/scan";
import {
  findObject,
  KUBECTL,
  type KubeObject,
  kubectlKustomize,
  objectKey,
  render,
} from "./kustomize";
import { validateSchema } from "./schemas";

/*
 * manifests/audit (the read-only RBAC of `cocoon-webhook audit`) and the
 * opt-in manifests/audit-cronjob: schema-valid, least privilege, and the job
 * runs the command the way docs/cli.md documents it.
 */

const audit = render("manifests/audit");
const cronjob = render("manifests/audit-cronjob");
const byKey = (objects: readonly KubeObject[]) =>
  objects.toSorted((a, b) => objectKey(a).localeCompare(objectKey(b)));
// biome-ignore lint/suspicious/noExplicitAny: rendered manifests, read field by field
const get = (objects: readonly KubeObject[], kind: string, name: string): any =>
  findObject(objects, kind, name);

describe("manifests/audit", () => {
  test("every object is valid against its kind's schema", () => {
    for (const object of [...audit, ...cronjob]) validateSchema(object);
  });

  test.skipIf(KUBECTL === undefined)("the same objects as kubectl kustomize", () => {
    expect(byKey(kubectlKustomize("manifests/audit"))).toEqual(byKey(audit));
    expect(byKey(kubectlKustomize("manifests/audit-cronjob"))).toEqual(byKey(cronjob));
  });

  test("its ServiceAccount and ClusterRole are the ones a 403 to audit names", () => {
    const { namespace, serviceAccount, clusterRole } = AUDIT_ACCOUNT;
    expect(get(audit, "ServiceAccount", serviceAccount).metadata.namespace).toBe(namespace);
    const binding = get(audit, "ClusterRoleBinding", clusterRole);
    expect(binding.roleRef).toMatchObject({ kind: "ClusterRole", name: clusterRole });
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: serviceAccount, namespace }]);
  });

  test("the ClusterRole lists exactly the kinds audit reads, and does nothing else", () => {
    const granted = get(audit, "ClusterRole", "cocoon-webhook-audit").rules.flatMap(
      (rule: { apiGroups: string[]; resources: string[]; verbs: string[] }) =>
        rule.apiGroups.flatMap((group) =>
          rule.resources.map((resource) => `${group}/${resource}: ${rule.verbs.join(",")}`),
        ),
    );
    const read = AUDITED_RESOURCES.map((resource) => `${resource.group}/${resource.plural}: list`);
    expect(granted.toSorted()).toEqual(read.toSorted());
    const binding = get(audit, "ClusterRoleBinding", "cocoon-webhook-audit");
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: "cocoon-webhook-audit", namespace: "cocoon-system" },
    ]);
  });
});

describe("manifests/audit-cronjob", () => {
  const job = get(cronjob, "CronJob", "cocoon-webhook-audit");
  const pod = job.spec.jobTemplate.spec.template.spec;

  test("includes manifests/audit; the only write is to PolicyReports", () => {
    for (const object of audit) expect(cronjob).toContainEqual(object);
    expect(get(cronjob, "ClusterRole", "cocoon-webhook-audit-reports").rules).toEqual([
      {
        apiGroups: ["wgpolicyk8s.io"],
        resources: ["policyreports"],
        verbs: ["get", "list", "create", "patch", "delete"],
      },
    ]);
    expect(pod.serviceAccountName).toBe("cocoon-webhook-audit");
  });

  test("audits into the shared volume with the webhook's image and POD_CREATORS, then applies it", () => {
    const deployment = get(render("manifests/default"), "Deployment", "cocoon-webhook");
    const webhook = deployment.spec.template.spec.containers[0];
    const [auditStep] = pod.initContainers;
    expect(auditStep.image).toBe(webhook.image);
    expect(auditStep.args).toEqual([
      "audit",
      "--output=policyreport",
      "--exit-zero",
      "--output-file=/reports/policyreports.json",
    ]);
    // Both read POD_CREATORS from the one ConfigMap.
    const creators = (container: { env: { name: string; valueFrom?: unknown }[] }) =>
      container.env.find((variable) => variable.name === "POD_CREATORS")?.valueFrom;
    expect(creators(auditStep)).toEqual({
      configMapKeyRef: { name: "cocoon-webhook-identities", key: "POD_CREATORS" },
    });
    expect(creators(auditStep)).toEqual(creators(webhook));
    const [apply] = pod.containers;
    expect(apply.command).toEqual([
      "bash",
      "-c",
      expect.stringContaining("kubectl apply"),
      "apply-reports",
    ]);
    expect(apply.command[2]).toContain('kubectl apply "$@" --server-side');
    expect(apply.command[2]).toContain('kubectl delete "$@" policyreports.wgpolicyk8s.io');
    expect(apply.args).toEqual(["/reports/policyreports.json", "--cache-dir=/cache"]);
    expect(pod.restartPolicy).toBe("Never");
    for (const container of [auditStep, apply]) {
      expect(container.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
      expect(container.resources.limits.memory).toBeDefined();
    }
  });
});
