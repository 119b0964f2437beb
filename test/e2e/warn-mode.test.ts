import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { COCOON_TOLERATION_KEY } from "../../src/cocoon/markers";
import { admissionReview, cocoonSetReview, scaleReview } from "../support/admission-review";
import { readReview, startWebhook, type WebhookProcess } from "./harness";

/*
 * ENFORCEMENT=mutate=warn,validate-cocoonset=warn through the compiled
 * binary: what those endpoints would refuse is allowed with warnings, what
 * the others refuse is still refused, and every refusal and warning carries
 * audit annotations.
 */

let webhook: WebhookProcess;
beforeAll(async () => {
  webhook = await startWebhook({
    env: { ENFORCEMENT: "mutate=warn, validate-cocoonset=warn", WEBHOOK_LOG_LEVEL: "info" },
  });
});
afterAll(async () => {
  await webhook.stop();
});

const handmadePod = (nodeName?: string) =>
  admissionReview({
    namespace: "team-a",
    name: "handmade",
    username: "alice",
    object: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "handmade", namespace: "team-a" },
      spec: {
        containers: [{ name: "c", image: "agent:1" }],
        ...(nodeName
          ? { nodeName }
          : { tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }] }),
      },
    },
  });

describe("warn mode through the binary", () => {
  test("/readyz, the gauge and the start-up log name the endpoints in warn mode", async () => {
    const readyz = await fetch(`${webhook.opsUrl}/readyz`);
    expect([readyz.status, await readyz.text()]).toEqual([
      200,
      "ready; in warn mode, allowing what they would refuse: mutate, validate-cocoonset",
    ]);
    expect(await webhook.metric("cocoon_webhook_warn_mode", { handler: "mutate" })).toBe(1);
    expect(await webhook.metric("cocoon_webhook_warn_mode", { handler: "validate" })).toBe(0);
    const line = JSON.parse((await webhook.logLine("are in warn mode")) ?? "{}");
    expect(line).toMatchObject({ level: "warn", warnMode: ["mutate", "validate-cocoonset"] });
  });

  test("a pod the gate would deny is allowed with the denial as a warning, counted and logged", async () => {
    const labels = { handler: "mutate", result: "warn", reason: "not_owned" };
    const before = await webhook.metric("cocoon_webhook_admission_total", labels);
    const review = handmadePod();
    const { response } = await readReview(await webhook.post("/mutate", review));
    expect(response.allowed).toBeTrue();
    expect(response.status).toBeUndefined();
    expect(response.warnings).toHaveLength(1);
    expect(response.warnings?.[0]).toStartWith(
      "cocoon-webhook: not_owned: let the owning resource (such as a CocoonSet) create the pod, or remove the cocoon marker. pod team-a/handmade carries a cocoon marker",
    );
    expect([...(response.warnings?.[0] ?? "")].length).toBeLessThanOrEqual(256);
    expect(response.auditAnnotations).toEqual({
      endpoint: "mutate",
      decision: "warn",
      reason: "not_owned",
    });
    expect(await webhook.metric("cocoon_webhook_admission_total", labels)).toBe(before + 1);
    const line = JSON.parse((await webhook.logLine(review.request.uid)) ?? "{}");
    expect(line).toMatchObject({
      level: "warn",
      handler: "mutate",
      result: "warn",
      reason: "not_owned",
      refused: "deny",
      user: "alice",
    });
  });

  test("a check that cannot be made (no Kubernetes API here) is allowed with a warning", async () => {
    const { response } = await readReview(await webhook.post("/mutate", handmadePod("vm-node-1")));
    expect(response.allowed).toBeTrue();
    expect(response.warnings?.[0]).toContain("cannot verify node");
    expect(response.auditAnnotations).toMatchObject({ decision: "warn", reason: "node_fetch" });
  });

  test("a CocoonSet with many violations gets ten warnings and one that counts the rest", async () => {
    const toolboxes = Array.from({ length: 14 }, (_, index) => ({ name: `tool-${index}` }));
    const review = cocoonSetReview({ agent: { image: "agent:1" }, toolboxes });
    const { response } = await readReview(await webhook.post("/validate-cocoonset", review));
    expect(response.allowed).toBeTrue();
    expect(response.warnings).toHaveLength(11);
    expect(response.warnings?.[0]).toBe(
      'cocoon-webhook: toolbox.image-required: set an image on every run or clone toolbox. spec.toolboxes[0].image: is required for mode "run"; set the VM image, or use mode "static" for an external VM',
    );
    expect(response.warnings?.at(-1)).toStartWith("cocoon-webhook: … and 4 more;");
    expect(response.auditAnnotations).toEqual({
      endpoint: "validate-cocoonset",
      decision: "warn",
      reason: "invalid_spec",
      rules: "toolbox.image-required",
    });
  });

  test("an endpoint left in deny still refuses, with audit annotations", async () => {
    const { response } = await readReview(await webhook.post("/validate", scaleReview(3, 1)));
    expect(response.allowed).toBeFalse();
    expect(response.warnings).toBeUndefined();
    expect(response.auditAnnotations).toEqual({
      endpoint: "validate",
      decision: "error",
      reason: "parent_fetch",
    });
  });
});
