import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  FINALIZER_UPDATES,
  finalizerUpdateObjects,
  IDENTITIES,
  type KubeJson,
  OPERATOR_SAMPLE_SET,
  operatorPods,
  RUNTIME_ANNOTATION_PATCHES,
  SANDBOX_NAME,
  SANDBOX_NAMESPACE,
  sandboxSandboxdPod,
  sandboxVkCocoonPod,
  withAnnotations,
} from "../platform/shapes";
import { admissionReview, COCOONSET_KIND, COCOONSET_RESOURCE } from "../support/admission-review";
import { readReview, startWebhook, type WebhookProcess } from "./harness";

/*
 * The platform's real shapes (test/platform/shapes.ts) through the compiled
 * binary with its default configuration: no POD_CREATORS set, so the
 * default pairing decides.
 */

const NAMESPACE = "team-a";
const ALICE = "alice";
const VK_COCOON = "system:node:vk-cocoon-node-1";

let webhook: WebhookProcess;
beforeAll(async () => {
  webhook = await startWebhook();
});
afterAll(async () => {
  await webhook.stop();
});

async function decide(path: string, review: ReturnType<typeof admissionReview>) {
  const answer = await readReview(await webhook.post(`${path}?timeout=5s`, review));
  expect(answer.response.uid).toBe(review.request.uid);
  const message = answer.response.allowed ? "" : (answer.response.status?.message ?? "");
  return { allowed: answer.response.allowed, message };
}

const podReview = (object: KubeJson, username: string, oldObject?: KubeJson) =>
  admissionReview({
    username,
    namespace: object.metadata.namespace,
    name: object.metadata.name,
    operation: oldObject === undefined ? "CREATE" : "UPDATE",
    object,
    ...(oldObject === undefined ? {} : { oldObject }),
  });

const pods = operatorPods(NAMESPACE, "uid-set", "vk-cocoon-node-1");
const sandboxPods = {
  "vk-cocoon": sandboxVkCocoonPod({ namespace: SANDBOX_NAMESPACE, name: SANDBOX_NAME, uid: "sb" }),
  sandboxd: sandboxSandboxdPod({ namespace: SANDBOX_NAMESPACE, name: SANDBOX_NAME, uid: "sb" }),
};

describe("the platform's pods through the binary", () => {
  test.each(Object.entries(pods))(
    "cocoon-operator's %s pod: allowed for it alone",
    async (_name, pod) => {
      expect(await decide("/mutate", podReview(pod, IDENTITIES.operator))).toEqual({
        allowed: true,
        message: "",
      });
      for (const username of [ALICE, IDENTITIES.sandboxOperator]) {
        const verdict = await decide("/mutate", podReview(pod, username));
        expect(verdict.allowed).toBe(false);
        expect(verdict.message).toContain(`user "${username}" may not create`);
      }
    },
  );

  test.each(Object.entries(sandboxPods))(
    "sandbox-operator's %s pod in the Sandbox's namespace: allowed for it alone",
    async (_runtime, pod) => {
      expect((await decide("/mutate", podReview(pod, IDENTITIES.sandboxOperator))).allowed).toBe(
        true,
      );
      const byUser = await decide("/mutate", podReview(pod, ALICE));
      expect(byUser.allowed).toBe(false);
      expect(byUser.message).toContain(`user "${ALICE}" may not create`);
      expect(byUser.message).toContain(IDENTITIES.sandboxOperator);
      const byCocoonOperator = await decide("/mutate", podReview(pod, IDENTITIES.operator));
      expect(byCocoonOperator.allowed).toBe(false);
      expect(byCocoonOperator.message).toContain("agents.x-k8s.io/Sandbox");
    },
  );

  test.each(Object.entries(RUNTIME_ANNOTATION_PATCHES))(
    "runtime patch %s passes untouched from the platform, not from a user",
    async (_name, annotations) => {
      // A live pod: the scheduler has bound it to vk-cocoon's node.
      const live = { ...pods.main, spec: { ...pods.main.spec, nodeName: "vk-cocoon-node-1" } };
      const patched = withAnnotations(live, annotations);
      for (const username of [IDENTITIES.operator, VK_COCOON]) {
        expect((await decide("/mutate", podReview(patched, username, live))).allowed).toBe(true);
      }
      const byUser = await decide("/mutate", podReview(patched, "alice", live));
      const changesVm = Object.keys(annotations).some((key) => key.startsWith("vm."));
      expect(byUser.allowed).toBe(!changesVm);
    },
  );
});

describe("the platform's CocoonSets through the binary", () => {
  const setReview = (objects: { object: KubeJson; oldObject?: KubeJson }, username: string) =>
    admissionReview({
      kind: COCOONSET_KIND,
      resource: COCOONSET_RESOURCE,
      operation: objects.oldObject === undefined ? "CREATE" : "UPDATE",
      namespace: objects.object.metadata.namespace,
      name: objects.object.metadata.name,
      username,
      ...objects,
    });

  test("the real sample is valid", async () => {
    const object = {
      ...OPERATOR_SAMPLE_SET,
      metadata: { name: "demo-cocoonset", namespace: "default" },
    };
    expect((await decide("/validate-cocoonset", setReview({ object }, ALICE))).allowed).toBe(true);
  });

  test.each(FINALIZER_UPDATES.map((update) => [update.name, update] as const))(
    "the operator's finalizer update of %s is allowed though the set breaks the name budget",
    async (_name, update) => {
      const objects = finalizerUpdateObjects(update, NAMESPACE);
      const created = await decide(
        "/validate-cocoonset",
        setReview({ object: objects.object }, ALICE),
      );
      expect(created.allowed).toBe(false);
      expect(created.message).toContain("63");
      expect(
        (await decide("/validate-cocoonset", setReview(objects, IDENTITIES.operator))).allowed,
      ).toBe(true);
      const hidden = { ...objects.object, spec: { ...objects.object.spec, suspend: true } };
      const changed = await decide(
        "/validate-cocoonset",
        setReview({ oldObject: objects.oldObject, object: hidden }, ALICE),
      );
      expect(changed.allowed).toBe(false);
    },
  );
});
