import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  admissionReview,
  appsResource,
  DEPLOYMENT_KIND,
  STATEFULSET_KIND,
  scaleReview,
  workloadObject,
} from "../support/admission-review";
import { createTestCa } from "../support/certs";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { readReview, sampleValue, startWebhook, type WebhookProcess } from "./harness";

const APISERVER_TIMEOUT_MS = 600;

let apiserver: FakeApiserver;
let webhook: WebhookProcess;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  apiserver.setWorkload("deployments", "team-a", "agents", workloadObject(3, true));
  // The apiserver answers with the object asked for: a StatefulSet named "plain".
  apiserver.setWorkload("statefulsets", "team-a", "plain", {
    ...workloadObject(3, false, "plain"),
    kind: "StatefulSet",
  });
  webhook = await startWebhook({
    env: { KUBECONFIG: apiserver.kubeconfigPath, APISERVER_TIMEOUT: `${APISERVER_TIMEOUT_MS}ms` },
  });
});
afterAll(async () => {
  await webhook.stop();
  await apiserver.stop();
});

async function decide(body: ReturnType<typeof admissionReview>) {
  const startedAt = performance.now();
  const answer = await readReview(await webhook.post("/validate?timeout=5s", body));
  return { ...answer.response, elapsedMs: performance.now() - startedAt };
}

describe("/validate over HTTPS with a fake apiserver", () => {
  test("kubectl scale --replicas=0 of a cocoon Deployment is denied after a verified GET", async () => {
    const before = await webhook.metrics();
    const requestsBefore = apiserver.requests.length;
    const answer = await decide(scaleReview(3, 0));
    expect(answer.allowed).toBeFalse();
    expect(answer.status?.message).toContain("team-a/agents");
    expect(answer.status?.message).toContain("CocoonHibernation");
    const get = apiserver.requests.at(-1);
    expect(apiserver.requests.length).toBe(requestsBefore + 1);
    expect(get?.path).toBe("/apis/apps/v1/namespaces/team-a/deployments/agents");
    expect(get?.authorization).toBe(`Bearer ${apiserver.token}`);
    const after = await webhook.metrics();
    const success = { verb: "get", resource: "deployments", outcome: "success" };
    expect(
      sampleValue(after, "cocoon_webhook_apiserver_requests_total", success) -
        sampleValue(before, "cocoon_webhook_apiserver_requests_total", success),
    ).toBe(1);
  });

  test("every branch records its admission sample", async () => {
    const before = await webhook.metrics();
    const outcomes: [string, ReturnType<typeof admissionReview>, boolean, string, string][] = [
      ["scale-up with the apiserver failing", scaleReview(1, 5), true, "allow", ""],
      ["scale unchanged", scaleReview(2, 2), true, "allow", ""],
      [
        "scale-down, parent missing",
        scaleReview(3, 1, { resource: "deployments", name: "gone" }),
        true,
        "skipped",
        "no_parent",
      ],
      [
        "scale-down, parent not cocoon",
        scaleReview(3, 1, { resource: "statefulsets", name: "plain" }),
        true,
        "skipped",
        "not_cocoon",
      ],
      ["scale-down, parent cocoon", scaleReview(3, 2), false, "deny", "scale_down"],
      [
        "direct Deployment scale-down",
        admissionReview({
          operation: "UPDATE",
          kind: DEPLOYMENT_KIND,
          resource: appsResource("deployments"),
          object: workloadObject(1, true),
          oldObject: workloadObject(2, true),
        }),
        false,
        "deny",
        "scale_down",
      ],
      [
        "direct Deployment scale-down from a missing replicas (1) to 0",
        admissionReview({
          operation: "UPDATE",
          kind: DEPLOYMENT_KIND,
          resource: appsResource("deployments"),
          object: workloadObject(0, true),
          oldObject: workloadObject(undefined, true),
        }),
        false,
        "deny",
        "scale_down",
      ],
      [
        "direct StatefulSet scale-up",
        admissionReview({
          operation: "UPDATE",
          kind: STATEFULSET_KIND,
          resource: appsResource("statefulsets"),
          object: workloadObject(4, true),
          oldObject: workloadObject(2, true),
        }),
        true,
        "allow",
        "",
      ],
      [
        "direct scale-down of a non-cocoon Deployment",
        admissionReview({
          operation: "UPDATE",
          kind: DEPLOYMENT_KIND,
          resource: appsResource("deployments"),
          object: workloadObject(1, false),
          oldObject: workloadObject(3, false),
        }),
        true,
        "skipped",
        "not_cocoon",
      ],
      [
        "CREATE",
        admissionReview({
          operation: "CREATE",
          kind: DEPLOYMENT_KIND,
          object: workloadObject(1, true),
        }),
        true,
        "skipped",
        "operation",
      ],
    ];
    for (const [name, body, allowed] of outcomes) {
      if (name.startsWith("scale-up")) apiserver.failAlways({ kind: "status", status: 500 });
      const answer = await decide(body);
      apiserver.clearFailures();
      expect({ name, allowed: answer.allowed }).toEqual({ name, allowed });
    }
    const after = await webhook.metrics();
    const counts = new Map<string, number>();
    for (const [, , , result, reason] of outcomes) {
      const key = `${result}/${reason}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    for (const [key, count] of counts) {
      const [result = "", reason = ""] = key.split("/");
      const labels = { handler: "validate", result, reason };
      const delta =
        sampleValue(after, "cocoon_webhook_admission_total", labels) -
        sampleValue(before, "cocoon_webhook_admission_total", labels);
      expect({ key, delta }).toEqual({ key, delta: count });
    }
  });

  test.each([
    ["500", { kind: "status", status: 500 } as const],
    ["403", { kind: "status", status: 403 } as const],
    ["429", { kind: "status", status: 429 } as const],
    ["reset", { kind: "reset" } as const],
  ])("a scale-down fails closed when the parent GET answers %s", async (_label, failure) => {
    apiserver.failAlways(failure);
    try {
      const answer = await decide(scaleReview(3, 1));
      expect(answer.allowed).toBeFalse();
      expect(answer.status?.message).toContain("cannot verify parent workload");
    } finally {
      apiserver.clearFailures();
    }
  });

  test("a slow apiserver fails closed within APISERVER_TIMEOUT, and the error is counted", async () => {
    const labels = { handler: "validate", result: "error", reason: "parent_fetch" };
    const before = await webhook.metric("cocoon_webhook_admission_total", labels);
    apiserver.failAlways({ kind: "slow", delayMs: 3000 });
    try {
      const answer = await decide(scaleReview(3, 1));
      expect(answer.allowed).toBeFalse();
      expect(answer.status?.message).toContain("cannot verify parent workload");
      expect(answer.elapsedMs).toBeGreaterThanOrEqual(APISERVER_TIMEOUT_MS - 50);
      expect(answer.elapsedMs).toBeLessThan(APISERVER_TIMEOUT_MS + 1000);
    } finally {
      apiserver.clearFailures();
    }
    const after = await webhook.metrics();
    expect(sampleValue(after, "cocoon_webhook_admission_total", labels)).toBe(before + 1);
    expect(
      sampleValue(after, "cocoon_webhook_apiserver_requests_total", {
        verb: "get",
        resource: "deployments",
        outcome: "timeout",
      }),
    ).toBeGreaterThanOrEqual(1);
  });
});

describe("apiserver trust", () => {
  test("refuses an apiserver whose certificate the configured CA did not sign", async () => {
    const strangerCa = createTestCa("stranger-ca");
    const distrusting = await startWebhook({
      env: { KUBECONFIG: apiserver.writeKubeconfig({ caPem: strangerCa.cert }) },
    });
    try {
      const answer = await readReview(await distrusting.post("/validate", scaleReview(3, 1)));
      expect(answer.response.allowed).toBeFalse();
      expect(answer.response.status?.message).toContain("cannot verify parent workload");
      expect(answer.response.status?.message?.toLowerCase()).toMatch(
        /certificate|self.signed|verify/,
      );
    } finally {
      await distrusting.stop();
    }
  });

  test("without any cluster configuration it starts, warns, and fails apiserver checks closed", async () => {
    const detached = await startWebhook();
    try {
      const down = await readReview(await detached.post("/validate", scaleReview(3, 1)));
      expect(down.response.allowed).toBeFalse();
      expect(down.response.status?.message).toContain("no Kubernetes API is configured");
      const up = await readReview(await detached.post("/validate", scaleReview(1, 3)));
      expect(up.response.allowed).toBeTrue();
      expect(
        detached.logs().some((line) => line.includes("no Kubernetes API is configured")),
      ).toBeTrue();
    } finally {
      await detached.stop();
    }
  });
});
