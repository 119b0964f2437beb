import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { admissionReview, HIBERNATION_KIND } from "../support/admission-review";
import { readError, readReview, sampleValue, startWebhook, type WebhookProcess } from "./harness";

const MAX_REQUEST_BYTES = 64 * 1024;
let webhook: WebhookProcess;

beforeAll(async () => {
  webhook = await startWebhook({ env: { MAX_REQUEST_BYTES: String(MAX_REQUEST_BYTES) } });
});
afterAll(async () => {
  await webhook.stop();
});

const notGatedPod = {
  metadata: { name: "plain" },
  spec: { containers: [{ name: "app", image: "nginx" }] },
};

describe("AdmissionReview envelope over HTTPS", () => {
  test("echoes request.uid and answers in v1, ignoring the apiserver's ?timeout query", async () => {
    const sent = admissionReview({ object: notGatedPod });
    const response = await webhook.post("/mutate?timeout=5s", sent);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect(await readReview(response)).toEqual({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: sent.request.uid, allowed: true },
    });
  });

  test("answers a v1beta1 review in v1beta1", async () => {
    const sent = admissionReview({ apiVersion: "admission.k8s.io/v1beta1", object: notGatedPod });
    const body = await readReview(await webhook.post("/mutate", sent));
    expect(body.apiVersion).toBe("admission.k8s.io/v1beta1");
    expect(body.response.uid).toBe(sent.request.uid);
  });

  test.each([
    ["not JSON", "{not json", "not valid JSON"],
    ["kind is not AdmissionReview", { ...admissionReview(), kind: "Pod" }, "kind"],
    [
      "unknown apiVersion",
      { ...admissionReview(), apiVersion: "admission.k8s.io/v2" },
      "apiVersion",
    ],
    ["no request", { ...admissionReview(), request: undefined }, "request"],
    [
      "request without uid",
      { ...admissionReview(), request: { operation: "CREATE" } },
      "request.uid",
    ],
    [
      "empty uid",
      { ...admissionReview(), request: { ...admissionReview().request, uid: "" } },
      "request.uid",
    ],
    ["a JSON array", [], "(body)"],
  ])("400 with a JSON error for %s", async (_label, body, named) => {
    const response = await webhook.post("/validate", body);
    expect(response.status).toBe(400);
    expect(JSON.stringify(await readError(response))).toContain(named);
  });

  test("415 for a Content-Type other than application/json", async () => {
    const response = await webhook.post("/mutate", admissionReview(), {
      "content-type": "text/plain",
    });
    expect(response.status).toBe(415);
    expect((await readError(response)).error).toContain("application/json");
  });

  test("accepts application/json with a charset parameter", async () => {
    const response = await webhook.post("/mutate", admissionReview({ object: notGatedPod }), {
      "content-type": "application/json; charset=utf-8",
    });
    expect(response.status).toBe(200);
  });

  test("413 for a body over MAX_REQUEST_BYTES, and the server keeps serving", async () => {
    const huge = JSON.stringify(
      admissionReview({ object: { padding: "x".repeat(MAX_REQUEST_BYTES) } }),
    );
    expect((await webhook.post("/mutate", huge)).status).toBe(413);
    expect((await webhook.post("/mutate", admissionReview({ object: notGatedPod }))).status).toBe(
      200,
    );
  });

  test("404 with a JSON body for an unknown path", async () => {
    const response = await webhook.post("/nope", admissionReview());
    expect(response.status).toBe(404);
    expect((await readError(response)).error).toContain("/nope");
  });

  test("405 with a JSON body and Allow header for a wrong method", async () => {
    const response = await fetch(`${webhook.admissionUrl}/validate-cocoonset`, {
      tls: { ca: webhook.ca.cert },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect((await readError(response)).error).toContain("GET");
  });

  test("records exactly one admission sample per review that reaches a handler, none for envelope errors", async () => {
    const labels = {
      handler: "validate_cocoonhibernation",
      result: "skipped",
      reason: "operation",
    };
    const before = await webhook.metric("cocoon_webhook_admission_total", labels);
    const hibernationDelete = admissionReview({
      operation: "DELETE",
      kind: HIBERNATION_KIND,
    });
    await webhook.post("/validate-cocoonhibernation", hibernationDelete);
    await webhook.post("/validate-cocoonhibernation", "{broken");
    await webhook.post("/validate-cocoonhibernation", admissionReview(), {
      "content-type": "text/plain",
    });
    const after = await webhook.metrics();
    expect(sampleValue(after, "cocoon_webhook_admission_total", labels)).toBe(before + 1);
    expect(
      sampleValue(after, "cocoon_webhook_admission_duration_seconds_count", {
        handler: "validate_cocoonhibernation",
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  test("refuses plaintext HTTP on the admission port", async () => {
    const plain = webhook.admissionUrl.replace("https://", "http://");
    const outcome = await fetch(`${plain}/healthz`).then(
      (response) => response.status,
      () => "refused",
    );
    expect(outcome).not.toBe(200);
  });
});
