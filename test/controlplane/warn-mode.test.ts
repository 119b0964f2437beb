import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AuditEvent, CommandResult, ControlPlane } from "./cluster";
import { ORDINARY_USER } from "./install";
import {
  admissionsDuring,
  cocoonSet,
  createNamespace,
  gatedPod,
  kubectlCreate,
  messageOf,
  uniqueName,
} from "./objects";
import { controlPlaneTier } from "./setup";

/*
 * Warnings and audit annotations as a real apiserver passes them on: kubectl
 * prints our warnings, and the audit log carries our annotations under the
 * webhook's name, for a denial (the tier's usual deny mode) and for a warning
 * (the webhook restarted with ENFORCEMENT, then put back).
 */

let cluster: ControlPlane;
let namespace: string;

beforeAll(async () => {
  cluster = controlPlaneTier().cluster;
  namespace = await createNamespace(cluster, "warn");
});

/** The audit event of the create of `name` in `namespace`, with its annotations. */
function auditedCreate(resource: string, name: string): AuditEvent | undefined {
  return cluster
    .auditEvents()
    .find(
      (event) =>
        event.verb === "create" &&
        event.objectRef?.resource === resource &&
        event.objectRef.namespace === namespace &&
        event.objectRef.name === name,
    );
}

test("a denial's audit event carries our annotations under the webhook's name", async () => {
  const name = uniqueName("handmade");
  const answer = await cluster.request("POST", `/api/v1/namespaces/${namespace}/pods`, {
    as: ORDINARY_USER,
    body: gatedPod(name),
  });
  expect(answer.status).toBe(403);
  const event = auditedCreate("pods", name);
  expect(event?.responseStatus?.code).toBe(403);
  expect(event?.annotations).toMatchObject({
    "pods.cocoon-webhook.cocoonstack.io/endpoint": "mutate",
    "pods.cocoon-webhook.cocoonstack.io/decision": "deny",
    "pods.cocoon-webhook.cocoonstack.io/reason": "not_owned",
  });
});

describe("in warn mode", () => {
  beforeAll(async () => {
    const { webhook } = controlPlaneTier();
    await webhook.stop();
    await webhook.restart({ ENFORCEMENT: "mutate=warn,validate-cocoonset=warn" });
  }, 60_000);
  afterAll(async () => {
    const { webhook } = controlPlaneTier();
    await webhook.stop();
    await webhook.restart();
  }, 60_000);

  test("kubectl creates a hand-made gated pod and prints our warning; the audit log says warn", async () => {
    const name = uniqueName("handmade");
    let result: CommandResult | undefined;
    const counted = await admissionsDuring("mutate", async () => {
      result = await kubectlCreate(cluster, namespace, gatedPod(name));
    });
    expect(result?.exitCode).toBe(0);
    expect(result?.stdout).toContain(`pod/${name} created`);
    expect(result?.stderr).toStartWith(
      `Warning: cocoon-webhook: not_owned: let the owning resource (such as a CocoonSet) create the pod, or remove the cocoon marker. pod ${namespace}/${name} carries a cocoon marker`,
    );
    expect(counted).toEqual({ "warn/not_owned": 1 });
    expect(auditedCreate("pods", name)?.annotations).toMatchObject({
      "pods.cocoon-webhook.cocoonstack.io/decision": "warn",
      "pods.cocoon-webhook.cocoonstack.io/reason": "not_owned",
    });
  });

  test("every violation of a CocoonSet is a Warning header, and the rule ids are audited", async () => {
    const name = uniqueName("broken");
    const answer = await cluster.request(
      "POST",
      `/apis/cocoonset.cocoonstack.io/v1/namespaces/${namespace}/cocoonsets`,
      {
        as: ORDINARY_USER,
        body: cocoonSet(name, {
          agent: { image: "agent:1", mode: "run", backend: "firecracker", os: "windows" },
          toolboxes: [{ name: "tools", image: "t:1", backend: "firecracker", mode: "run" }],
        }),
      },
    );
    expect(answer.status).toBe(201);
    expect(answer.warnings).toEqual([
      'cocoon-webhook: firecracker.no-windows: use backend cloud-hypervisor for Windows guests. spec.agent.os: firecracker cannot boot Windows guests; use backend "cloud-hypervisor" for os "windows"',
    ]);
    expect(auditedCreate("cocoonsets", name)?.annotations).toMatchObject({
      "cocoonsets.cocoon-webhook.cocoonstack.io/decision": "warn",
      "cocoonsets.cocoon-webhook.cocoonstack.io/reason": "invalid_spec",
      "cocoonsets.cocoon-webhook.cocoonstack.io/rules": "firecracker.no-windows",
    });
  });

  test("an endpoint left in deny still refuses", async () => {
    const answer = await cluster.request(
      "POST",
      `/apis/cocoonset.cocoonstack.io/v1/namespaces/${namespace}/cocoonhibernations`,
      {
        as: ORDINARY_USER,
        body: {
          apiVersion: "cocoonset.cocoonstack.io/v1",
          kind: "CocoonHibernation",
          metadata: { name: uniqueName("one") },
          spec: { desire: "Hibernate", podRef: { name: uniqueName("other") } },
        },
      },
    );
    expect(answer.status).toBe(403);
    expect(messageOf(answer)).toContain("cocoon-webhook: ");
  });
});
