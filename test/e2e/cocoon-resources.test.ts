import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { admissionReview, COCOONSET_KIND, HIBERNATION_KIND } from "../support/admission-review";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { readReview, sampleValue, startWebhook, type WebhookProcess } from "./harness";

const APISERVER_TIMEOUT_MS = 600;

function cocoonSet(spec: Record<string, unknown>, name = "agents") {
  return {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonSet",
    metadata: { name, namespace: "team-a" },
    spec,
  };
}

const validSet = cocoonSet({
  agent: { image: "cocoon/agent:1.2", replicas: 2, resources: { limits: { memory: "1Gi" } } },
  toolboxes: [
    { name: "browser", image: "cocoon/browser:latest", mode: "run" },
    { name: "win", mode: "static", staticIP: "10.0.0.9", staticVMID: "vm-7", connType: "rdp" },
  ],
  snapshotPolicy: "main-only",
});

const invalidSpec = {
  agent: { image: "cocoon/agent:1", replicas: 1, backend: "firecracker", os: "windows" },
  toolboxes: [
    { name: "42", image: "x" },
    { name: "dup", image: "y" },
    { name: "dup", image: "z" },
  ],
  snapshotPolicy: "sometimes",
};
const invalidSet = cocoonSet(invalidSpec);

function hibernation(name: string, podName: string, desire = "Hibernate", terminating = false) {
  return {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonHibernation",
    metadata: {
      name,
      namespace: "team-a",
      ...(terminating ? { deletionTimestamp: "2026-11-29T10:00:00Z" } : {}),
    },
    spec: { podRef: { name: podName }, desire },
  };
}

const setReview = (object: unknown, operation = "CREATE", oldObject?: unknown) =>
  admissionReview({
    kind: COCOONSET_KIND,
    operation,
    namespace: "team-a",
    name: "agents",
    object,
    oldObject,
    username: "alice",
  });
const hibernationReview = (object: unknown) =>
  admissionReview({
    kind: HIBERNATION_KIND,
    namespace: "team-a",
    name: "agents-0",
    object,
    username: "alice",
  });

let apiserver: FakeApiserver;
let webhook: WebhookProcess;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  apiserver.setHibernations("team-a", [
    hibernation("agents-1", "agents-1"),
    hibernation("agents-2", "agents-2", "Wake", true),
    hibernation("legacy-name", "agents-3"),
  ]);
  webhook = await startWebhook({
    env: { KUBECONFIG: apiserver.kubeconfigPath, APISERVER_TIMEOUT: `${APISERVER_TIMEOUT_MS}ms` },
  });
});
afterAll(async () => {
  await webhook.stop();
  await apiserver.stop();
});

async function decide(path: string, body: ReturnType<typeof admissionReview>) {
  const answer = await readReview(await webhook.post(`${path}?timeout=5s`, body));
  expect(answer.response.uid).toBe(body.request.uid);
  return answer.response;
}

describe("/validate-cocoonset over HTTPS", () => {
  test("allows a valid set and reports every violation of an invalid one with its path", async () => {
    expect((await decide("/validate-cocoonset", setReview(validSet))).allowed).toBeTrue();
    const denial = await decide("/validate-cocoonset", setReview(invalidSet));
    expect(denial.allowed).toBeFalse();
    const message = denial.status?.message ?? "";
    expect(message).toStartWith("cocoon-webhook: ");
    for (const path of [
      "spec.agent",
      "spec.toolboxes[0].name",
      "spec.toolboxes[2].name",
      "spec.snapshotPolicy",
    ]) {
      expect(message).toContain(path);
    }
  });

  test("an UPDATE with a semantically unchanged spec passes, even for an old invalid CR", async () => {
    const withMemory = (memory: string) => ({
      ...invalidSpec.agent,
      resources: { limits: { memory } },
    });
    const before = cocoonSet({ ...invalidSpec, agent: withMemory("1Gi") });
    const { snapshotPolicy, toolboxes } = invalidSpec;
    const after = cocoonSet({ snapshotPolicy, toolboxes, agent: withMemory("1024Mi") });
    const labels = { handler: "validate_cocoonset", result: "skipped", reason: "no_change" };
    const samplesBefore = await webhook.metric("cocoon_webhook_admission_total", labels);
    expect(
      (await decide("/validate-cocoonset", setReview(after, "UPDATE", before))).allowed,
    ).toBeTrue();
    expect(await webhook.metric("cocoon_webhook_admission_total", labels)).toBe(samplesBefore + 1);
  });

  test("a 64-character VM name is denied with its length and the limit", async () => {
    const longName = "a".repeat(63 - "vk-team-a--0".length + 1);
    const denial = await decide(
      "/validate-cocoonset",
      setReview(cocoonSet({ agent: { image: "a/b:1", replicas: 0 } }, longName)),
    );
    expect(denial.allowed).toBeFalse();
    expect(denial.status?.message).toContain("64");
    expect(denial.status?.message).toContain("63");
  });
});

describe("/validate-cocoonhibernation over HTTPS", () => {
  test("decides against the live LIST and records exactly the expected samples", async () => {
    const before = await webhook.metrics();
    const cases: [string, unknown, boolean, string, string][] = [
      ["new CR for a free pod", hibernation("agents-0", "agents-0"), true, "allow", ""],
      [
        "a live CR already targets the pod",
        hibernation("agents-3", "agents-3"),
        false,
        "deny",
        "duplicate",
      ],
      [
        "the pod's CR is terminating",
        hibernation("agents-2", "agents-2"),
        false,
        "deny",
        "terminating",
      ],
      [
        "lower-case desire",
        hibernation("agents-0", "agents-0", "hibernate"),
        false,
        "deny",
        "invalid_desire",
      ],
      [
        "name differs from podRef",
        hibernation("other", "agents-0"),
        false,
        "deny",
        "name_mismatch",
      ],
      ["not an object", "nonsense", false, "error", "decode"],
    ];
    for (const [name, object, allowed, , reason] of cases) {
      const answer = await decide("/validate-cocoonhibernation", hibernationReview(object));
      expect({ name, allowed: answer.allowed }).toEqual({ name, allowed });
      if (reason === "duplicate") expect(answer.status?.message).toContain("legacy-name");
      if (reason === "terminating") expect(answer.status?.message).toContain("terminating");
    }
    const after = await webhook.metrics();
    for (const [, , , result, reason] of cases) {
      const labels = { handler: "validate_cocoonhibernation", result, reason };
      const delta =
        sampleValue(after, "cocoon_webhook_admission_total", labels) -
        sampleValue(before, "cocoon_webhook_admission_total", labels);
      expect({ labels, delta }).toEqual({ labels, delta: 1 });
    }
  });

  test.each([
    ["answers 500", { kind: "status", status: 500 } as const],
    ["is slower than APISERVER_TIMEOUT", { kind: "slow", delayMs: 3000 } as const],
  ])("fails closed when the LIST %s", async (_label, failure) => {
    apiserver.failAlways(failure);
    const startedAt = performance.now();
    try {
      const answer = await decide(
        "/validate-cocoonhibernation",
        hibernationReview(hibernation("agents-0", "agents-0")),
      );
      expect(answer.allowed).toBeFalse();
      expect(answer.status?.message).toContain("cannot verify");
      expect(performance.now() - startedAt).toBeLessThan(APISERVER_TIMEOUT_MS + 1000);
    } finally {
      apiserver.clearFailures();
    }
  });
});
