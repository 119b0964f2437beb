import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import packageJson from "../../package.json";
import { runAudit } from "../../src/cli/audit/command";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { MIB, peakRssBytes } from "../support/procfs";
import { BINARY } from "./harness";

/*
 * `cocoon-webhook audit` through the compiled binary against the fake
 * apiserver: what it finds in a small cluster, in each format, and that
 * every answer it cannot trust fails closed as a reported error (exit 2),
 * never as a clean run.
 */

const COCOON_API_VERSION = "cocoonset.cocoonstack.io/v1";
const TOLERATION = { key: COCOON_TOLERATION_KEY, operator: "Exists" };
/** The stored CocoonSet team-a/agents, by name and uid. */
const OWNER = {
  apiVersion: COCOON_API_VERSION,
  kind: "CocoonSet",
  name: "agents",
  uid: "uid-agents",
};
const LONG_SET = "a-cocoonset-whose-name-is-long-enough-to-break-the-budget";

let apiserver: FakeApiserver;

const meta = (namespace: string, name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { namespace, name, uid: `uid-${name}`, ...extra },
});

function seedCluster(): void {
  apiserver.setList("nodes", [
    {
      metadata: { name: "vm-node" },
      spec: { taints: [{ key: COCOON_TOLERATION_KEY, value: "cocoon", effect: "NoSchedule" }] },
    },
    { metadata: { name: "plain-node" }, spec: {} },
  ]);
  apiserver.setList("cocoonsets", [
    { ...meta("team-a", "agents"), spec: { agent: { image: "agent:1", replicas: 1 } } },
    { ...meta("team-a", LONG_SET), spec: { agent: { image: "agent:1", replicas: 0 } } },
    {
      ...meta("team-b", "windows"),
      spec: { agent: { image: "agent:1", mode: "run", backend: "firecracker", os: "windows" } },
    },
  ]);
  apiserver.setList("cocoonhibernations", [
    {
      ...meta("team-a", "vm-0", { creationTimestamp: "2026-01-01T00:00:00Z" }),
      spec: { desire: "Hibernate", podRef: { name: "vm-0" } },
    },
    {
      ...meta("team-a", "vm-0-again", { creationTimestamp: "2026-01-02T00:00:00Z" }),
      spec: { desire: "Wake", podRef: { name: "vm-0" } },
    },
    { ...meta("team-b", "vm-1"), spec: { desire: "hibernate", podRef: { name: "vm-1" } } },
  ]);
  apiserver.setList("pods", [
    {
      ...meta("team-a", "agents-0", { ownerReferences: [OWNER] }),
      spec: { tolerations: [TOLERATION], nodeName: "vm-node" },
    },
    {
      ...meta("team-a", "by-hand", {
        annotations: { [VM_NAME_ANNOTATION]: "vk-by-hand" },
        managedFields: [
          { manager: "kubectl-create", operation: "Update", time: "2026-01-03T00:00:00Z" },
        ],
      }),
      spec: {},
    },
    { ...meta("team-b", "squatter"), spec: { nodeName: "vm-node" } },
    {
      ...meta("team-b", "agent-daemon"),
      spec: { nodeName: "vm-node", tolerations: [{ operator: "Exists" }] },
    },
    { ...meta("team-b", "web-1"), spec: { nodeName: "plain-node" } },
    { ...meta("kube-system", "system-vm"), spec: { tolerations: [TOLERATION] } },
  ]);
  apiserver.setList("deployments", [
    {
      ...meta("team-b", "vm-workers"),
      spec: { replicas: 2, template: { spec: { tolerations: [TOLERATION] } } },
    },
    { ...meta("team-b", "web"), spec: { replicas: 2, template: { spec: {} } } },
  ]);
  apiserver.setList("statefulsets", []);
}

/** Runs the binary without blocking: the fake apiserver answers from this very process. */
async function audit(args: readonly string[], env: Record<string, string> = {}) {
  const child = Bun.spawn([BINARY, "audit", ...args], {
    env: { PATH: process.env.PATH ?? "", KUBECONFIG: apiserver.kubeconfigPath, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 60_000,
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return {
    code,
    stdout,
    stderr,
    peakBytes: child.resourceUsage()?.maxRSS ?? Number.POSITIVE_INFINITY,
  };
}

/** `SEVERITY: KIND NS/NAME: PATH [rule]` of each text finding, without the message. */
function located(stdout: string): string[] {
  return stdout
    .split("\n")
    .filter((line) => /^(error|warning|notice): /.test(line))
    .map((line) => {
      const [severity, object, path] = line.split(": ");
      return `${severity}: ${object}: ${path} ${line.slice(line.lastIndexOf("["))}`;
    });
}

const EXPECTED = [
  `error: CocoonSet team-a/${LONG_SET}: metadata.name [set.derived-name-budget]`,
  "error: CocoonSet team-b/windows: spec.agent.os [firecracker.no-windows]",
  "error: CocoonHibernation team-a/vm-0-again: metadata.name [hibernation.name-matches-pod]",
  "error: CocoonHibernation team-b/vm-1: spec.desire [hibernation.desire]",
  "error: CocoonHibernation team-a/vm-0-again: spec.podRef.name [hibernation.one-per-pod]",
  "error: Pod team-a/by-hand: metadata.ownerReferences [pod.not-owned]",
  "error: Pod team-b/squatter: spec.nodeName [pod.unmarked-on-vm-node]",
  "warning: Pod team-b/agent-daemon: spec.nodeName [pod.unmarked-on-vm-node]",
  "notice: Deployment team-b/vm-workers: spec.template.spec.tolerations [workload.cocoon-scale-guarded]",
];

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  seedCluster();
});

afterEach(() => {
  apiserver.clearFailures();
  apiserver.setListPageSize(undefined);
  seedCluster();
});

afterAll(async () => {
  await apiserver.stop();
});

describe("cocoon-webhook audit: what it finds", () => {
  test("every finding, located and rule-identified, the notes and a summary; exit 1", async () => {
    const { code, stdout, stderr } = await audit([]);
    expect(stderr).toBe("");
    expect(code).toBe(1);
    expect(located(stdout)).toEqual(EXPECTED);
    expect(stdout).toContain(
      "Pod team-a/by-hand: metadata.ownerReferences: the pod carries a cocoon marker",
    );
    expect(stdout).toContain('field manager "kubectl-create" (Update, 2026-01-03T00:00:00Z)');
    expect(stdout).toContain("note: who created a pod is not stored in the cluster");
    expect(stdout.trimEnd().split("\n").at(-1)).toBe(
      "7 errors, 1 warning, 1 notice about 8 objects; 15 objects checked in all namespaces " +
        "(2 Nodes, 3 CocoonSets, 0 Sandboxes, 3 CocoonHibernations, 5 Pods, 2 Deployments, 0 StatefulSets); " +
        "1 object in namespaces the webhook leaves out not checked",
    );
  });

  test("a VM pod whose CocoonSet owner reference names no stored set (by uid) is a forged owner", async () => {
    apiserver.setList("pods", [
      {
        ...meta("team-a", "agents-forged", { ownerReferences: [{ ...OWNER, uid: "uid-forged" }] }),
        spec: { tolerations: [TOLERATION] },
      },
    ]);
    try {
      const { code, stdout } = await audit([]);
      expect(code).toBe(1);
      expect(located(stdout).filter((line) => line.includes(": Pod "))).toEqual([
        "error: Pod team-a/agents-forged: metadata.ownerReferences[0] [pod.forged-owner]",
      ]);
      expect(stdout).toContain(
        'names cocoonset.cocoonstack.io/CocoonSet "agents" (uid "uid-forged")',
      );
    } finally {
      seedCluster();
    }
  });

  test("pages of APISERVER_LIST_PAGE_SIZE are followed to the end with the same result", async () => {
    apiserver.setListPageSize(1);
    const sent = apiserver.requests.length;
    const { code, stdout } = await audit([], { APISERVER_LIST_PAGE_SIZE: "1" });
    expect(code).toBe(1);
    expect(located(stdout)).toEqual(EXPECTED);
    const pods = apiserver.requests
      .slice(sent)
      .filter((request) => request.path.startsWith("/api/v1/pods"));
    expect(pods.map((request) => request.path)).toEqual([
      "/api/v1/pods?limit=1",
      ...[1, 2, 3, 4, 5].map((offset) => `/api/v1/pods?limit=1&continue=offset-${offset}`),
    ]);
  });

  test("--namespace audits one namespace; --strict makes a warning count", async () => {
    apiserver.setList("cocoonsets", []);
    apiserver.setList("cocoonhibernations", []);
    apiserver.setList("pods", [
      {
        ...meta("team-b", "agent-daemon"),
        spec: { nodeName: "vm-node", tolerations: [{ operator: "Exists" }] },
      },
    ]);
    const relaxed = await audit(["-n", "team-b"]);
    expect(relaxed.code).toBe(0);
    expect(located(relaxed.stdout)).toEqual([
      "warning: Pod team-b/agent-daemon: spec.nodeName [pod.unmarked-on-vm-node]",
      "notice: Deployment team-b/vm-workers: spec.template.spec.tolerations [workload.cocoon-scale-guarded]",
    ]);
    expect(relaxed.stdout).toContain('checked in namespace "team-b"');
    expect(
      apiserver.requests.some((request) =>
        request.path.startsWith("/api/v1/namespaces/team-b/pods?"),
      ),
    ).toBe(true);
    expect((await audit(["--namespace=team-b", "--strict"])).code).toBe(1);
  });

  test("json: the findings on stdout, the summary on stderr", async () => {
    const { code, stdout, stderr } = await audit(["-o", "json"]);
    expect(code).toBe(1);
    const findings = JSON.parse(stdout) as Record<string, string>[];
    expect(findings).toHaveLength(EXPECTED.length);
    expect(findings[0]).toMatchObject({
      severity: "error",
      apiVersion: COCOON_API_VERSION,
      kind: "CocoonSet",
      namespace: "team-a",
      name: LONG_SET,
      uid: `uid-${LONG_SET}`,
      path: "metadata.name",
      rule: "set.derived-name-budget",
    });
    expect(stderr).toContain("7 errors, 1 warning, 1 notice about 8 objects");
  });

  test("policyreport: a PolicyReport per namespace checked, a result per finding", async () => {
    const { code, stdout } = await audit(["-o", "policyreport", "--exit-zero"]);
    expect(code).toBe(0);
    const list = JSON.parse(stdout);
    expect(list).toMatchObject({ apiVersion: "v1", kind: "List" });
    // biome-ignore lint/suspicious/noExplicitAny: PolicyReports as JSON, read field by field
    const reports = list.items as Record<string, any>[];
    expect(reports.map((report) => [report.metadata.namespace, report.metadata.name])).toEqual([
      ["team-a", "cocoon-webhook-audit"],
      ["team-b", "cocoon-webhook-audit"],
    ]);
    const teamB = reports[1] ?? {};
    expect(teamB.apiVersion).toBe("wgpolicyk8s.io/v1alpha2");
    expect(teamB.summary).toEqual({ pass: 2, fail: 3, warn: 2, error: 0, skip: 0 });
    expect(
      teamB.results.find((result: { rule: string }) => result.rule === "pod.unmarked-on-vm-node"),
    ).toMatchObject({
      policy: "cocoon-webhook",
      result: "fail",
      severity: "high",
      resources: [
        {
          apiVersion: "v1",
          kind: "Pod",
          namespace: "team-b",
          name: "squatter",
          uid: "uid-squatter",
        },
      ],
    });
  });

  test("sarif, junit and github carry every finding", async () => {
    const sarif = JSON.parse((await audit(["-o", "sarif"])).stdout);
    expect(sarif.runs[0].results).toHaveLength(EXPECTED.length);
    expect(sarif.runs[0].results[0].locations[0].logicalLocations[0].fullyQualifiedName).toBe(
      `${COCOON_API_VERSION}/CocoonSet/team-a/${LONG_SET}`,
    );
    const junit = (await audit(["-o", "junit"])).stdout;
    expect(junit.match(/<failure /g)).toHaveLength(6);
    const github = (await audit(["-o", "github"])).stdout;
    expect(github.match(/^::error /gm)).toHaveLength(7);
    expect(github).toContain(
      "::notice title=workload.cocoon-scale-guarded%3A Deployment team-b/vm-workers::",
    );
  });
});

describe("cocoon-webhook audit: answers it cannot trust fail closed (exit 2)", () => {
  const cases: { name: string; failure: Parameters<FakeApiserver["failPath"]>[1]; says: string }[] =
    [
      {
        name: "a 403",
        failure: {
          kind: "status",
          status: 403,
          message: 'pods is forbidden: User "audit" cannot list resource "pods"',
        },
        says: "apiserver answered 403 Forbidden: pods is forbidden",
      },
      {
        name: "an answer of another kind",
        failure: {
          kind: "answer",
          body: { apiVersion: "v1", kind: "ConfigMapList", metadata: {}, items: [] },
        },
        says: "v1 ConfigMapList instead of the v1 PodList asked for",
      },
      {
        name: "a malformed item",
        failure: {
          kind: "answer",
          body: {
            apiVersion: "v1",
            kind: "PodList",
            metadata: {},
            items: [{ metadata: { name: "p", namespace: "a" }, spec: { tolerations: "all" } }],
          },
        },
        says: "items[0] is a malformed Pod: spec.tolerations",
      },
      {
        name: "a truncated LIST",
        failure: {
          kind: "answer",
          body: '{"apiVersion":"v1","kind":"PodList","metadata":{},"items":[{"metadata":{"na',
        },
        says: "a body that is not JSON",
      },
      {
        name: "a page longer than the limit asked for",
        failure: {
          kind: "answer",
          body: {
            apiVersion: "v1",
            kind: "PodList",
            metadata: {},
            items: [
              { metadata: { name: "p", namespace: "a" }, spec: {} },
              { metadata: { name: "q", namespace: "a" }, spec: {} },
            ],
          },
        },
        says: "a page of 2 items where at most 1 were asked for",
      },
    ];

  for (const { name, failure, says } of cases) {
    test(`${name} on pods: "could not check Pods", the other kinds still checked`, async () => {
      apiserver.failPath("/pods", failure);
      const { code, stdout, stderr } = await audit([], { APISERVER_LIST_PAGE_SIZE: "1" });
      expect(code).toBe(2);
      expect(stderr).toContain("cocoon-webhook audit: could not check Pods: LIST pods: ");
      expect(stderr).toContain(says);
      expect(stdout).toContain("[set.derived-name-budget]");
      expect(stdout).toContain("; could not check Pods\n");
    });
  }

  test("the problem is inside the document in sarif, and exit 2 even with --exit-zero", async () => {
    apiserver.failPath("/deployments", { kind: "status", status: 403 });
    const { code, stdout } = await audit(["-o", "sarif", "--exit-zero"]);
    expect(code).toBe(2);
    const invocation = JSON.parse(stdout).runs[0].invocations[0];
    expect(invocation.executionSuccessful).toBe(false);
    const text: string = invocation.toolExecutionNotifications[0].message.text;
    expect(text).toStartWith(
      "could not check Deployments: LIST deployments: apiserver answered 403",
    );
    expect(text).toContain(
      "audit needs list on deployments: in the cluster it runs as ServiceAccount cocoon-system/cocoon-webhook-audit, bound to ClusterRole cocoon-webhook-audit (manifests/audit)",
    );
    expect(text).not.toContain("webhook's RBAC");
  });
});

describe("cocoon-webhook audit: bounded in pages, time, memory and findings", () => {
  const podList = (items: unknown[], next?: string) => ({
    apiVersion: "v1",
    kind: "PodList",
    metadata: next ? { continue: next } : {},
    items,
  });
  const podRequests = () => apiserver.requests.filter(({ path }) => path.includes("/pods")).length;

  test("a continue token that repeats forever: exit 2 at its first repeat", async () => {
    apiserver.failPath("/pods", { kind: "answer", body: podList([], "again") });
    const before = podRequests();
    const { code, stdout, stderr } = await audit([]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      "could not check Pods: LIST pods: page 2 carries a continue token an earlier page carried",
    );
    expect(stdout).toContain("; could not check Pods\n");
    expect(podRequests() - before).toBe(2);
  });

  test("a list that never ends with ever new tokens: exit 2 at --timeout, the kinds after it not checked", async () => {
    let page = 0;
    apiserver.failPath("/pods", {
      kind: "answer",
      body: () =>
        podList([{ metadata: { name: `p-${page}`, namespace: "a" }, spec: {} }], `t-${++page}`),
    });
    const { code, stdout, stderr } = await audit(["--timeout", "2s"], {
      APISERVER_LIST_PAGE_SIZE: "1",
    });
    expect(code).toBe(2);
    expect(stderr).toContain(
      "could not check Pods: the audit did not finish within --timeout (2000 ms)",
    );
    expect(stderr).toContain("could not check Deployments: the audit did not finish");
    expect(stdout).toContain("; could not check Pods, Deployments, StatefulSets\n");
  });

  test("--timeout must be a positive duration", async () => {
    const { code, stderr } = await audit(["--timeout", "0s"]);
    expect(code).toBe(2);
    expect(stderr).toContain('--timeout must be a positive duration such as 90s or 10m, got "0s"');
  });

  test("one dense PodList page within the byte cap: 'could not check Pods', decoded never", async () => {
    // 11 million empty objects in just under the 32 MiB a streamed page may have.
    const items = "{},".repeat(11_000_000);
    apiserver.failPath("/pods", {
      kind: "answer",
      body: `{"apiVersion":"v1","kind":"PodList","metadata":{},"items":[${items}{}]}`,
    });
    const { code, stdout, stderr, peakBytes } = await audit([]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      "could not check Pods: LIST pods: apiserver answered 200 with a body holding more than 1048576 JSON objects and arrays",
    );
    expect(stdout).toContain("; could not check Pods\n");
    // Decoded, the page would take gigabytes; read and refused, it is a few tens of MiB.
    expect(peakBytes).toBeLessThan(256 * MIB);
  }, 60_000);

  test("2 000 CocoonHibernations for one pod: 1 999 findings, not two million", async () => {
    const count = 2000;
    apiserver.setList(
      "cocoonhibernations",
      Array.from({ length: count }, (_, index) => ({
        ...meta("team-a", index === 0 ? "vm-0" : `vm-0-${index}`, {
          creationTimestamp: new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString(),
        }),
        spec: { desire: "Hibernate", podRef: { name: "vm-0" } },
      })),
    );
    const { code, stdout } = await audit(["-o", "json"]);
    expect(code).toBe(1);
    const findings = JSON.parse(stdout) as { rule: string; message: string }[];
    const duplicates = findings.filter(({ rule }) => rule === "hibernation.one-per-pod");
    expect(duplicates).toHaveLength(count - 1);
    expect(duplicates.every(({ message }) => message.includes('CocoonHibernation "vm-0"'))).toBe(
      true,
    );
  }, 60_000);
});

describe("cocoon-webhook audit: memory", () => {
  test("50 000 pods streamed page by page stay well inside 256 MiB", async () => {
    apiserver.setList("pods", {
      count: 50_000,
      make: (index) => ({
        // All owned by the stored CocoonSet of their namespace.
        ...meta("team-a", `agents-${index}`, { ownerReferences: [OWNER] }),
        spec: {
          tolerations: [TOLERATION],
          nodeName: "vm-node",
          containers: [{ name: "agent", image: "agent:1" }],
        },
      }),
    });
    const child = Bun.spawn([BINARY, "audit", "-o", "json"], {
      env: { PATH: process.env.PATH ?? "", KUBECONFIG: apiserver.kubeconfigPath },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    let peak = 0;
    const sampling = setInterval(() => {
      try {
        const sample = peakRssBytes(child.pid);
        if (Number.isFinite(sample)) peak = Math.max(peak, sample);
      } catch {
        // the process has just exited
      }
    }, 10);
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    clearInterval(sampling);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toHaveLength(
      EXPECTED.filter((finding) => !finding.includes(": Pod ")).length,
    );
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(256 * MIB);
  }, 60_000);
});

describe("cocoon-webhook audit: the progress line", () => {
  test("on a terminal, stderr shows the objects checked per kind and the findings so far, then clears", async () => {
    const stderr: string[] = [];
    const stdout: string[] = [];
    const code = await runAudit([], {
      stdout: async (text) => stdout.push(text),
      stderr: async (text) => stderr.push(text),
      stderrSharesStdout: () => false,
      stderrIsTerminal: () => true,
      env: { KUBECONFIG: apiserver.kubeconfigPath },
    });
    expect(code).toBe(1);
    expect(stderr[0]).toBe("\r\u001b[Kaudit: 2 Nodes checked; 0 findings");
    expect(stderr.filter(Boolean).at(-1)).toBe("\r\u001b[K");
    expect(stdout.join("")).toContain("[pod.not-owned]");
  });
});

describe("cocoon-webhook audit: usage", () => {
  test("--help prints every flag and exits 0; the command is listed in the top-level usage", async () => {
    const help = await audit(["--help"]);
    expect(help.code).toBe(0);
    for (const flag of [
      "--namespace",
      "--all-namespaces",
      "--output",
      "--strict",
      "--exit-zero",
      "--output-file",
      "--timeout",
      "--kubeconfig",
      "--context",
    ]) {
      expect(help.stdout).toContain(flag);
    }
    const top = Bun.spawnSync([BINARY, "--help"], { stdout: "pipe" }).stdout.toString();
    expect(top).toContain("audit      report what in the live cluster breaks those rules");
  });

  test("--version and -v print the version and exit 0, contacting no cluster", async () => {
    for (const flag of ["--version", "-v"]) {
      const { code, stdout } = await audit([flag], { KUBECONFIG: "" });
      expect(code).toBe(0);
      expect(stdout).toStartWith(`cocoon-webhook ${packageJson.version} (revision `);
    }
  });

  test("an unknown flag is named with the closest known one; exit 2", async () => {
    const { code, stderr } = await audit(["--namespce", "a"]);
    expect(code).toBe(2);
    expect(stderr).toStartWith(
      "cocoon-webhook audit: unknown flag --namespce; did you mean --namespace?\n",
    );
  });

  test("--namespace with --all-namespaces, and an unknown format, are usage errors", async () => {
    expect((await audit(["-n", "../kube-system"])).stderr).toContain(
      "--namespace must be a namespace name (an RFC 1123 label)",
    );
    expect((await audit(["-n", "a", "-A"])).stderr).toContain(
      "--namespace and --all-namespaces exclude each other",
    );
    expect((await audit(["-o", "yaml"])).stderr).toContain(
      "--output must be one of text, json, junit, sarif, github, policyreport",
    );
  });

  test("no cluster configured is exit 2, never a clean audit of nothing", async () => {
    const { code, stdout, stderr } = await audit([], { KUBECONFIG: "" });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toStartWith("cocoon-webhook audit: no cluster to audit");
  });

  test("--context must name a context of the kubeconfig; --kubeconfig wins over KUBECONFIG", async () => {
    const missing = await audit(["--context", "prod"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('it has no context "prod"');
    const given = await audit(["--kubeconfig", apiserver.kubeconfigPath], {
      KUBECONFIG: "/nonexistent",
    });
    expect(given.code).toBe(1);
  });
});
