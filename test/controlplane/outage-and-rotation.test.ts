import { beforeAll, describe, expect, test } from "bun:test";
import { eventually } from "../support/eventually";
import { serialOf, servedSerial } from "../support/secret-volume";
import type { ApiAnswer, ControlPlane } from "./cluster";
import { OPERATOR, ORDINARY_USER } from "./install";
import {
  COCOON_API,
  cocoonSet,
  createNamespace,
  createOwnerCocoonSet,
  expectCreated,
  gatedPod,
  type KubeObject,
  messageOf,
  pod,
  uniqueName,
  workload,
} from "./objects";
import { controlPlaneTier } from "./setup";

let cluster: ControlPlane;
let namespace: string;
let owner: KubeObject;

beforeAll(async () => {
  cluster = controlPlaneTier().cluster;
  namespace = await createNamespace(cluster, "outage");
  owner = await createOwnerCocoonSet(cluster, namespace);
});

const createPod = (body: KubeObject, as = OPERATOR) =>
  cluster.request("POST", `/api/v1/namespaces/${namespace}/pods`, { as, body });

const setReplicas = (name: string, replicas: number) =>
  cluster.request("PATCH", `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`, {
    as: ORDINARY_USER,
    contentType: "application/merge-patch+json",
    body: { spec: { replicas } },
  });

describe("blast radius: the webhook is down", () => {
  test("gated pods and cocoon scale-downs fail closed; ordinary pods and scale-ups go on", async () => {
    const deployment = uniqueName("agents");
    await expectCreated(
      cluster.request("POST", `/apis/apps/v1/namespaces/${namespace}/deployments`, {
        as: ORDINARY_USER,
        body: workload("Deployment", deployment, 3, { cocoon: true }),
      }),
    );
    const { webhook } = controlPlaneTier();
    await webhook.stop();
    try {
      const gated = await createPod(gatedPod(uniqueName("vm"), owner));
      expect(gated.status).toBe(500);
      expect(messageOf(gated)).toContain(
        'failed calling webhook "pods.cocoon-webhook.cocoonstack.io"',
      );

      const scaleDown = await setReplicas(deployment, 2);
      expect(scaleDown.status).toBe(500);
      expect(messageOf(scaleDown)).toContain(
        'failed calling webhook "workloads.cocoon-webhook.cocoonstack.io"',
      );

      await expectCreated(createPod(pod(uniqueName("plain")), ORDINARY_USER));
      await expectCreated(setReplicas(deployment, 4));
    } finally {
      await webhook.restart();
    }
    await expectCreated(createPod(gatedPod(uniqueName("vm"), owner)));
  });
});

describe("the operator's metadata writes survive an outage", () => {
  test("with the webhook stopped, a spec-unchanged CocoonSet patch and a finalizer removal succeed; a spec change fails", async () => {
    const name = uniqueName("set");
    const path = `${COCOON_API}/namespaces/${namespace}/cocoonsets/${name}`;
    await expectCreated(
      cluster.request("POST", `${COCOON_API}/namespaces/${namespace}/cocoonsets`, {
        as: OPERATOR,
        body: {
          ...cocoonSet(name, { agent: { image: "agent:1" } }),
          metadata: { name, finalizers: ["cocoonset.cocoonstack.io/finalizer"] },
        },
      }),
    );
    const mergePatch = (body: unknown) =>
      cluster.request("PATCH", path, {
        as: OPERATOR,
        contentType: "application/merge-patch+json",
        body,
      });
    const { webhook } = controlPlaneTier();
    await webhook.stop();
    try {
      await expectCreated(
        mergePatch({
          metadata: { annotations: { "cocoonset.cocoonstack.io/delete-vm-names": "a" } },
        }),
      );
      await expectCreated(mergePatch({ metadata: { finalizers: null } }));
      const specChange = await mergePatch({ spec: { agent: { replicas: 2 } } });
      expect(specChange.status).toBe(500);
      expect(messageOf(specChange)).toContain(
        'failed calling webhook "cocoonsets.cocoon-webhook.cocoonstack.io"',
      );
    } finally {
      await webhook.restart();
    }
  });
});

describe("certificate rotation under admission traffic from the apiserver", () => {
  const ROTATIONS = 5;
  const ROTATION_SPACING_MS = 800;
  const CLIENTS = 4;

  /** Each call goes through the apiserver to the webhook; anything but the webhook's verdict is a failure. */
  const admissions: readonly (() => Promise<{ answer: ApiAnswer; expected: number }>)[] = [
    async () => ({ answer: await createPod(gatedPod(uniqueName("vm"), owner)), expected: 201 }),
    async () => ({
      answer: await cluster.request(
        "POST",
        `${COCOON_API}/namespaces/${namespace}/cocoonsets?dryRun=All`,
        {
          as: ORDINARY_USER,
          body: cocoonSet(uniqueName("broken"), {
            agent: { image: "a:1", backend: "firecracker", os: "windows", mode: "run" },
          }),
        },
      ),
      expected: 403,
    }),
  ];

  test("no API request fails while the serving certificate is rotated", async () => {
    const { secretVolume, webhookCa, webhook } = controlPlaneTier();
    const failures: string[] = [];
    let sent = 0;
    let rotating = true;
    const client = async (offset: number) => {
      for (let call = offset; rotating && sent < 2000; call++) {
        sent++;
        const admission = admissions[call % admissions.length];
        if (!admission) continue;
        const { answer, expected } = await admission();
        if (answer.status !== expected) failures.push(`${answer.status}: ${messageOf(answer)}`);
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, index) => client(index));

    const issued = Array.from({ length: ROTATIONS }, (_, index) =>
      webhookCa.issue(`rotated-${index}`),
    );
    for (const pair of issued) {
      secretVolume.publish(pair);
      await Bun.sleep(ROTATION_SPACING_MS); // deliberate: the rotation cadence under test
    }
    const latest = serialOf(issued.at(-1) ?? { cert: "" });
    const url = webhook.process().admissionUrl;
    const served = await eventually(
      () => servedSerial(url, webhookCa.cert),
      (serial) => serial === latest,
      10_000,
    );
    rotating = false;
    await Promise.all(clients);

    expect(served).toBe(latest);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(ROTATIONS * CLIENTS);
  });
});
