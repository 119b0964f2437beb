import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { makeUmbrellaChart, UMBRELLA } from "../support/umbrella-chart";
import type { ControlPlane } from "./cluster";
import { HELM_VERSIONS, helmOrThrow, localValues } from "./helm";
import { ORDINARY_USER, WEBHOOK_NAMESPACE } from "./install";
import { createNamespace, gatedPod, messageOf, uniqueName } from "./objects";
import { controlPlaneTier } from "./setup";

/*
 * The chart installed as a subchart of an umbrella chart, under Helm 4 and
 * Helm 3: the parent's `global` values are accepted, the release's objects
 * are installed, and the pod gate answers through the registrations the
 * subchart made. The subchart keeps the manifests' object names
 * (fullnameOverride), so the tier's webhook process runs as its
 * ServiceAccount, and calls the webhook at its local URL.
 */

let cluster: ControlPlane;
let umbrella: string;
let namespace: string;

beforeAll(async () => {
  cluster = controlPlaneTier().cluster;
  umbrella = makeUmbrellaChart({ fullnameOverride: "cocoon-webhook" });
  namespace = await createNamespace(cluster, "umbrella");
  await controlPlaneTier().webhook.removeManifests();
}, 120_000);

afterAll(async () => {
  rmSync(umbrella, { recursive: true, force: true });
  await controlPlaneTier().webhook.applyManifests();
}, 120_000);

describe.each(HELM_VERSIONS)("an umbrella chart installed with $name", (helm) => {
  test("installs the subchart with the parent's global values; the pod gate answers through it", async () => {
    const subchartValues = localValues().map((flag) =>
      flag.replace("--set=", `--set=${UMBRELLA.subchart}.`),
    );
    const scope = `--namespace=${WEBHOOK_NAMESPACE}`;
    await helmOrThrow(helm, ["install", UMBRELLA.name, umbrella, scope, ...subchartValues]);
    try {
      await controlPlaneTier().webhook.reconnect();
      const manifest = await helmOrThrow(helm, ["get", "manifest", UMBRELLA.name, scope]);
      expect(manifest).toContain("kind: MutatingWebhookConfiguration");
      expect(manifest).toContain(`app.kubernetes.io/instance: ${UMBRELLA.name}`);
      const handmade = await cluster.request("POST", `/api/v1/namespaces/${namespace}/pods`, {
        as: ORDINARY_USER,
        body: gatedPod(uniqueName("handmade")),
      });
      expect(handmade.status).toBe(403);
      expect(messageOf(handmade)).toContain("has no CocoonSet or Sandbox owner");
    } finally {
      await helmOrThrow(helm, ["uninstall", UMBRELLA.name, scope, "--wait"]);
    }
  }, 180_000);
});
