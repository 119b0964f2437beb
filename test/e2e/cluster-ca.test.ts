import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COCOON_TOLERATION_KEY } from "../../src/cocoon/markers";
import { podOnNodeReview } from "../support/admission-review";
import { eventually } from "../support/eventually";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { startTcpSwitch, type TcpSwitch } from "../support/tcp-switch";
import { readReview, startWebhook, type WebhookProcess } from "./harness";

/*
 * The cluster CA file follows the rule of every other file: when it turns
 * empty or garbled, the last good CA stays in use. "No CA" would let fetch
 * fall back to the system's default trust store, and an apiserver impostor
 * with a certificate from that store could then decide a verdict. The
 * impostor here is trusted by the webhook's default store through
 * NODE_EXTRA_CA_CERTS, and sits at the real apiserver's address behind a
 * TCP relay the test switches.
 */

const VM_NODE = "vk-cocoon-1";

const node = (vm: boolean) => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: VM_NODE },
  spec: vm ? { taints: [{ key: COCOON_TOLERATION_KEY, effect: "NoSchedule" }] } : {},
});

let real: FakeApiserver;
let impostor: FakeApiserver;
let relay: TcpSwitch;
let webhook: WebhookProcess;
let dir: string;
let caFile: string;

beforeAll(async () => {
  real = await startFakeApiserver();
  impostor = await startFakeApiserver({ token: real.token });
  real.setNode(VM_NODE, node(true));
  // The impostor says the VM node is an ordinary one, which would let the pod through.
  impostor.setNode(VM_NODE, node(false));
  relay = startTcpSwitch(real.port);
  dir = mkdtempSync(join(tmpdir(), "cluster-ca-"));
  caFile = join(dir, "ca.crt");
  copyFileSync(real.ca.certFile, caFile);
  webhook = await startWebhook({
    env: {
      KUBECONFIG: real.writeKubeconfig({ caFile, server: `https://127.0.0.1:${relay.port}` }),
      NODE_EXTRA_CA_CERTS: impostor.ca.certFile,
    },
  });
});
afterAll(async () => {
  await webhook?.stop();
  relay?.stop();
  await real?.stop();
  await impostor?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function verdictOnPodOnVmNode() {
  // A hand-made pod straight onto the VM node: denied when the real apiserver answers.
  const answer = await readReview(await webhook.post("/mutate", podOnNodeReview(VM_NODE)));
  return { allowed: answer.response.allowed, message: answer.response.status?.message ?? "" };
}

describe("a cluster CA file that turns unusable", () => {
  test.each([
    ["emptied", ""],
    [
      "garbled",
      "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n",
    ],
  ])(
    "%s: the last good CA stays in use, the impostor is refused, the real apiserver still trusted",
    async (_name, content) => {
      relay.pointAt(real.port);
      copyFileSync(real.ca.certFile, caFile);
      expect((await verdictOnPodOnVmNode()).message).toContain("no CocoonSet or Sandbox owner");
      const failuresBefore = await webhook.metric(
        "cocoon_webhook_apiserver_file_reload_failures_total",
        { file: "cluster_ca" },
      );
      const warningsBefore = webhook.logs().filter((line) => line.includes(caFile)).length;

      writeFileSync(caFile, content);
      // The webhook looks at the file again on a call at least a second after the last look.
      const warnings = await eventually(
        async () => {
          await verdictOnPodOnVmNode();
          return webhook.logs().filter((line) => line.includes(caFile)).length;
        },
        (count) => count > warningsBefore,
        3000,
      );

      relay.pointAt(impostor.port);
      const underImpostor = await verdictOnPodOnVmNode();
      expect(underImpostor.allowed).toBeFalse();
      expect(underImpostor.message).toContain(`cannot verify node "${VM_NODE}"`);
      expect(underImpostor.message).toContain("TLS: unable to verify the certificate");
      expect(impostor.requests).toHaveLength(0);

      relay.pointAt(real.port);
      const underReal = await verdictOnPodOnVmNode();
      expect(underReal.allowed).toBeFalse();
      expect(underReal.message).toContain("no CocoonSet or Sandbox owner");

      expect(warnings).toBe(warningsBefore + 1);
      expect(
        await webhook.metric("cocoon_webhook_apiserver_file_reload_failures_total", {
          file: "cluster_ca",
        }),
      ).toBe(failuresBefore + 1);
    },
    15_000,
  );
});

describe("a cluster CA file that is unusable at start", () => {
  test.each([
    ["empty", ""],
    ["not PEM", "just some text\n"],
  ])("%s: the process exits 1 naming the file", async (_name, content) => {
    const badCa = join(dir, `bad-${crypto.randomUUID()}.crt`);
    writeFileSync(badCa, content);
    const started = startWebhook({
      env: { KUBECONFIG: real.writeKubeconfig({ caFile: badCa }) },
    });
    const failure = await started.then(
      async (process) => {
        await process.stop("SIGKILL");
        return "started";
      },
      (error: Error) => error.message,
    );
    expect(failure).toContain("exited with 1");
    expect(failure).toContain(`cannot read the cluster CA ${badCa}`);
  });
});
