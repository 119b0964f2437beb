import { afterAll, beforeAll } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createTestCa } from "../support/certs";
import { freePort } from "../support/free-port";
import { SecretVolume } from "../support/secret-volume";
import { type ControlPlane, type ControlPlaneBinaries, startControlPlane } from "./cluster";
import { type InstalledWebhook, installWebhook } from "./install";

/*
 * Loaded with `bun test --preload`: one control plane and one installed
 * webhook for the whole tier, started before the first test file and
 * stopped after the last, whatever the tests did.
 */

export interface Tier {
  readonly cluster: ControlPlane;
  readonly webhook: InstalledWebhook;
  /** The webhook's serving certificate files, rewritten by the rotation test. */
  readonly secretVolume: SecretVolume;
  /** Issues serving pairs the installed caBundle trusts. */
  readonly webhookCa: ReturnType<typeof createTestCa>;
  /** The kubectl the tier runs, for shell scripts (the docs' runbooks) to find on PATH. */
  readonly kubectl: string;
}

let tier: Tier | undefined;

/** The running tier; only valid inside tests. */
export function controlPlaneTier(): Tier {
  if (!tier)
    throw new Error("the control-plane tier is not running: run it with `make controlplane`");
  return tier;
}

/** kube-apiserver, etcd and kubectl: KUBEBUILDER_ASSETS, or the cached build of test/controlplane. */
function resolveBinaries(): ControlPlaneBinaries {
  const script = join(import.meta.dir, "../../scripts/controlplane.sh");
  const built = Bun.spawnSync([script], { stdout: "pipe", stderr: "inherit" });
  if (built.exitCode !== 0) {
    throw new Error(`${script} exited with ${built.exitCode}: no kube-apiserver and etcd to run`);
  }
  const dir = built.stdout.toString().trim();
  const kubectl = join(dir, "kubectl");
  return {
    kubeApiserver: join(dir, "kube-apiserver"),
    etcd: join(dir, "etcd"),
    kubectl: existsSync(kubectl) ? kubectl : "kubectl",
  };
}

beforeAll(async () => {
  const binaries = resolveBinaries();
  const cluster = await startControlPlane(binaries);
  try {
    const webhookCa = createTestCa("webhook-ca");
    const serving = webhookCa.issue("serving-0");
    const secretVolume = new SecretVolume(serving);
    const webhook = await installWebhook(cluster, {
      ca: webhookCa,
      serving: secretVolume.servingOf(serving),
      ports: { admission: freePort(), ops: freePort() },
    });
    tier = { cluster, webhook, secretVolume, webhookCa, kubectl: binaries.kubectl };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}, 180_000);

afterAll(async () => {
  if (!tier) return;
  await tier.webhook.stop();
  await tier.cluster.stop();
  tier.secretVolume.remove();
}, 30_000);
