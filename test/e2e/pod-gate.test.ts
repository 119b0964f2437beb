import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR_USERNAME } from "../../src/cocoon/identities";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import { admissionReview, COCOONSET_OWNER, DEPLOYMENT_KIND } from "../support/admission-review";
import { readReview, sampleValue, startWebhook, type WebhookProcess } from "./harness";

function pod(
  options: { tolerate?: boolean; annotate?: boolean; owned?: boolean; containers?: number } = {},
) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "agents-0",
      namespace: "default",
      labels: { app: "agents" },
      ...(options.annotate ? { annotations: { [VM_NAME_ANNOTATION]: "vk-default-agents-0" } } : {}),
      ...(options.owned ? { ownerReferences: [COCOONSET_OWNER] } : {}),
    },
    spec: {
      containers: Array.from({ length: options.containers ?? 1 }, (_, index) => ({
        name: `c${index}`,
        image: "ghcr.io/cocoonstack/agent:1.0",
        env: Array.from({ length: options.containers ? 400 : 2 }, (_, envIndex) => ({
          name: `VARIABLE_${envIndex}`,
          value: "v".repeat(40),
        })),
      })),
      tolerations: [
        {
          key: "node.kubernetes.io/not-ready",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
        ...(options.tolerate
          ? [{ key: COCOON_TOLERATION_KEY, operator: "Exists", effect: "NoSchedule" }]
          : []),
      ],
    },
  };
}

let webhook: WebhookProcess;
beforeAll(async () => {
  webhook = await startWebhook({
    env: {
      POD_CREATORS: ` ${OPERATOR_USERNAME} , ,system:admin `,
      RUNTIME_IDENTITIES: "system:serviceaccount:cocoon-system:vk-cocoon, system:node:*",
    },
  });
});
afterAll(async () => {
  await webhook.stop();
});

const cases = [
  {
    name: "non-cocoon pod CREATE",
    review: admissionReview({ object: pod() }),
    allowed: true,
    labels: { result: "skipped", reason: "not_cocoon" },
  },
  {
    name: "operator-created CocoonSet pod",
    review: admissionReview({ object: pod({ tolerate: true, annotate: true, owned: true }) }),
    allowed: true,
    labels: { result: "allow", reason: "" },
  },
  {
    name: "second POD_CREATORS entry (trimmed)",
    review: admissionReview({
      username: "system:admin",
      object: pod({ tolerate: true, owned: true }),
    }),
    allowed: true,
    labels: { result: "allow", reason: "" },
  },
  {
    name: "bare cocoon pod",
    review: admissionReview({ username: "alice", object: pod({ tolerate: true }) }),
    allowed: false,
    labels: { result: "deny", reason: "not_owned" },
    message: "CocoonSet",
  },
  {
    name: "forged CocoonSet owner from another user",
    review: admissionReview({ username: "mallory", object: pod({ annotate: true, owned: true }) }),
    allowed: false,
    labels: { result: "deny", reason: "creator" },
    message: 'user "mallory"',
  },
  {
    name: "UPDATE adding the toleration by a user",
    review: admissionReview({
      operation: "UPDATE",
      username: "alice",
      object: pod({ tolerate: true, owned: true }),
      oldObject: pod({ owned: true }),
    }),
    allowed: false,
    labels: { result: "deny", reason: "creator" },
    message: 'user "alice"',
  },
  {
    name: "runtime patch of a gated pod by vk-cocoon",
    review: admissionReview({
      operation: "UPDATE",
      username: "system:serviceaccount:cocoon-system:vk-cocoon",
      object: pod({ tolerate: true, annotate: true, owned: true }),
      oldObject: pod({ tolerate: true, annotate: true, owned: true }),
    }),
    allowed: true,
    labels: { result: "skipped", reason: "no_change" },
  },
  {
    name: "a user drops the owner of a VM pod",
    review: admissionReview({
      operation: "UPDATE",
      username: "alice",
      object: pod({ tolerate: true, annotate: true }),
      oldObject: pod({ tolerate: true, annotate: true, owned: true }),
    }),
    allowed: false,
    labels: { result: "deny", reason: "gate_field" },
    message: 'user "alice" may not change metadata.ownerReferences',
  },
  {
    name: "a pods/status write by a user that gives a plain pod the VM name",
    review: admissionReview({
      operation: "UPDATE",
      subResource: "status",
      username: "alice",
      object: pod({ annotate: true, owned: true }),
      oldObject: pod(),
    }),
    allowed: false,
    labels: { result: "deny", reason: "not_owned" },
    message: "CocoonSet",
  },
  {
    name: "DELETE",
    review: admissionReview({ operation: "DELETE", oldObject: pod({ tolerate: true }) }),
    allowed: true,
    labels: { result: "skipped", reason: "operation" },
  },
  {
    name: "a Deployment sent to /mutate",
    review: admissionReview({ kind: DEPLOYMENT_KIND, object: {} }),
    allowed: true,
    labels: { result: "skipped", reason: "kind" },
  },
  {
    name: "an undecodable pod",
    review: admissionReview({ object: "not a pod" }),
    allowed: true,
    labels: { result: "skipped", reason: "decode" },
  },
  {
    name: "a ≈1 MB gated pod with 50 containers from a user",
    review: admissionReview({
      username: "alice",
      object: pod({ containers: 50, tolerate: true, owned: true }),
    }),
    allowed: false,
    labels: { result: "deny", reason: "creator" },
    message: 'user "alice"',
  },
];

describe("/mutate over HTTPS", () => {
  test("the ≈1 MB review really is about a megabyte", () => {
    const size = JSON.stringify(cases.at(-1)?.review).length;
    expect(size).toBeGreaterThan(900_000);
    expect(size).toBeLessThan(2_000_000);
  });

  test("decides every case, never patches, and records exactly the expected samples", async () => {
    const before = await webhook.metrics();
    for (const testCase of cases) {
      const answer = await readReview(await webhook.post("/mutate?timeout=5s", testCase.review));
      expect({
        name: testCase.name,
        uid: answer.response.uid,
        allowed: answer.response.allowed,
      }).toEqual({
        name: testCase.name,
        uid: testCase.review.request.uid,
        allowed: testCase.allowed,
      });
      expect(answer.response.patch).toBeUndefined();
      if (!testCase.allowed) {
        expect(answer.response.status?.code).toBe(403);
        expect(answer.response.status?.message).toStartWith("cocoon-webhook: ");
        expect(answer.response.status?.message).toContain(testCase.message ?? "");
      }
    }
    const after = await webhook.metrics();
    const expected = new Map<string, number>();
    for (const { labels } of cases) {
      const key = JSON.stringify(labels);
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    for (const [key, count] of expected) {
      const labels = { handler: "mutate", ...JSON.parse(key) };
      const delta =
        sampleValue(after, "cocoon_webhook_admission_total", labels) -
        sampleValue(before, "cocoon_webhook_admission_total", labels);
      expect({ labels, delta }).toEqual({ labels, delta: count });
    }
  });

  test("logs every denial with handler, uid, namespace/name, user and reason", async () => {
    const denial = admissionReview({ username: "eve", object: pod({ tolerate: true }) });
    await webhook.post("/mutate", denial);
    const line = await webhook.logLine(denial.request.uid);
    expect(line).toBeDefined();
    expect(JSON.parse(line ?? "{}")).toMatchObject({
      level: "warn",
      handler: "mutate",
      uid: denial.request.uid,
      resource: "default/web-0",
      user: "eve",
      reason: "not_owned",
    });
  });
});
