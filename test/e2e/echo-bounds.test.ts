import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { request as httpsRequest } from "node:https";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import {
  admissionReview,
  BINDING_KIND,
  COCOONSET_OWNER,
  HIBERNATION_KIND,
  type ReviewOptions,
  scaleReview,
} from "../support/admission-review";
import { eventually } from "../support/eventually";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { type readReview, startWebhook, type WebhookProcess } from "./harness";

/*
 * Every value a denial or a log line repeats from a request is cut to a fixed
 * length with a marker, so one answer stays under the bound of the CocoonSet
 * denials and one log line under a few KB, however long the request's names.
 */

/** Like the e2e bound on a CocoonSet denial with a million violations. */
const ANSWER_LIMIT = 8192;
const LOG_LINE_LIMIT = 4096;
const HUGE = 6 * 1024 * 1024;
const huge = (letter: string) => letter.repeat(HUGE);
const CUT_MARKER = `…(cut from ${HUGE} characters)`;

let apiserver: FakeApiserver;
let webhook: WebhookProcess;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  webhook = await startWebhook({
    env: { KUBECONFIG: apiserver.kubeconfigPath, MAX_REQUEST_BYTES: String(8 * 1024 * 1024) },
  });
});
afterAll(async () => {
  await webhook.stop();
  await apiserver.stop();
});

const markedPod = (name: string, options: { owned?: boolean; nodeName?: string } = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name,
    namespace: "default",
    annotations: { [VM_NAME_ANNOTATION]: "vk-default-agents-0" },
    ...(options.owned ? { ownerReferences: [COCOONSET_OWNER] } : {}),
  },
  spec: {
    containers: [{ name: "c", image: "busybox" }],
    tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }],
    ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }),
  },
});

const hibernation = (name: string) => ({
  apiVersion: "cocoonset.cocoonstack.io/v1",
  kind: "CocoonHibernation",
  metadata: { name },
  spec: { podRef: { name }, desire: "Hibernate" },
});

const cases: [string, string, () => ReviewOptions][] = [
  [
    "a 6 MiB metadata.name on a marked pod",
    "/mutate",
    () => ({ username: "alice", name: huge("a"), object: markedPod("a") }),
  ],
  [
    "a 6 MiB namespace on a marked pod",
    "/mutate",
    () => ({ username: "alice", namespace: huge("n"), name: "p", object: markedPod("p") }),
  ],
  [
    "a 6 MiB username on a marked, owned pod",
    "/mutate",
    () => ({ username: huge("u"), name: "p", object: markedPod("p", { owned: true }) }),
  ],
  [
    "a 6 MiB spec.nodeName on an unmarked pod",
    "/mutate",
    () => ({
      username: "alice",
      name: "p",
      object: { metadata: { name: "p" }, spec: { nodeName: huge("x"), containers: [] } },
    }),
  ],
  [
    "a 6 MiB node name in a Binding",
    "/mutate",
    () => ({
      username: "alice",
      name: "p",
      kind: BINDING_KIND,
      subResource: "binding",
      object: { apiVersion: "v1", kind: "Binding", target: { kind: "Node", name: huge("x") } },
    }),
  ],
  [
    "a 6 MiB pod name in a Binding",
    "/mutate",
    () => ({
      username: "alice",
      name: huge("p"),
      kind: BINDING_KIND,
      subResource: "binding",
      object: { apiVersion: "v1", kind: "Binding", target: { kind: "Node", name: "vk-1" } },
    }),
  ],
  [
    "a 6 MiB name on a /scale scale-down",
    "/validate",
    () => ({ ...scaleReview(3, 1).request, name: huge("d") }),
  ],
  [
    "a 6 MiB namespace on a CocoonHibernation CREATE",
    "/validate-cocoonhibernation",
    () => ({
      kind: HIBERNATION_KIND,
      namespace: huge("n"),
      name: "agents-0",
      username: "alice",
      object: hibernation("agents-0"),
    }),
  ],
];

describe("values echoed from a request are cut to a fixed length, with a marker", () => {
  test.each(cases)("%s: a bounded denial and a bounded log line", async (_name, path, options) => {
    const review = admissionReview(options());
    const response = await webhook.post(path, review);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text.length).toBeLessThan(ANSWER_LIMIT);
    const answer = JSON.parse(text) as Awaited<ReturnType<typeof readReview>>;
    expect(answer.response.allowed).toBeFalse();
    expect(answer.response.status?.message).toContain(CUT_MARKER);
    const line = await webhook.logLine(review.request.uid);
    expect(line?.length ?? Number.POSITIVE_INFINITY).toBeLessThan(LOG_LINE_LIMIT);
  });
});

/** The answer to a raw HTTPS request and the `request rejected` log line it caused. */
async function rejected(path: string, headers: Record<string, string>, body = "{}") {
  const { hostname, port } = new URL(webhook.admissionUrl);
  const before = webhook.logs().length;
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpsRequest(
      { host: hostname, port, path, method: "POST", ca: webhook.ca.cert, agent: false, headers },
      (response) => {
        let text = "";
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
  const lines = await eventually(
    () =>
      webhook
        .logs()
        .slice(before)
        .filter((line) => line.includes("request rejected")),
    (found) => found.length > 0,
  );
  return { ...answer, lines };
}

describe("4xx answers and their log lines repeat a long path or header cut short", () => {
  test("a 15 000-character path: 404, a small body, one small log line", async () => {
    const { status, body, lines } = await rejected(`/${"p".repeat(15_000)}`, {
      "content-type": "application/json",
    });
    expect(status).toBe(404);
    expect(body.length).toBeLessThan(1024);
    expect(body).toContain("…(cut from 15001 characters)");
    expect(lines).toHaveLength(1);
    expect(lines[0]?.length ?? Number.POSITIVE_INFINITY).toBeLessThan(LOG_LINE_LIMIT);
  });

  test("a 15 000-character Content-Type: 415, a small body, one small log line", async () => {
    const { status, body, lines } = await rejected("/mutate", {
      "content-type": `text/${"t".repeat(14_995)}`,
    });
    expect(status).toBe(415);
    expect(body.length).toBeLessThan(1024);
    expect(body).toContain("…(cut from 15000 characters)");
    expect(lines).toHaveLength(1);
    expect(lines[0]?.length ?? Number.POSITIVE_INFINITY).toBeLessThan(LOG_LINE_LIMIT);
  });
});
