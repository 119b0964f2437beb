/**
 * `cocoon-webhook audit` over a large cluster: the fake apiserver of the
 * tests serves 100 000 pods and 10 000 CocoonSets (made page by page, never
 * held), and the compiled binary audits them under /usr/bin/time, which
 * reports its peak resident set and the wall time. A figure, not a test:
 *
 *   make build && node_modules/.bin/bun bench/audit-scale.ts [PODS] [COCOONSETS]
 */
import { join } from "node:path";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../src/cocoon/markers";
import { startFakeApiserver } from "../test/support/fake-apiserver";

const PODS = Number(process.argv[2] ?? 100_000);
const COCOONSETS = Number(process.argv[3] ?? 10_000);
const NAMESPACES = 100;
const NODES = 100;
const VM_NODES = 10;
const DEPLOYMENTS = 1_000;
const BINARY = join(import.meta.dir, "../dist/cocoon-webhook");

const namespaceOf = (index: number) => `team-${String(index % NAMESPACES).padStart(3, "0")}`;
const toleration = { key: COCOON_TOLERATION_KEY, operator: "Exists" };

/** A pod about the size the apiserver serves (≈3 KiB): owner, labels, managedFields, one container, status. */
function pod(index: number): unknown {
  const name = `agents-${index}`;
  const handMade = index % 1_000 === 999;
  const squatter = index % 2_000 === 1_000;
  const gated = !squatter;
  return {
    metadata: {
      name,
      namespace: namespaceOf(index),
      uid: `00000000-0000-0000-0000-${String(index).padStart(12, "0")}`,
      resourceVersion: String(1_000 + index),
      creationTimestamp: "2026-01-01T00:00:00Z",
      labels: { "app.kubernetes.io/name": "agents", "cocoonset.cocoonstack.io/name": "agents" },
      annotations: gated ? { [VM_NAME_ANNOTATION]: `vk-${namespaceOf(index)}-${name}` } : {},
      ownerReferences: handMade
        ? []
        : [
            {
              apiVersion: "cocoonset.cocoonstack.io/v1",
              kind: "CocoonSet",
              name: "agents",
              uid: "11111111-1111-1111-1111-111111111111",
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
      managedFields: [
        {
          manager: handMade ? "kubectl-create" : "cocoon-operator",
          operation: "Update",
          apiVersion: "v1",
          time: "2026-01-01T00:00:00Z",
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": { "f:labels": { ".": {}, "f:app.kubernetes.io/name": {} } },
            "f:spec": { "f:containers": { 'k:{"name":"agent"}': { ".": {}, "f:image": {} } } },
          },
        },
      ],
    },
    spec: {
      nodeName: `node-${index % NODES}`,
      tolerations: gated ? [toleration] : [],
      containers: [
        {
          name: "agent",
          image: "registry.example/agent:1.0",
          resources: { limits: { cpu: "2", memory: "4Gi" }, requests: { cpu: "1", memory: "2Gi" } },
          env: [{ name: "COCOON_SLOT", value: String(index % 8) }],
        },
      ],
      restartPolicy: "Always",
      serviceAccountName: "default",
    },
    status: {
      phase: "Running",
      conditions: [
        { type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:05Z" },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" },
      ],
      podIP: `10.0.${Math.floor(index / 250) % 256}.${index % 250}`,
    },
  };
}

function cocoonSet(index: number): unknown {
  const broken = index % 100 === 99;
  return {
    metadata: { name: `agents-${index}`, namespace: namespaceOf(index), uid: `set-${index}` },
    spec: {
      agent: broken
        ? { image: "agent:1", mode: "run", backend: "firecracker", os: "windows", replicas: 1 }
        : { image: "agent:1", replicas: 2 },
      toolboxes: [{ name: "browser", image: "browser:1" }],
    },
  };
}

const apiserver = await startFakeApiserver();
try {
  apiserver.setList("pods", { count: PODS, make: pod });
  apiserver.setList("cocoonsets", { count: COCOONSETS, make: cocoonSet });
  apiserver.setList("cocoonhibernations", []);
  apiserver.setList("nodes", {
    count: NODES,
    make: (index) => ({
      metadata: { name: `node-${index}` },
      spec:
        index < VM_NODES ? { taints: [{ key: COCOON_TOLERATION_KEY, effect: "NoSchedule" }] } : {},
    }),
  });
  apiserver.setList("deployments", {
    count: DEPLOYMENTS,
    make: (index) => ({
      metadata: { name: `web-${index}`, namespace: namespaceOf(index) },
      spec: {
        replicas: 2,
        template: { spec: { tolerations: index % 100 === 0 ? [toleration] : [] } },
      },
    }),
  });
  apiserver.setList("statefulsets", []);

  for (const format of ["text", "policyreport"]) {
    const child = Bun.spawn(["/usr/bin/time", "-f", "%M %e", BINARY, "audit", "-o", format], {
      env: { PATH: process.env.PATH ?? "", KUBECONFIG: apiserver.kubeconfigPath },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    const lines = stderr.trim().split("\n");
    const [peakKib, seconds] = (lines.at(-1) ?? "").split(" ").map(Number);
    const summary =
      format === "text" ? stdout.trim().split("\n").at(-1) : lines.slice(0, -1).join(" ");
    console.log(
      `audit -o ${format}: exit ${code}, ${seconds} s, peak RSS ${((peakKib ?? 0) / 1024).toFixed(1)} MiB, ` +
        `${(stdout.length / 1024 / 1024).toFixed(1)} MiB of output\n  ${summary}`,
    );
  }
} finally {
  await apiserver.stop();
}
