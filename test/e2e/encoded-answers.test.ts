import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { admissionReview, HIBERNATION_KIND, podOnNodeReview } from "../support/admission-review";
import { BROTLI_BOMB_DECODED_BYTES, brotliBomb, gzipBomb } from "../support/compression-bombs";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { cpuQuiet, MIB, peakRssBytes } from "../support/procfs";
import { readReview, startWebhook, type WebhookProcess } from "./harness";

/*
 * apiserver answers are bounded by their bytes on the wire. Bun's fetch asks
 * for gzip, deflate, br and zstd by default and decodes before the body cap
 * sees a byte, so a small compressed answer could cost its decoded size in
 * memory. The webhook asks for identity, reads the raw bytes and refuses any
 * encoded answer.
 */

/** Far below what decoding one bomb would cost (its decoded size), far above noise. */
const PEAK_GROWTH_LIMIT = 64 * MIB;

let apiserver: FakeApiserver;
let webhook: WebhookProcess;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  webhook = await startWebhook({
    env: { KUBECONFIG: apiserver.kubeconfigPath, APISERVER_TIMEOUT: "2s" },
  });
});
afterAll(async () => {
  await webhook.stop();
  await apiserver.stop();
});

const podOnNode = () => podOnNodeReview("vk-cocoon-1");

const hibernationCreate = () =>
  admissionReview({
    kind: HIBERNATION_KIND,
    namespace: "team-a",
    name: "agents-0",
    username: "alice",
    object: {
      apiVersion: "cocoonset.cocoonstack.io/v1",
      kind: "CocoonHibernation",
      metadata: { name: "agents-0", namespace: "team-a" },
      spec: { podRef: { name: "agents-0" }, desire: "Hibernate" },
    },
  });

describe("a compressed apiserver answer", () => {
  test.each([
    ["br", BROTLI_BOMB_DECODED_BYTES, "/mutate", podOnNode, "cannot verify node"],
    ["gzip", 64 * MIB, "/validate-cocoonhibernation", hibernationCreate, "cannot verify that pod"],
  ] as const)(
    "%s of %d decoded bytes is refused unread, fail-closed, and costs no memory",
    async (encoding, decodedBytes, path, review, refusal) => {
      const body = encoding === "br" ? brotliBomb() : await gzipBomb(decodedBytes);
      apiserver.failNext({ kind: "encoded", encoding, body });
      const peakBefore = peakRssBytes(webhook.process.pid);
      const sent = apiserver.requests.length;

      const answer = await readReview(await webhook.post(path, review()));

      expect(answer.response.allowed).toBeFalse();
      // A client that decodes goes on decoding in the background after it gave up (Bun 1.4's
      // fetch, told to stop reading, decoded 0.9 GiB in 1.5 s): the peak is read once the
      // webhook has gone quiet, so such work has shown in it.
      expect(await cpuQuiet(webhook.process.pid)).toBeTrue();
      expect(peakRssBytes(webhook.process.pid) - peakBefore).toBeLessThan(PEAK_GROWTH_LIMIT);
      expect(answer.response.status?.message).toContain(refusal);
      expect(answer.response.status?.message).toContain(
        `with Content-Encoding "${encoding}" although identity was asked for`,
      );
      expect(apiserver.requests.slice(sent).map((request) => request.acceptEncoding)).toEqual([
        "identity",
      ]);
    },
  );
});

describe("a LIST page is trusted only when its items are CocoonHibernations", () => {
  test.each([
    ["a ConfigMap", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "agents-0" } }],
    [
      "an item of another group",
      { apiVersion: "example.com/v1", kind: "CocoonHibernation", metadata: { name: "x" } },
    ],
    ["an item without apiVersion and kind", { metadata: { name: "x" } }],
  ])("%s among the items → error / list", async (_name, item) => {
    apiserver.failNext({
      kind: "answer",
      body: {
        apiVersion: "cocoonset.cocoonstack.io/v1",
        kind: "CocoonHibernationList",
        metadata: {},
        items: [item],
      },
    });
    const answer = await readReview(
      await webhook.post("/validate-cocoonhibernation", hibernationCreate()),
    );
    expect(answer.response.allowed).toBeFalse();
    expect(answer.response.status?.message).toContain("cannot verify that pod");
    expect(answer.response.status?.message).toContain("items[0]");
  });
});
