import { describe, expect, test } from "bun:test";
import {
  cocoonSetFindings,
  HibernationAudit,
  podFindings,
  vmNodeNames,
  workloadFindings,
} from "../../src/cli/audit/checks";
import { renderAudit, summaryLine } from "../../src/cli/audit/output";
import { scanCluster } from "../../src/cli/audit/scan";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import { DEFAULT_POD_CREATORS, parsePodCreators } from "../../src/cocoon/pod-creators";
import type { JsonObject } from "../../src/json/read";
import { KubeApiError } from "../../src/kube/kube-api";
import type { KubeLister } from "../../src/kube/list-stream";

const parsed = parsePodCreators(DEFAULT_POD_CREATORS);
if (!("podCreators" in parsed)) throw new Error("the default POD_CREATORS must parse");
const { podCreators } = parsed;

const TOLERATION = { key: COCOON_TOLERATION_KEY, operator: "Exists" };
const COCOONSET_OWNER = { apiVersion: "cocoonset.cocoonstack.io/v1", kind: "CocoonSet", name: "s" };
const SANDBOX_OWNER = { apiVersion: "agents.x-k8s.io/v1beta1", kind: "Sandbox", name: "s" };
const REPLICASET_OWNER = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-1" };
/** Read by the CronJob's apply step (manifests/audit-cronjob): written out, not imported. */
const SCOPE_ANNOTATION = "audit.cocoon-webhook.cocoonstack.io/scope";

const object = (
  namespace: string,
  name: string,
  rest: JsonObject = {},
  metadata: JsonObject = {},
) => ({
  metadata: { namespace, name, uid: `uid-${name}`, ...metadata },
  ...rest,
});

const rulesOf = (findings: readonly { severity: string; rule: string; path: string }[]) =>
  findings.map(({ severity, rule, path }) => `${severity} ${rule} ${path}`);

describe("CocoonSets: every rule of /validate-cocoonset", () => {
  test("a valid set has no finding", () => {
    const set = object("team-a", "agents", { spec: { agent: { image: "agent:1", replicas: 2 } } });
    expect(cocoonSetFindings("cocoonset.cocoonstack.io/v1", set)).toEqual([]);
  });

  test("the name budget counts the set's own namespace; each finding names the object", () => {
    const namespace = "a-namespace-with-a-rather-long-name-indeed";
    const set = object(namespace, "agents-of-the-team", { spec: { agent: { image: "agent:1" } } });
    const findings = cocoonSetFindings("cocoonset.cocoonstack.io/v1", set);
    expect(rulesOf(findings)).toEqual(["error set.derived-name-budget metadata.name"]);
    expect(findings[0]).toMatchObject({
      apiVersion: "cocoonset.cocoonstack.io/v1",
      kind: "CocoonSet",
      namespace,
      name: "agents-of-the-team",
      uid: "uid-agents-of-the-team",
    });
    expect(
      cocoonSetFindings("v", { ...set, metadata: { ...set.metadata, namespace: "a" } }),
    ).toEqual([]);
  });

  test("every violation is reported, none capped", () => {
    const toolboxes = Array.from({ length: 30 }, () => ({ mode: "run" }));
    const set = object("a", "s", { spec: { agent: { image: "agent:1" }, toolboxes } });
    expect(cocoonSetFindings("v", set).length).toBeGreaterThan(20);
  });
});

describe("CocoonHibernations: their own rules, then one per pod in the order they were created", () => {
  const hibernation = (name: string, pod: string, created: string, extra: JsonObject = {}) =>
    object(
      "team-a",
      name,
      { spec: { desire: "Hibernate", podRef: { name: pod } } },
      {
        creationTimestamp: created,
        ...extra,
      },
    );

  test("a wrong desire and a name that is not the pod's", () => {
    const audit = new HibernationAudit();
    const own = audit.check(
      "v",
      object("team-a", "other", { spec: { desire: "hibernate", podRef: { name: "vm-0" } } }),
    );
    expect(rulesOf(own)).toEqual([
      "error hibernation.desire spec.desire",
      "error hibernation.name-matches-pod metadata.name",
    ]);
    expect(audit.conflicts()).toEqual([]);
  });

  test("the later of two for one pod is the duplicate, whatever order the LIST gave", () => {
    const audit = new HibernationAudit();
    audit.check("v", hibernation("vm-0-b", "vm-0", "2026-01-02T00:00:00Z"));
    audit.check("v", hibernation("vm-0", "vm-0", "2026-01-01T00:00:00Z"));
    const conflicts = audit.conflicts();
    expect(rulesOf(conflicts)).toEqual(["error hibernation.one-per-pod spec.podRef.name"]);
    expect(conflicts[0]?.name).toBe("vm-0-b");
    expect(conflicts[0]?.message).toContain('already has CocoonHibernation "vm-0"');
  });

  test("one beside a terminating one waits for it; other namespaces do not conflict", () => {
    const audit = new HibernationAudit();
    audit.check(
      "v",
      hibernation("vm-0", "vm-0", "2026-01-01T00:00:00Z", {
        deletionTimestamp: "2026-01-03T00:00:00Z",
      }),
    );
    audit.check("v", hibernation("vm-0-new", "vm-0", "2026-01-02T00:00:00Z"));
    audit.check("v", {
      ...hibernation("vm-0", "vm-0", "2026-01-01T00:00:00Z"),
      metadata: { namespace: "b", name: "vm-0" },
    });
    expect(rulesOf(audit.conflicts())).toEqual([
      "error hibernation.wait-for-terminating spec.podRef.name",
    ]);
  });
});

describe("pods: as the pod gate would judge them on CREATE", () => {
  const context = { podCreators, vmNodes: new Set(["vm-node"]) };
  const gated = (ownerReferences: JsonObject[], spec: JsonObject = {}) =>
    object("team-a", "p", { spec: { tolerations: [TOLERATION], ...spec } }, { ownerReferences });

  test("a gated pod with an owner of a paired kind passes: its creator cannot be checked now", () => {
    expect(podFindings(gated([COCOONSET_OWNER]), context)).toEqual([]);
    expect(podFindings(gated([SANDBOX_OWNER]), context)).toEqual([]);
  });

  test("a gated pod without one is not_owned, with the field manager that made it as a hint", () => {
    const byAnnotation = object(
      "team-a",
      "p",
      { spec: {} },
      {
        annotations: { [VM_NAME_ANNOTATION]: "vk" },
        ownerReferences: [REPLICASET_OWNER],
        managedFields: [
          { manager: "late", operation: "Update", time: "2026-01-02T00:00:00Z" },
          { manager: "kubectl-create", operation: "Update", time: "2026-01-01T00:00:00Z" },
        ],
      },
    );
    const [finding, ...rest] = podFindings(byAnnotation, context);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      severity: "error",
      rule: "pod.not-owned",
      kind: "Pod",
      apiVersion: "v1",
    });
    expect(finding?.message).toContain(
      'field manager "kubectl-create" (Update, 2026-01-01T00:00:00Z) (the requester itself is not stored',
    );
    expect(finding?.message).toContain("CocoonSet or Sandbox owner");
    expect(podFindings(gated([]), context)[0]?.message).toContain(
      "(none recorded in metadata.managedFields)",
    );
  });

  test("POD_CREATORS decides which owner kinds count", () => {
    const only = parsePodCreators("someone=cocoonset.cocoonstack.io/CocoonSet");
    if (!("podCreators" in only)) throw new Error("must parse");
    expect(
      rulesOf(podFindings(gated([SANDBOX_OWNER]), { ...context, podCreators: only.podCreators })),
    ).toEqual(["error pod.not-owned metadata.ownerReferences"]);
  });

  test("an unmarked pod on a VM node: an error, a warning when an owner or a keyless toleration may explain it", () => {
    const unmarked = (spec: JsonObject, ownerReferences: JsonObject[] = []) =>
      podFindings(object("a", "p", { spec }, { ownerReferences }), context);
    expect(rulesOf(unmarked({ nodeName: "vm-node" }))).toEqual([
      "error pod.unmarked-on-vm-node spec.nodeName",
    ]);
    expect(rulesOf(unmarked({ nodeName: "vm-node" }, [COCOONSET_OWNER]))).toEqual([
      "warning pod.unmarked-on-vm-node spec.nodeName",
    ]);
    const keyless = unmarked({ nodeName: "vm-node", tolerations: [{ operator: "Exists" }] });
    expect(rulesOf(keyless)).toEqual(["warning pod.unmarked-on-vm-node spec.nodeName"]);
    expect(keyless[0]?.message).toContain("the scheduler may have placed it");
    expect(unmarked({ nodeName: "plain-node" })).toEqual([]);
    expect(unmarked({})).toEqual([]);
  });
});

describe("nodes and workloads", () => {
  test("VM nodes are the ones tainted virtual-kubelet.io/provider", () => {
    expect(
      vmNodeNames([
        { metadata: { name: "vm" }, spec: { taints: [{ key: COCOON_TOLERATION_KEY }] } },
        { metadata: { name: "plain" }, spec: { taints: [{ key: "other" }] } },
        { metadata: { name: "bare" } },
      ]),
    ).toEqual(["vm"]);
  });

  test("a cocoon-tolerated workload is a notice; any other none", () => {
    const cocoon = object("a", "w", {
      spec: { template: { spec: { tolerations: [TOLERATION] } } },
    });
    expect(rulesOf(workloadFindings("StatefulSet", cocoon))).toEqual([
      "notice workload.cocoon-scale-guarded spec.template.spec.tolerations",
    ]);
    expect(
      workloadFindings("Deployment", object("a", "w", { spec: { template: { spec: {} } } })),
    ).toEqual([]);
  });
});

/** A lister over fixed pages per resource; a resource named in `failing` throws on its second page. */
function fakeLister(
  pages: Record<string, JsonObject[][]>,
  failing = new Set<string>(),
): KubeLister {
  return {
    async *pages(resource) {
      const all = pages[resource.plural] ?? [];
      for (const [index, page] of all.entries()) {
        if (failing.has(resource.plural) && index === 1) {
          throw new KubeApiError(`LIST ${resource.plural}: apiserver answered 403 Forbidden`, 403);
        }
        yield page;
      }
      if (failing.has(resource.plural) && all.length < 2) {
        throw new KubeApiError(`LIST ${resource.plural}: apiserver answered 403 Forbidden`, 403);
      }
    },
  };
}

describe("scanCluster", () => {
  const dupes = [
    object(
      "a",
      "vm-0",
      { spec: { desire: "Wake", podRef: { name: "vm-0" } } },
      { creationTimestamp: "1" },
    ),
    object(
      "a",
      "vm-0-b",
      { spec: { desire: "Wake", podRef: { name: "vm-0" } } },
      { creationTimestamp: "2" },
    ),
  ];

  test("a kind that cannot be listed is a problem, the others are still checked", async () => {
    const report = await scanCluster({
      lister: fakeLister(
        {
          pods: [[object("a", "p", { spec: { tolerations: [TOLERATION] } })], []],
          cocoonhibernations: [dupes],
        },
        new Set(["pods"]),
      ),
      podCreators,
    });
    expect(report.problems).toEqual([
      {
        kind: "Pod",
        message:
          "LIST pods: apiserver answered 403 Forbidden; audit needs list on pods: in the cluster it runs as ServiceAccount cocoon-system/cocoon-webhook-audit, bound to ClusterRole cocoon-webhook-audit (manifests/audit); with a kubeconfig, as that kubeconfig's user",
      },
    ]);
    expect(rulesOf(report.findings)).toEqual([
      "error hibernation.name-matches-pod metadata.name",
      "error hibernation.one-per-pod spec.podRef.name",
      "error pod.not-owned metadata.ownerReferences",
    ]);
    expect(report.checked.Pod).toBe(1);
    expect(summaryLine(report)).toEndWith("; could not check Pods");
  });

  test("no one-per-pod check on an incomplete hibernation list", async () => {
    const report = await scanCluster({
      lister: fakeLister({ cocoonhibernations: [dupes, []] }, new Set(["cocoonhibernations"])),
      podCreators,
    });
    expect(rulesOf(report.findings)).toEqual(["error hibernation.name-matches-pod metadata.name"]);
  });

  test("pods and workloads in the namespaces the webhook leaves out are skipped", async () => {
    const pod = (namespace: string) =>
      object(namespace, "p", { spec: { tolerations: [TOLERATION] } });
    const report = await scanCluster({
      lister: fakeLister({
        pods: [[pod("kube-system"), pod("cert-manager"), pod("sandbox-system"), pod("team-a")]],
      }),
      podCreators,
    });
    // sandbox-system is gated like any other namespace.
    expect(report.findings.map((finding) => finding.namespace)).toEqual([
      "sandbox-system",
      "team-a",
    ]);
    expect(report.skipped).toBe(2);
    expect(report.checkedByNamespace).toEqual(
      new Map([
        ["sandbox-system", 1],
        ["team-a", 1],
      ]),
    );
  });

  test("a PolicyReport for each namespace checked, a clean one included", async () => {
    const report = await scanCluster({
      lister: fakeLister({
        pods: [
          [
            object("clean", "p", { spec: {} }),
            object("dirty", "p", { spec: { tolerations: [TOLERATION] } }),
          ],
        ],
      }),
      podCreators,
    });
    const { stdout } = renderAudit("policyreport", report, { now: new Date(1_700_000_000_000) });
    const { items } = JSON.parse(stdout);
    expect(
      items.map((item: { metadata: { namespace: string } }) => item.metadata.namespace),
    ).toEqual(["clean", "dirty"]);
    expect(items[0].summary).toEqual({ pass: 1, fail: 0, warn: 0, error: 0, skip: 0 });
    expect(items[1].results[0]).toMatchObject({
      rule: "pod.not-owned",
      result: "fail",
      timestamp: { seconds: 1_700_000_000, nanos: 0 },
      resources: [{ apiVersion: "v1", kind: "Pod", namespace: "dirty", name: "p", uid: "uid-p" }],
    });
    expect(
      items.map((item: { metadata: { annotations: object } }) => item.metadata.annotations),
    ).toEqual([{ [SCOPE_ANNOTATION]: "all-namespaces" }, { [SCOPE_ANNOTATION]: "all-namespaces" }]);
  });

  test("no PolicyReport at all when no namespace had an object to check", async () => {
    const report = await scanCluster({ lister: fakeLister({}), podCreators });
    const { stdout } = renderAudit("policyreport", report);
    expect(JSON.parse(stdout)).toEqual({ apiVersion: "v1", kind: "List", items: [] });
  });

  test("--namespace: that namespace's report, even with nothing left to check, scoped to it", async () => {
    const report = await scanCluster({ lister: fakeLister({}), podCreators, namespace: "team-a" });
    const { stdout } = renderAudit("policyreport", report, { now: new Date(1_700_000_000_000) });
    expect(JSON.parse(stdout).items).toEqual([
      {
        apiVersion: "wgpolicyk8s.io/v1alpha2",
        kind: "PolicyReport",
        metadata: {
          name: "cocoon-webhook-audit",
          namespace: "team-a",
          labels: { "app.kubernetes.io/managed-by": "cocoon-webhook" },
          annotations: { [SCOPE_ANNOTATION]: "namespace" },
        },
        summary: { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 },
        results: [],
      },
    ]);
  });
});
