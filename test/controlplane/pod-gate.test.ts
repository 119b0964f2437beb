import { beforeAll, describe, expect, test } from "bun:test";
import { VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import type { CommandResult, ControlPlane } from "./cluster";
import { OPERATOR, ORDINARY_USER, SCHEDULER } from "./install";
import {
  admissionsDuring,
  bindingTo,
  createNamespace,
  createOwnerCocoonSet,
  expectCreated,
  gatedPod,
  type KubeObject,
  kubectlCreate,
  messageOf,
  pod,
  uniqueName,
  vmNode,
} from "./objects";
import { controlPlaneTier } from "./setup";

let cluster: ControlPlane;
let namespace: string;
let owner: KubeObject;
let vmNodeName: string;
let plainNodeName: string;

beforeAll(async () => {
  cluster = controlPlaneTier().cluster;
  namespace = await createNamespace(cluster, "pods");
  owner = await createOwnerCocoonSet(cluster, namespace);
  vmNodeName = uniqueName("vm-node");
  plainNodeName = uniqueName("plain-node");
  await expectCreated(cluster.request("POST", "/api/v1/nodes", { body: vmNode(vmNodeName) }));
  await expectCreated(
    cluster.request("POST", "/api/v1/nodes", {
      body: { apiVersion: "v1", kind: "Node", metadata: { name: plainNodeName } },
    }),
  );
});

const createPod = (body: KubeObject, as = ORDINARY_USER) =>
  cluster.request("POST", `/api/v1/namespaces/${namespace}/pods`, { as, body });

describe("the pod gate through a real apiserver", () => {
  test("kubectl shows an ordinary user's gated pod refused with our message", async () => {
    const name = uniqueName("handmade");
    let result: CommandResult | undefined;
    const counted = await admissionsDuring("mutate", async () => {
      result = await kubectlCreate(cluster, namespace, gatedPod(name));
    });

    expect(result?.exitCode).toBe(1);
    expect(result?.stderr).toContain(
      `Error from server (Forbidden): error when creating "STDIN": admission webhook ` +
        `"pods.cocoon-webhook.cocoonstack.io" denied the request: cocoon-webhook: pod ` +
        `${namespace}/${name} carries a cocoon marker`,
    );
    expect(result?.stderr).toContain("metadata.ownerReferences has no CocoonSet or Sandbox owner");
    expect(counted).toEqual({ "deny/not_owned": 1 });
  });

  test("an owner reference does not make an ordinary user the operator", async () => {
    const answer = await createPod(gatedPod(uniqueName("spoofed"), owner));
    expect(answer.status).toBe(403);
    expect(messageOf(answer)).toContain(
      `cocoon-webhook: user "${ORDINARY_USER.user}" may not create`,
    );
  });

  test("the operator's identity creates a gated pod owned by a CocoonSet", async () => {
    const name = uniqueName("vm");
    const counted = await admissionsDuring("mutate", async () => {
      await expectCreated(createPod(gatedPod(name, owner), OPERATOR));
    });
    expect(counted).toEqual({ "allow/": 1 });
  });

  test("an ordinary pod never reaches the webhook", async () => {
    const counted = await admissionsDuring("mutate", async () => {
      await expectCreated(createPod(pod(uniqueName("plain"))));
    });
    expect(counted).toEqual({});
  });

  test("a pod that newly acquires a marker on UPDATE is checked", async () => {
    const name = uniqueName("late-marker");
    await expectCreated(createPod(pod(name)));
    const answer = await cluster.request("PATCH", `/api/v1/namespaces/${namespace}/pods/${name}`, {
      as: ORDINARY_USER,
      contentType: "application/merge-patch+json",
      body: { metadata: { annotations: { [VM_NAME_ANNOTATION]: "vk-late" } } },
    });
    expect(answer.status).toBe(403);
    expect(messageOf(answer)).toContain("has no CocoonSet or Sandbox owner");
  });

  describe("pods bound by name", () => {
    test("spec.nodeName of a VM node is refused after the webhook reads the Node", async () => {
      const counted = await admissionsDuring("mutate", async () => {
        const answer = await createPod(
          pod(uniqueName("pinned"), { spec: { nodeName: vmNodeName } }),
        );
        expect(answer.status).toBe(403);
        expect(messageOf(answer)).toContain(`sets spec.nodeName to "${vmNodeName}", a VM node`);
      });
      expect(counted).toEqual({ "deny/not_owned": 1 });
    });

    test("spec.nodeName of an ordinary node is allowed", async () => {
      const counted = await admissionsDuring("mutate", async () => {
        await expectCreated(
          createPod(pod(uniqueName("pinned"), { spec: { nodeName: plainNodeName } })),
        );
      });
      expect(counted).toEqual({ "skipped/not_cocoon": 1 });
    });

    test("spec.nodeName of a node that does not exist is allowed on the apiserver's real NotFound", async () => {
      const counted = await admissionsDuring("mutate", async () => {
        await expectCreated(
          createPod(pod(uniqueName("pinned"), { spec: { nodeName: uniqueName("no-such-node") } })),
        );
      });
      expect(counted).toEqual({ "skipped/not_cocoon": 1 });
    });

    const bind = (podName: string, nodeName: string, as: typeof ORDINARY_USER) =>
      cluster.request("POST", `/api/v1/namespaces/${namespace}/pods/${podName}/binding`, {
        as,
        body: bindingTo(podName, nodeName),
      });

    test("a Binding of an unmarked pod to a VM node by a user is refused after reading the pod", async () => {
      const name = uniqueName("unbound");
      await expectCreated(createPod(pod(name)));
      const counted = await admissionsDuring("mutate", async () => {
        const answer = await bind(name, vmNodeName, ORDINARY_USER);
        expect(answer.status).toBe(403);
        expect(messageOf(answer)).toContain(
          `user "${ORDINARY_USER.user}" may not bind pod ${namespace}/${name} to "${vmNodeName}"`,
        );
      });
      expect(counted).toEqual({ "deny/unmarked_binding": 1 });
    });

    test("a Binding of a pod that does not exist is refused on the apiserver's real NotFound", async () => {
      const name = uniqueName("missing");
      const counted = await admissionsDuring("mutate", async () => {
        const answer = await bind(name, vmNodeName, ORDINARY_USER);
        expect(answer.status).toBe(403);
        expect(messageOf(answer)).toContain("the pod does not exist");
      });
      expect(counted).toEqual({ "deny/unmarked_binding": 1 });
    });

    test("the scheduler's Binding never reaches the webhook", async () => {
      const name = uniqueName("scheduled");
      await expectCreated(createPod(gatedPod(name, owner), OPERATOR));
      const counted = await admissionsDuring("mutate", async () => {
        await expectCreated(bind(name, vmNodeName, SCHEDULER));
      });
      expect(counted).toEqual({});
      const bound = await cluster.request("GET", `/api/v1/namespaces/${namespace}/pods/${name}`);
      expect(bound.body.spec.nodeName).toBe(vmNodeName);
    });
  });
});
