import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { COCOON_TOLERATION_KEY } from "../../src/cocoon/markers";
import { admissionReview, COCOONSET_OWNER } from "../support/admission-review";
import { readReview, startWebhook, type WebhookProcess } from "./harness";

/*
 * Values from a request may hold control characters; the apiserver drops a
 * warning that holds one, so the user would see nothing. Answers write each
 * as its escape, in denials, warnings and audit annotations alike.
 */

/** C0 and C1 controls, DEL and the line and paragraph separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const USER = 'mallory\nWarning: 299 - "all good"\r\u0007\u0085\u2028';

const ownedGatedPodBy = (username: string) =>
  admissionReview({
    namespace: "team-a",
    name: "agents-0",
    username,
    object: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "agents-0", namespace: "team-a", ownerReferences: [COCOONSET_OWNER] },
      spec: {
        containers: [{ name: "c", image: "agent:1" }],
        tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }],
      },
    },
  });

let denying: WebhookProcess;
let warning: WebhookProcess;
beforeAll(async () => {
  [denying, warning] = await Promise.all([
    startWebhook(),
    startWebhook({ env: { ENFORCEMENT: "mutate=warn" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([denying.stop(), warning.stop()]);
});

describe("no control characters in answers", () => {
  test("a denial naming a user with control characters writes them as escapes", async () => {
    const { response } = await readReview(await denying.post("/mutate", ownedGatedPodBy(USER)));
    expect(response.allowed).toBeFalse();
    const message = response.status?.message ?? "";
    expect(message).not.toMatch(CONTROL);
    expect(message).toContain('mallory\\nWarning: 299 - "all good"\\r\\u0007\\u0085\\u2028');
    for (const value of Object.values(response.auditAnnotations ?? {}))
      expect(value).not.toMatch(CONTROL);
  });

  test("a warning naming such a user carries the escapes, so the apiserver passes it on", async () => {
    const { response } = await readReview(await warning.post("/mutate", ownedGatedPodBy(USER)));
    expect(response.allowed).toBeTrue();
    expect(response.warnings?.length).toBeGreaterThan(0);
    for (const text of response.warnings ?? []) expect(text).not.toMatch(CONTROL);
    expect(response.warnings?.join(" ")).toContain("mallory\\nWarning");
    for (const value of Object.values(response.auditAnnotations ?? {}))
      expect(value).not.toMatch(CONTROL);
  });
});
