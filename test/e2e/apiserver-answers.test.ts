import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  admissionReview,
  cocoonSetReview,
  HIBERNATION_KIND,
  scaleObject,
  scaleReview,
  workloadObject,
} from "../support/admission-review";
import {
  type FakeApiserver,
  type FakeFailure,
  startDecoyServer,
  startFakeApiserver,
} from "../support/fake-apiserver";
import { readReview, startWebhook, type WebhookProcess } from "./harness";

/**
 * The binary against hostile or broken apiserver answers: only a direct 2xx
 * carrying the object asked for, or a direct 404, may decide; everything
 * else fails closed.
 */

const APISERVER_TIMEOUT_MS = 800;
const LIST_PATH = "/apis/cocoonset.cocoonstack.io/v1/namespaces/team-a/cocoonhibernations";

let apiserver: FakeApiserver;
let webhook: WebhookProcess;
let decoy404: ReturnType<typeof startDecoyServer>;
let decoyEmpty: ReturnType<typeof startDecoyServer>;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  apiserver.setWorkload("deployments", "team-a", "agents", workloadObject(3, true));
  decoy404 = startDecoyServer(404, { kind: "Status", apiVersion: "v1", code: 404 });
  decoyEmpty = startDecoyServer(200, {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonHibernationList",
    metadata: {},
    items: [],
  });
  webhook = await startWebhook({
    env: { KUBECONFIG: apiserver.kubeconfigPath, APISERVER_TIMEOUT: `${APISERVER_TIMEOUT_MS}ms` },
  });
});
afterAll(async () => {
  await webhook.stop();
  await apiserver.stop();
  await decoy404.stop();
  await decoyEmpty.stop();
});

async function admissionDelta(
  labels: Record<string, string>,
  action: () => Promise<void>,
): Promise<number> {
  const before = await webhook.metric("cocoon_webhook_admission_total", labels);
  await action();
  return (await webhook.metric("cocoon_webhook_admission_total", labels)) - before;
}

function hibernation(name: string, podName: string) {
  return {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonHibernation",
    metadata: { name, namespace: "team-a" },
    spec: { podRef: { name: podName }, desire: "Hibernate" },
  };
}

/** A 200 whose body is a CocoonHibernation list page of `items`, the last. */
const hibernationListAnswer = (items: unknown[]): FakeFailure => ({
  kind: "answer",
  body: {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonHibernationList",
    metadata: {},
    items,
  },
});

const hibernationCreate = (podName = "agents-0") =>
  admissionReview({
    kind: HIBERNATION_KIND,
    namespace: "team-a",
    name: podName,
    object: hibernation(podName, podName),
    username: "alice",
  });

const otherDeployment = {
  ...workloadObject(3, false, "other"),
};

describe("a scale-down of a cocoon Deployment is refused when the parent answer is not trustworthy", () => {
  const hostile: [string, () => FakeFailure][] = [
    [
      "301 to a path that answers 404",
      () => ({
        kind: "redirect",
        status: 301,
        location: "/apis/apps/v1/namespaces/team-a/deployments/missing",
      }),
    ],
    [
      "302 to a plain-HTTP server answering 404",
      () => ({ kind: "redirect", status: 302, location: `${decoy404.url}/x` }),
    ],
    [
      "307 to a plain-HTTP server answering {}",
      () => ({ kind: "redirect", status: 307, location: `${decoyEmpty.url}/x` }),
    ],
    [
      "404 that names no object (a proxy's, or a path the apiserver does not serve)",
      () => ({ kind: "status", status: 404, message: "404 page not found" }),
    ],
    ["200 with {}", () => ({ kind: "answer", body: {} })],
    [
      "200 with a Status body",
      () => ({
        kind: "answer",
        body: { apiVersion: "v1", kind: "Status", status: "Success", code: 200 },
      }),
    ],
    [
      "200 with a ConfigMap",
      () => ({
        kind: "answer",
        body: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "agents", namespace: "team-a" },
        },
      }),
    ],
    ["200 with another Deployment", () => ({ kind: "answer", body: otherDeployment })],
    [
      "200 with tolerations written as an object",
      () => ({
        kind: "answer",
        body: {
          ...workloadObject(3, false),
          spec: { template: { spec: { tolerations: { key: "virtual-kubelet.io/provider" } } } },
        },
      }),
    ],
    ["an oversized body", () => ({ kind: "oversized", bytes: 64 * 1024 * 1024 })],
  ];

  test.each(hostile)("%s → error / parent_fetch", async (_name, failure) => {
    apiserver.failNext(failure());
    const labels = { handler: "validate", result: "error", reason: "parent_fetch" };
    const delta = await admissionDelta(labels, async () => {
      const answer = await readReview(
        await webhook.post("/validate?timeout=5s", scaleReview(3, 0)),
      );
      expect(answer.response.allowed).toBeFalse();
      expect(answer.response.status?.message).toContain(
        "cannot verify parent workload Deployment team-a/agents",
      );
    });
    expect(delta).toBe(1);
    expect(decoy404.hits() + decoyEmpty.hits()).toBe(0);
  });

  test("a direct 404 naming the parent is still no parent", async () => {
    const labels = { handler: "validate", result: "skipped", reason: "no_parent" };
    const delta = await admissionDelta(labels, async () => {
      const answer = await readReview(
        await webhook.post("/validate", scaleReview(3, 0, { name: "missing" })),
      );
      expect(answer.response.allowed).toBeTrue();
    });
    expect(delta).toBe(1);
  });

  test.each([
    [".", "team-a"],
    ["..", "team-a"],
    ["%2e", "team-a"],
    ["agents", ".."],
  ])("name %p in namespace %p is refused before any apiserver call", async (name, namespace) => {
    const body = scaleReview(3, 0, { name });
    body.request.namespace = namespace;
    body.request.object = { ...scaleObject(0, name) };
    const sent = apiserver.requests.length;
    const answer = await readReview(await webhook.post("/validate", body));
    expect(answer.response.allowed).toBeFalse();
    expect(answer.response.status?.message).toContain("so the apiserver was not asked");
    expect(apiserver.requests.length).toBe(sent);
  });
});

describe("a CocoonHibernation CREATE is refused when the LIST is not trustworthy", () => {
  const hostile: [string, () => FakeFailure][] = [
    [
      "307 to an empty namespace",
      () => ({
        kind: "redirect",
        status: 307,
        location: "/apis/cocoonset.cocoonstack.io/v1/namespaces/empty/cocoonhibernations",
      }),
    ],
    [
      "302 to a plain-HTTP empty list",
      () => ({ kind: "redirect", status: 302, location: `${decoyEmpty.url}/x` }),
    ],
    ["200 with {}", () => ({ kind: "answer", body: {} })],
    [
      "200 with a Status body",
      () => ({ kind: "answer", body: { apiVersion: "v1", kind: "Status", status: "Success" } }),
    ],
    [
      "200 with another list kind",
      () => ({ kind: "answer", body: { apiVersion: "v1", kind: "PodList", items: [] } }),
    ],
    ["an oversized page", () => ({ kind: "oversized", bytes: 64 * 1024 * 1024 })],
    [
      "a page of more items than asked for",
      () =>
        hibernationListAnswer(
          Array.from({ length: 501 }, (_, index) => hibernation(`h${index}`, `p${index}`)),
        ),
    ],
  ];

  test.each(hostile)("%s → error / list", async (_name, failure) => {
    apiserver.setHibernations("team-a", [hibernation("old", "agents-0")]);
    apiserver.failNext(failure());
    const labels = { handler: "validate_cocoonhibernation", result: "error", reason: "list" };
    const delta = await admissionDelta(labels, async () => {
      const answer = await readReview(
        await webhook.post("/validate-cocoonhibernation", hibernationCreate()),
      );
      expect(answer.response.allowed).toBeFalse();
      expect(answer.response.status?.message).toContain("cannot verify that pod");
    });
    expect(delta).toBe(1);
    expect(decoy404.hits() + decoyEmpty.hits()).toBe(0);
  });

  test("a page of more items than the limit asked for is refused before its items are kept, and logged", async () => {
    apiserver.failNext(hibernationListAnswer(Array.from({ length: 116_505 }, () => ({}))));
    const answer = await readReview(
      await webhook.post("/validate-cocoonhibernation", hibernationCreate()),
    );
    expect(answer.response.allowed).toBeFalse();
    expect(answer.response.status?.message).toContain(
      "a page of 116505 items where at most 500 were asked for",
    );
    const line = await webhook.logLine("items where at most 500 were asked for");
    expect(line && JSON.parse(line)).toMatchObject({ level: "error", reason: "list" });
  });

  test("a duplicate on the third page of a paginated LIST is found", async () => {
    apiserver.setHibernations("team-a", [
      hibernation("a", "agents-5"),
      hibernation("b", "agents-6"),
      hibernation("c", "agents-7"),
      hibernation("d", "agents-8"),
      hibernation("legacy", "agents-0"),
    ]);
    apiserver.setListPageSize(2);
    try {
      const sent = apiserver.requests.length;
      const answer = await readReview(
        await webhook.post("/validate-cocoonhibernation", hibernationCreate()),
      );
      expect(answer.response.allowed).toBeFalse();
      expect(answer.response.status?.message).toContain('already has CocoonHibernation "legacy"');
      expect(apiserver.requests.slice(sent).map((request) => request.path)).toEqual([
        `${LIST_PATH}?limit=500`,
        `${LIST_PATH}?limit=500&continue=offset-2`,
        `${LIST_PATH}?limit=500&continue=offset-4`,
      ]);
    } finally {
      apiserver.setListPageSize(undefined);
    }
  });

  test("a LIST that does not finish within APISERVER_TIMEOUT → error / list", async () => {
    apiserver.setHibernations(
      "team-a",
      [{}, {}, {}, {}, {}].map((_, index) => hibernation(`h${index}`, `p${index}`)),
    );
    apiserver.setListPageSize(1);
    apiserver.failAlways({ kind: "slow", delayMs: 250 });
    try {
      const answer = await readReview(
        await webhook.post("/validate-cocoonhibernation", hibernationCreate()),
      );
      expect(answer.response.allowed).toBeFalse();
      expect(answer.response.status?.message).toContain(
        `timed out after ${APISERVER_TIMEOUT_MS}ms`,
      );
    } finally {
      apiserver.clearFailures();
      apiserver.setListPageSize(undefined);
    }
  });
});

describe("bounded answers", () => {
  test("a CocoonSet with 150 000 empty toolboxes is denied with a small answer and a small log line", async () => {
    const toolboxes = Array.from({ length: 150_000 }, () => ({}));
    const body = cocoonSetReview({ agent: { image: "cocoon/agent:1" }, toolboxes }, "huge");
    const response = await webhook.post("/validate-cocoonset", body);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text.length).toBeLessThan(8192);
    const answer = JSON.parse(text) as Awaited<ReturnType<typeof readReview>>;
    expect(answer.response.allowed).toBeFalse();
    expect(answer.response.status?.message).toEndWith(
      "… and 299980 more (toolbox.name-required: 149990, toolbox.image-required: 149990)",
    );
    const line = webhook.logs().find((each) => each.includes("… and 299980 more"));
    expect(line?.length ?? Number.POSITIVE_INFINITY).toBeLessThan(8192);
  });
});
