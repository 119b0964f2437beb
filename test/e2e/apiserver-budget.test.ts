import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_READS_IN_FLIGHT } from "../../src/apiserver/read-budget";
import { LARGE_REVIEW_BYTES } from "../../src/http/body-budget";
import { MAX_DECODED_CONTAINERS } from "../../src/json/containers";
import { admissionReview, HIBERNATION_KIND } from "../support/admission-review";
import { waitUntil } from "../support/eventually";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import {
  createMemoryCgroup,
  type MemoryCgroup,
  memoryCgroupUnavailable,
  uncachedCopy,
} from "../support/memory-cgroup";
import { MIB, peakRssBytes, resetPeakRss } from "../support/procfs";
import { BINARY, readReview, startWebhook, type WebhookProcess } from "./harness";

/*
 * The apiserver answers the webhook waits on, under one budget: answers
 * denser than a review may be are refused before they are decoded, the
 * reads in flight and what their answers hold are bounded (past either a
 * review fails closed at once, naming the read), and a review that needs no
 * read is never queued behind reviews that wait on a slow apiserver. Run
 * inside a memory cgroup of the manifests' 256 MiB where the machine allows
 * it (root, cgroup v1), else with a bound on the process's peak.
 */

/** limits.memory of manifests/base/deployment.yaml. */
const MEMORY_LIMIT_BYTES = 256 * MIB;
const NAMESPACE = "team-a";
const VM_NODE = "vm-node";

let apiserver: FakeApiserver;
let webhook: WebhookProcess;
let cgroup: MemoryCgroup | undefined;
let binaryDir: string | undefined;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  apiserver.setNode(VM_NODE, {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: VM_NODE },
    spec: { taints: [{ key: "virtual-kubelet.io/provider", effect: "NoSchedule" }] },
  });
  const unavailable = memoryCgroupUnavailable();
  if (unavailable) {
    console.warn(`apiserver budget: no memory cgroup (${unavailable}); bounding the peak instead`);
  } else {
    cgroup = createMemoryCgroup("cocoon-e2e-budget", MEMORY_LIMIT_BYTES);
    binaryDir = mkdtempSync(join(tmpdir(), "cocoon-budget-binary-"));
  }
  webhook = await startWebhook({
    env: { KUBECONFIG: apiserver.kubeconfigPath, APISERVER_TIMEOUT: "3s" },
    ...(cgroup && binaryDir
      ? { wrap: cgroup.wrap, binary: uncachedCopy(BINARY, join(binaryDir, "cocoon-webhook")) }
      : {}),
  });
});
afterAll(async () => {
  await webhook.stop("SIGKILL");
  await apiserver.stop();
  cgroup?.remove();
  if (binaryDir) rmSync(binaryDir, { recursive: true, force: true });
});

/** Each scenario's peak is its own. */
function startScenario(): void {
  resetPeakRss(webhook.process.pid);
  cgroup?.resetPeak();
}

/** The process is alive and, in the cgroup, was never OOM-killed; without one, its peak stayed inside the limit. */
function expectWithinMemoryLimit(): void {
  expect(webhook.process.exitCode).toBeNull();
  if (cgroup) expect(cgroup.oomKills()).toBe(0);
  else expect(peakRssBytes(webhook.process.pid)).toBeLessThan(MEMORY_LIMIT_BYTES);
}

const hibernationCreate = (podName: string) =>
  admissionReview({
    kind: HIBERNATION_KIND,
    namespace: NAMESPACE,
    name: podName,
    username: "alice",
    object: {
      apiVersion: "cocoonset.cocoonstack.io/v1",
      kind: "CocoonHibernation",
      metadata: { name: podName, namespace: NAMESPACE },
      spec: { podRef: { name: podName }, desire: "Hibernate" },
    },
  });

async function verdictOf(body: unknown, path = "/validate-cocoonhibernation") {
  const { response } = await readReview(await webhook.post(path, body));
  return { allowed: response.allowed, message: response.status?.message ?? "" };
}

describe("dense and large apiserver answers, several at once", () => {
  test("an 8 MiB LIST page of 2.79 million {}, 3 CREATEs at once: each refused before decoding, none OOM", async () => {
    startScenario();
    const items = "{},".repeat(2_790_000);
    apiserver.failAlways({
      kind: "answer",
      body: `{"apiVersion":"cocoonset.cocoonstack.io/v1","kind":"CocoonHibernationList","metadata":{},"items":[${items}{}]}`,
    });
    try {
      const verdicts = await Promise.all(
        ["vm-0", "vm-1", "vm-2"].map((pod) => verdictOf(hibernationCreate(pod))),
      );
      for (const { allowed, message } of verdicts) {
        expect(allowed).toBeFalse();
        expect(message).toContain("cannot verify that pod");
        expect(message).toContain(
          `LIST cocoonhibernations in ${NAMESPACE}: apiserver answered 200 with a body holding more than ${MAX_DECODED_CONTAINERS} JSON objects and arrays`,
        );
      }
    } finally {
      apiserver.clearFailures();
    }
    expectWithinMemoryLimit();
  }, 60_000);

  test("15 CocoonHibernations of 1.38 MB each (6 700 ownerReferences), 6 CREATEs at once: all answered, none OOM", async () => {
    const ownerReferences = Array.from({ length: 6700 }, (_, index) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      name: `owner-${index}-${"o".repeat(90)}`,
      uid: crypto.randomUUID(),
      controller: false,
      blockOwnerDeletion: false,
    }));
    const fat = Array.from({ length: 15 }, (_, index) => ({
      metadata: { name: `other-${index}`, namespace: NAMESPACE, ownerReferences },
      spec: { podRef: { name: `other-${index}` }, desire: "Hibernate" },
    }));
    expect(JSON.stringify(fat[0]).length).toBeGreaterThan(1_300_000);
    startScenario();
    apiserver.setHibernations(NAMESPACE, fat);
    // Pages of five: each within the webhook's page cap, the list within its total.
    apiserver.setListPageSize(5);
    try {
      const verdicts = await Promise.all(
        Array.from({ length: 6 }, (_, index) => verdictOf(hibernationCreate(`vm-${index}`))),
      );
      const refused = verdicts.filter(({ allowed }) => !allowed);
      console.log(
        `apiserver budget: 6 LISTs of 15 x 1.38 MB at once: ${verdicts.length - refused.length} allowed, ${refused.length} refused by the budget; ` +
          `peak ${cgroup ? `${Math.round(cgroup.peakBytes() / MIB)} MiB in the cgroup (page cache included), ` : ""}` +
          `${Math.round(peakRssBytes(webhook.process.pid) / MIB)} MiB resident`,
      );
      // Six such LISTs do not fit the budget together: some are refused rather than decoded side by side.
      expect(refused.length).toBeGreaterThan(0);
      for (const { message } of refused) expect(message).toContain("cannot verify that pod");
      // However many fit at once, those that do not are refused naming the read and the bound.
      for (const { message } of refused) {
        expect(message).toMatch(
          /LIST cocoonhibernations in team-a: (its answer would take the apiserver answers held at once past \d+ bytes|\d+ apiserver reads are already waiting)/,
        );
      }
    } finally {
      apiserver.setListPageSize(undefined);
      apiserver.setHibernations(NAMESPACE, []);
    }
    expectWithinMemoryLimit();
  }, 60_000);
});

describe("reads never starve the rest", () => {
  /** A pod CREATE placed on the VM node by name, padded to `bytes` of JSON: the pod gate GETs the node. */
  function podOnVmNode(name: string, bytes: number) {
    const review = (padding: string) =>
      admissionReview({
        name,
        namespace: NAMESPACE,
        username: "alice",
        object: {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name, namespace: NAMESPACE, annotations: { padding } },
          spec: { nodeName: VM_NODE, containers: [{ name: "c", image: "busybox" }] },
        },
      });
    const bare = JSON.stringify(review("")).length;
    const padded = review("x".repeat(bytes - bare));
    expect(JSON.stringify(padded).length).toBe(bytes);
    return padded;
  }

  for (const clients of [40, 80]) {
    test(`${clients} reviews just under ${LARGE_REVIEW_BYTES} bytes wait on a slow node GET; a pod review that needs no read is answered before any of them`, async () => {
      // Slower than any review may wait, so each read lasts until APISERVER_TIMEOUT (3 s).
      apiserver.failPath(`/nodes/${VM_NODE}`, { kind: "slow", delayMs: 2900 });
      startScenario();
      const answeredAfterRead: number[] = [];
      const refusedAtOnce: number[] = [];
      const sent = apiserver.requests.length;
      try {
        const big = Array.from({ length: clients }, async (_, index) => {
          const verdict = await verdictOf(
            podOnVmNode(`vm-pod-${index}`, LARGE_REVIEW_BYTES - 1),
            "/mutate",
          );
          if (verdict.message.includes("apiserver reads are already waiting")) {
            refusedAtOnce.push(index);
          } else answeredAfterRead.push(index);
        });
        await waitUntil(() => apiserver.requests.length - sent >= MAX_READS_IN_FLIGHT, 10_000);
        const startedAt = performance.now();
        const plain = await verdictOf(
          admissionReview({
            name: "web-0",
            namespace: NAMESPACE,
            username: "alice",
            object: {
              apiVersion: "v1",
              kind: "Pod",
              metadata: { name: "web-0", namespace: NAMESPACE, labels: { app: "web" } },
              spec: { containers: [{ name: "web", image: "nginx:1.27" }] },
            },
          }),
          "/mutate",
        );
        const plainMs = performance.now() - startedAt;
        const answeredBeforePlain = answeredAfterRead.length;
        await Promise.all(big);
        console.log(
          `apiserver budget: ${clients} reviews on a slow node GET; the plain pod review answered in ${Math.round(plainMs)} ms ` +
            `(${refusedAtOnce.length} refused at once, ${answeredAfterRead.length} after their read; timings are not asserted)`,
        );
        expect(plain.allowed).toBeTrue();
        // Answered while every review that waits on a read still waits.
        expect(answeredBeforePlain).toBe(0);
        expect(answeredAfterRead.length).toBe(MAX_READS_IN_FLIGHT);
        expect(refusedAtOnce.length).toBe(clients - MAX_READS_IN_FLIGHT);
      } finally {
        apiserver.clearFailures();
      }
      expectWithinMemoryLimit();
    }, 60_000);
  }
});
