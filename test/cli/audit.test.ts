import { describe, expect, test } from "bun:test";
import type { KubeLister } from "../../src/apiserver/client";
import {
  cocoonSetFindings,
  HibernationAudit,
  podFindings,
  vmNodeNames,
  workloadFindings,
} from "../../src/cli/audit/checks";
import { renderAudit, summaryLine } from "../../src/cli/audit/output";
import { OwnerIndex } from "../../src/cli/audit/owners";
import { scanCluster } from "../../src/cli/audit/scan";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import { KubeApiError } from "../../src/contract/reads";
import {
  COCOONSET_OWNER as COCOONSET_KIND,
  DEFAULT_POD_CREATORS,
  parsePodCreators,
} from "../../src/endpoints/pod-gate/creators";
import type { JsonObject } from "../../src/json/read";

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

const HOUR = 3_600_000;

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
  test("N for one pod give N - 1 findings, each naming the first the webhook would name", () => {
    const audit = new HibernationAudit();
    const count = 2000;
    const created = (index: number) => new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString();
    audit.check(
      "v",
      hibernation("vm-0-old", "vm-0", created(0), { deletionTimestamp: created(9999) }),
    );
    for (let index = 1; index < count; index++) {
      audit.check("v", hibernation(`vm-0-${index}`, "vm-0", created(index)));
    }
    const conflicts = audit.conflicts();
    expect(conflicts).toHaveLength(count - 1);
    // The first live one waits for the terminating one; every later one duplicates the first live one.
    expect(rulesOf(conflicts.slice(0, 2))).toEqual([
      "error hibernation.wait-for-terminating spec.podRef.name",
      "error hibernation.one-per-pod spec.podRef.name",
    ]);
    expect(new Set(conflicts.map(({ name }) => name)).size).toBe(count - 1);
    expect(
      conflicts.slice(1).every(({ message }) => message.includes('CocoonHibernation "vm-0-1"')),
    ).toBe(true);
  });
});

describe("pods: as the pod gate would judge them on CREATE", () => {
  // No owner kind listed: owner references are not judged here (see "forged owners").
  const context = { podCreators, vmNodes: new Set(["vm-node"]), owners: new OwnerIndex() };
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
    expect(finding?.message).toContain(
      'the pod carries a cocoon marker (toleration "virtual-kubelet.io/provider" or annotation "vm.cocoonstack.io/name")',
    );
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
    expect(unmarked({ nodeName: "vm-node" })[0]?.message).toContain(
      'the pod carries no cocoon marker (toleration "virtual-kubelet.io/provider" or annotation ' +
        '"vm.cocoonstack.io/name") but runs on "vm-node", a VM node (taint "virtual-kubelet.io/provider"), where',
    );
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
describe("pods: forged owners", () => {
  const stored = object("team-a", "s", {}, { uid: "uid-real" });
  const owners = new OwnerIndex();
  owners.add(COCOONSET_KIND, stored);
  owners.listedAll(COCOONSET_KIND);
  const context = { podCreators, vmNodes: new Set<string>(), owners };
  const gatedWith = (...ownerReferences: JsonObject[]) =>
    object("team-a", "p", { spec: { tolerations: [TOLERATION] } }, { ownerReferences });

  test("an owner reference that names the stored CocoonSet by name and uid passes", () => {
    expect(podFindings(gatedWith({ ...COCOONSET_OWNER, uid: "uid-real" }), context)).toEqual([]);
  });

  test("another uid, another name, no uid, or another namespace: forged, at its path", () => {
    const forged = [
      gatedWith({ ...COCOONSET_OWNER, uid: "uid-other" }),
      gatedWith(REPLICASET_OWNER, { ...COCOONSET_OWNER, name: "gone", uid: "uid-real" }),
      gatedWith({ ...COCOONSET_OWNER }),
      object(
        "team-b",
        "p",
        { spec: { tolerations: [TOLERATION] } },
        {
          ownerReferences: [{ ...COCOONSET_OWNER, uid: "uid-real" }],
        },
      ),
    ];
    expect(forged.map((pod) => rulesOf(podFindings(pod, context)))).toEqual([
      ["error pod.forged-owner metadata.ownerReferences[0]"],
      ["error pod.forged-owner metadata.ownerReferences[1]"],
      ["error pod.forged-owner metadata.ownerReferences[0]"],
      ["error pod.forged-owner metadata.ownerReferences[0]"],
    ]);
    const [finding] = podFindings(forged[0] as JsonObject, context);
    expect(finding?.message).toContain(
      'names cocoonset.cocoonstack.io/CocoonSet "s" (uid "uid-other") as its owner',
    );
  });

  test("a kind audit could not list to the end is not judged", () => {
    expect(podFindings(gatedWith({ ...SANDBOX_OWNER, uid: "uid-x" }), context)).toEqual([]);
  });

  test("an unmarked pod's owners are not judged", () => {
    const plain = object("team-a", "p", { spec: {} }, { ownerReferences: [COCOONSET_OWNER] });
    expect(podFindings(plain, context)).toEqual([]);
  });
});

/**
 * Pages of each resource by plural; those in `failing` fail on the second
 * page (or after the first); `notServed` (`plural/version`) answer 404.
 */
function fakeLister(
  pages: Record<string, JsonObject[][]>,
  failing = new Set<string>(),
  notServed = new Set<string>(),
): KubeLister {
  return {
    async *pages(resource) {
      if (notServed.has(`${resource.plural}/${resource.version}`)) {
        throw new KubeApiError(`LIST ${resource.plural}: apiserver answered 404 Not Found`, 404);
      }
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
      timeLimitMs: HOUR,
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

  test("past the time limit, the kind being read and every later one are not checked", async () => {
    let clock = 0;
    const pod = (name: string) => object("a", name, { spec: {} });
    const pods = fakeLister({ pods: [[pod("p-0")], [pod("p-1")], [pod("p-2")]] });
    const report = await scanCluster({
      lister: {
        // Each page of pods takes a second: the second one ends past the limit.
        async *pages(resource, namespace) {
          for await (const page of pods.pages(resource, namespace)) {
            clock += 1000;
            yield page;
          }
        },
      },
      podCreators,
      timeLimitMs: 1500,
      now: () => clock,
    });
    expect(report.problems.map(({ kind }) => kind)).toEqual(["Pod", "Deployment", "StatefulSet"]);
    expect(report.problems[0]?.message).toBe(
      "the audit did not finish within --timeout (1500 ms) after 2 pages of this kind; give it " +
        "more time, or audit one namespace at a time (--namespace)",
    );
    expect(report.checked.Pod).toBe(2);
    expect(summaryLine(report)).toEndWith("; could not check Pods, Deployments, StatefulSets");
  });

  test("no one-per-pod check on an incomplete hibernation list", async () => {
    const report = await scanCluster({
      lister: fakeLister({ cocoonhibernations: [dupes, []] }, new Set(["cocoonhibernations"])),
      podCreators,
      timeLimitMs: HOUR,
    });
    expect(rulesOf(report.findings)).toEqual(["error hibernation.name-matches-pod metadata.name"]);
  });

  test("a pod's owner must be a stored CocoonSet or Sandbox; Sandboxes from v1alpha1 when v1beta1 is not served", async () => {
    const pod = (name: string, owner: JsonObject) =>
      object("a", name, { spec: { tolerations: [TOLERATION] } }, { ownerReferences: [owner] });
    const pods = [
      pod("real-set", { ...COCOONSET_OWNER, name: "set", uid: "uid-set" }),
      pod("forged-set", { ...COCOONSET_OWNER, name: "set", uid: "uid-forged" }),
      pod("real-sandbox", { ...SANDBOX_OWNER, name: "box", uid: "uid-box" }),
      pod("forged-sandbox", { ...SANDBOX_OWNER, name: "nobox", uid: "uid-nobox" }),
    ];
    const report = await scanCluster({
      lister: fakeLister(
        {
          cocoonsets: [[object("a", "set", { spec: { agent: { image: "a:1" } } })]],
          sandboxes: [[object("a", "box")]],
          pods: [pods],
        },
        new Set(),
        new Set(["sandboxes/v1beta1"]),
      ),
      podCreators,
      timeLimitMs: HOUR,
    });
    expect(report.problems).toEqual([]);
    expect(report.findings.map(({ name, rule }) => `${name} ${rule}`)).toEqual([
      "forged-set pod.forged-owner",
      "forged-sandbox pod.forged-owner",
    ]);
    // A Sandbox is listed to resolve owners, not judged: no PolicyReport counts it.
    expect(report.checkedByNamespace.get("a")).toBe(5);
  });

  test("without Sandboxes served at all, none exists; a failed LIST judges no Sandbox owner", async () => {
    const boxed = object(
      "a",
      "p",
      { spec: { tolerations: [TOLERATION] } },
      { ownerReferences: [{ ...SANDBOX_OWNER, uid: "uid-s" }] },
    );
    const unserved = await scanCluster({
      lister: fakeLister(
        { pods: [[boxed]] },
        new Set(),
        new Set(["sandboxes/v1beta1", "sandboxes/v1alpha1"]),
      ),
      podCreators,
      timeLimitMs: HOUR,
    });
    expect(unserved.problems).toEqual([]);
    expect(rulesOf(unserved.findings)).toEqual([
      "error pod.forged-owner metadata.ownerReferences[0]",
    ]);
    const failed = await scanCluster({
      lister: fakeLister({ pods: [[boxed]] }, new Set(["sandboxes"])),
      podCreators,
      timeLimitMs: HOUR,
    });
    expect(failed.problems.map(({ kind }) => kind)).toEqual(["Sandbox"]);
    expect(failed.findings).toEqual([]);
  });

  test("pods and workloads in the namespaces the webhook leaves out are skipped", async () => {
    const pod = (namespace: string) =>
      object(namespace, "p", { spec: { tolerations: [TOLERATION] } });
    const report = await scanCluster({
      lister: fakeLister({
        pods: [[pod("kube-system"), pod("cert-manager"), pod("sandbox-system"), pod("team-a")]],
      }),
      podCreators,
      timeLimitMs: HOUR,
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
      timeLimitMs: HOUR,
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
      message: expect.stringMatching(
        /^metadata\.ownerReferences: the pod carries a cocoon marker /,
      ),
      properties: { path: "metadata.ownerReferences" },
      timestamp: { seconds: 1_700_000_000, nanos: 0 },
      resources: [{ apiVersion: "v1", kind: "Pod", namespace: "dirty", name: "p", uid: "uid-p" }],
    });
    expect(
      items.map((item: { metadata: { annotations: object } }) => item.metadata.annotations),
    ).toEqual([{ [SCOPE_ANNOTATION]: "all-namespaces" }, { [SCOPE_ANNOTATION]: "all-namespaces" }]);
  });

  test("no PolicyReport at all when no namespace had an object to check", async () => {
    const report = await scanCluster({ lister: fakeLister({}), podCreators, timeLimitMs: HOUR });
    const { stdout } = renderAudit("policyreport", report);
    expect(JSON.parse(stdout)).toEqual({ apiVersion: "v1", kind: "List", items: [] });
  });

  test("--namespace: that namespace's report, even with nothing left to check, scoped to it", async () => {
    const report = await scanCluster({
      lister: fakeLister({}),
      podCreators,
      namespace: "team-a",
      timeLimitMs: HOUR,
    });
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
