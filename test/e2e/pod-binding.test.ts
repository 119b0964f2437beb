import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR_USERNAME, SCHEDULER_USERNAME } from "../../src/cocoon/identities";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import { admissionReview, BINDING_KIND, COCOONSET_OWNER } from "../support/admission-review";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { readReview, sampleValue, startWebhook, type WebhookProcess } from "./harness";

/*
 * Pods placed on a node by name: a pod CREATE with spec.nodeName, and a
 * Binding made by anyone but the scheduler. The webhook GETs the node from the
 * fake apiserver (and, for a Binding to a VM node, the bound pod).
 */

const APISERVER_TIMEOUT_MS = 600;
const VM_NODE = "vk-cocoon-1";
const PLAIN_NODE = "worker-1";
const ALICE = "alice";

function node(name: string, vm: boolean) {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name },
    spec: vm
      ? { taints: [{ key: COCOON_TOLERATION_KEY, value: "cocoon", effect: "NoSchedule" }] }
      : {},
  };
}

function pod(name: string, options: { nodeName?: string; marked?: boolean; owned?: boolean } = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "default",
      ...(options.marked ? { annotations: { [VM_NAME_ANNOTATION]: `vk-default-${name}` } } : {}),
      ...(options.owned ? { ownerReferences: [COCOONSET_OWNER] } : {}),
    },
    spec: {
      containers: [{ name: "c", image: "busybox" }],
      ...(options.nodeName ? { nodeName: options.nodeName } : {}),
    },
  };
}

const podOnNode = (username: string, nodeName: string, owned = false) =>
  admissionReview({ username, name: "hand-0", object: pod("hand-0", { nodeName, owned }) });

function binding(username: string, podName: string, nodeName: string) {
  return admissionReview({
    username,
    name: podName,
    kind: BINDING_KIND,
    subResource: "binding",
    object: {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: podName, namespace: "default" },
      target: { apiVersion: "v1", kind: "Node", name: nodeName },
    },
  });
}

let apiserver: FakeApiserver;
let webhook: WebhookProcess;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  apiserver.setNode(VM_NODE, node(VM_NODE, true));
  apiserver.setNode(PLAIN_NODE, node(PLAIN_NODE, false));
  apiserver.setPod("default", "plain-0", pod("plain-0"));
  apiserver.setPod("default", "agents-0", pod("agents-0", { marked: true, owned: true }));
  webhook = await startWebhook({
    env: { KUBECONFIG: apiserver.kubeconfigPath, APISERVER_TIMEOUT: `${APISERVER_TIMEOUT_MS}ms` },
  });
});
afterAll(async () => {
  await webhook.stop();
  await apiserver.stop();
});
afterEach(() => apiserver.clearFailures());

async function decide(body: ReturnType<typeof admissionReview>) {
  const answer = await readReview(await webhook.post("/mutate?timeout=5s", body));
  expect(answer.response.uid).toBe(body.request.uid);
  expect(answer.response.patch).toBeUndefined();
  return answer.response;
}

describe("/mutate: pods bound by name, over HTTPS with a fake apiserver", () => {
  test("each case reads what it must and records its admission and apiserver samples", async () => {
    const cases: [string, ReturnType<typeof admissionReview>, string, string[]][] = [
      [
        "hand-made pod on a VM node",
        podOnNode(ALICE, VM_NODE),
        "deny/not_owned",
        [`/api/v1/nodes/${VM_NODE}`],
      ],
      [
        "forged owner on a VM node",
        podOnNode(ALICE, VM_NODE, true),
        "deny/creator",
        [`/api/v1/nodes/${VM_NODE}`],
      ],
      [
        "operator pod with a CocoonSet owner on a VM node",
        podOnNode(OPERATOR_USERNAME, VM_NODE, true),
        "allow/",
        [`/api/v1/nodes/${VM_NODE}`],
      ],
      [
        "pod on a plain node",
        podOnNode(ALICE, PLAIN_NODE),
        "skipped/not_cocoon",
        [`/api/v1/nodes/${PLAIN_NODE}`],
      ],
      [
        "pod on a node that does not exist",
        podOnNode(ALICE, "gone"),
        "skipped/not_cocoon",
        ["/api/v1/nodes/gone"],
      ],
      ["nodeName that is no DNS name", podOnNode(ALICE, "../../x"), "deny/invalid_name", []],
      [
        "marked pod naming a node: no node GET",
        admissionReview({
          username: ALICE,
          object: pod("m-0", { nodeName: VM_NODE, marked: true }),
        }),
        "deny/not_owned",
        [],
      ],
      [
        "pod without nodeName: no GET",
        admissionReview({ username: ALICE, object: pod("p-0") }),
        "skipped/not_cocoon",
        [],
      ],
      [
        "user binds an unmarked pod to a VM node",
        binding(ALICE, "plain-0", VM_NODE),
        "deny/unmarked_binding",
        [`/api/v1/nodes/${VM_NODE}`, "/api/v1/namespaces/default/pods/plain-0"],
      ],
      [
        "user binds an operator pod to a VM node",
        binding(ALICE, "agents-0", VM_NODE),
        "deny/creator",
        [`/api/v1/nodes/${VM_NODE}`, "/api/v1/namespaces/default/pods/agents-0"],
      ],
      [
        "operator binds its pod to a VM node",
        binding(OPERATOR_USERNAME, "agents-0", VM_NODE),
        "allow/",
        [`/api/v1/nodes/${VM_NODE}`, "/api/v1/namespaces/default/pods/agents-0"],
      ],
      [
        "user binds a pod to a plain node",
        binding(ALICE, "plain-0", PLAIN_NODE),
        "skipped/not_cocoon",
        [`/api/v1/nodes/${PLAIN_NODE}`],
      ],
      [
        "the scheduler's Binding, if it reaches the webhook, is left alone",
        binding(SCHEDULER_USERNAME, "plain-0", VM_NODE),
        "skipped/scheduler",
        [],
      ],
    ];
    const before = await webhook.metrics();
    for (const [name, body, expected, paths] of cases) {
      const requestsBefore = apiserver.requests.length;
      const answer = await decide(body);
      const result = expected.split("/")[0];
      expect({ name, allowed: answer.allowed }).toEqual({
        name,
        allowed: result === "allow" || result === "skipped",
      });
      if (!answer.allowed) {
        expect(answer.status?.code).toBe(403);
        expect(answer.status?.message).toStartWith("cocoon-webhook: ");
      }
      const read = apiserver.requests.slice(requestsBefore).map((request) => request.path);
      expect({ name, read }).toEqual({ name, read: paths });
    }
    const after = await webhook.metrics();
    const counts = new Map<string, number>();
    for (const [, , expected] of cases) counts.set(expected, (counts.get(expected) ?? 0) + 1);
    for (const [expected, count] of counts) {
      const [result = "", reason = ""] = expected.split("/");
      const labels = { handler: "mutate", result, reason };
      const delta =
        sampleValue(after, "cocoon_webhook_admission_total", labels) -
        sampleValue(before, "cocoon_webhook_admission_total", labels);
      expect({ expected, delta }).toEqual({ expected, delta: count });
    }
    const apiserverDelta = (resource: string, outcome: string) =>
      sampleValue(after, "cocoon_webhook_apiserver_requests_total", {
        verb: "get",
        resource,
        outcome,
      }) -
      sampleValue(before, "cocoon_webhook_apiserver_requests_total", {
        verb: "get",
        resource,
        outcome,
      });
    expect(apiserverDelta("nodes", "success")).toBe(8);
    expect(apiserverDelta("nodes", "not_found")).toBe(1);
    expect(apiserverDelta("pods", "success")).toBe(3);
  });

  test.each([
    ["500", { kind: "status", status: 500 } as const, "error"],
    ["403", { kind: "status", status: 403 } as const, "error"],
    ["a timeout", { kind: "slow", delayMs: 3000 } as const, "timeout"],
  ])(
    "a node GET answering %s denies the pod fail-closed (error/node_fetch)",
    async (_label, failure, outcome) => {
      const labels = { handler: "mutate", result: "error", reason: "node_fetch" };
      const apiLabels = { verb: "get", resource: "nodes", outcome };
      const before = await webhook.metrics();
      apiserver.failAlways(failure);
      const startedAt = performance.now();
      const answer = await decide(podOnNode(ALICE, PLAIN_NODE));
      const elapsedMs = performance.now() - startedAt;
      apiserver.clearFailures();
      expect(answer.allowed).toBeFalse();
      expect(answer.status?.message).toContain(`cannot verify node "${PLAIN_NODE}"`);
      expect(answer.status?.message).toContain("fail-closed");
      // Bounded by APISERVER_TIMEOUT, not by the apiserver's 3 s delay.
      expect(elapsedMs).toBeLessThan(3000);
      const after = await webhook.metrics();
      expect(sampleValue(after, "cocoon_webhook_admission_total", labels)).toBe(
        sampleValue(before, "cocoon_webhook_admission_total", labels) + 1,
      );
      expect(sampleValue(after, "cocoon_webhook_apiserver_requests_total", apiLabels)).toBe(
        sampleValue(before, "cocoon_webhook_apiserver_requests_total", apiLabels) + 1,
      );
    },
  );

  test("a 2xx node answer that is not the node asked for fails closed", async () => {
    apiserver.setNode("impostor", { apiVersion: "v1", kind: "Status", metadata: {} });
    const answer = await decide(podOnNode(ALICE, "impostor"));
    expect(answer.allowed).toBeFalse();
    expect(answer.status?.message).toContain('cannot verify node "impostor"');
  });

  test("a bound pod that cannot be read denies the Binding fail-closed (error/pod_fetch)", async () => {
    const labels = { handler: "mutate", result: "error", reason: "pod_fetch" };
    const before = await webhook.metric("cocoon_webhook_admission_total", labels);
    apiserver.failNext({ kind: "slow", delayMs: 0 }); // the node GET answers normally
    apiserver.failNext({ kind: "status", status: 500 });
    const answer = await decide(binding(ALICE, "agents-0", VM_NODE));
    expect(answer.allowed).toBeFalse();
    expect(answer.status?.message).toContain("cannot verify pod default/agents-0");
    const after = await webhook.metric("cocoon_webhook_admission_total", labels);
    expect(after).toBe(before + 1);
  });
});
