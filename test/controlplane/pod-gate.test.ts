import { beforeAll, describe, expect, test } from "bun:test";
import { GARBAGE_COLLECTOR_USERNAMES, VK_COCOON_USERNAME } from "../../src/cocoon/identities";
import { VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import { RUNTIME_ANNOTATION_PATCHES } from "../platform/shapes";
import type { CommandResult, ControlPlane } from "./cluster";
import { OPERATOR, ORDINARY_USER, SCHEDULER, USER_GROUP } from "./install";
import {
  admissionsDuring,
  bindingTo,
  COCOON_TOLERATION,
  createNamespace,
  createOwnerCocoonSet,
  expectCreated,
  gatedPod,
  type KubeObject,
  kubectlCreate,
  messageOf,
  ownerReferenceTo,
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

describe("who changes a VM pod, through a real apiserver", () => {
  const VK_COCOON = { user: VK_COCOON_USERNAME, groups: [USER_GROUP] };
  const GARBAGE_COLLECTOR = { user: GARBAGE_COLLECTOR_USERNAMES[0], groups: [USER_GROUP] };
  const podPath = (name: string, subresource = "") =>
    `/api/v1/namespaces/${namespace}/pods/${name}${subresource}`;
  const patch = (
    name: string,
    body: unknown,
    as: typeof ORDINARY_USER,
    subresource = "",
    contentType = "application/merge-patch+json",
  ) => cluster.request("PATCH", podPath(name, subresource), { as, contentType, body });
  const stored = async (name: string) => (await cluster.request("GET", podPath(name))).body;

  /** A pod the operator made, bound to `nodeName`. */
  async function operatorPod(nodeName?: string): Promise<string> {
    const name = uniqueName("vm");
    const body = gatedPod(name, owner);
    if (nodeName !== undefined) body.spec.nodeName = nodeName;
    await expectCreated(createPod(body, OPERATOR));
    return name;
  }

  test("the five-step chain is refused where the pod would become a VM pod (pods/status)", async () => {
    const name = uniqueName("chain");
    await expectCreated(
      createPod(pod(name, { spec: { schedulingGates: [{ name: "example.com/hold" }] } })),
    );
    const counted = await admissionsDuring("mutate", async () => {
      const viaStatus = await patch(
        name,
        { metadata: { annotations: { [VM_NAME_ANNOTATION]: "vk-stolen" } } },
        ORDINARY_USER,
        "/status",
      );
      expect(viaStatus.status).toBe(403);
      expect(messageOf(viaStatus)).toContain("has no CocoonSet or Sandbox owner");
      // Step 3 of the chain, the toleration: the pod is still no VM pod, so it is checked as new.
      const toleration = await patch(
        name,
        [{ op: "add", path: "/spec/tolerations/-", value: COCOON_TOLERATION }],
        ORDINARY_USER,
        "",
        "application/json-patch+json",
      );
      expect(toleration.status).toBe(403);
    });
    expect(counted).toEqual({ "deny/not_owned": 2 });
    expect((await stored(name)).metadata.annotations?.[VM_NAME_ANNOTATION]).toBeUndefined();
  });

  test("a Binding whose annotations would make a pod a VM pod is refused", async () => {
    const name = uniqueName("bound");
    await expectCreated(createPod(pod(name)));
    const binding = bindingTo(name, plainNodeName);
    binding.metadata.annotations = { [VM_NAME_ANNOTATION]: "vk-by-binding" };
    const counted = await admissionsDuring("mutate", async () => {
      const answer = await cluster.request("POST", podPath(name, "/binding"), {
        as: ORDINARY_USER,
        body: binding,
      });
      expect(answer.status).toBe(403);
      expect(messageOf(answer)).toContain("which the apiserver copies onto the pod");
    });
    expect(counted).toEqual({ "deny/not_owned": 1 });
    expect((await stored(name)).spec.nodeName).toBeUndefined();
  });

  test.each<[string, unknown, string]>([
    [
      "retargets the VM name",
      { metadata: { annotations: { [VM_NAME_ANNOTATION]: "vk-someone-else" } } },
      `metadata.annotations["${VM_NAME_ANNOTATION}"]`,
    ],
    [
      "sets the hibernate annotation",
      { metadata: { annotations: { "vm.cocoonstack.io/hibernate": "true" } } },
      'metadata.annotations["vm.cocoonstack.io/hibernate"]',
    ],
    ["drops the owner", { metadata: { ownerReferences: null } }, "metadata.ownerReferences"],
  ])(
    "an ordinary user who %s is refused, told who may and what to use instead",
    async (_case, body, field) => {
      const name = await operatorPod();
      const counted = await admissionsDuring("mutate", async () => {
        const answer = await patch(name, body, ORDINARY_USER);
        expect(answer.status).toBe(403);
        const message = messageOf(answer);
        expect(message).toContain(`user "${ORDINARY_USER.user}" may not change ${field}`);
        expect(message).toContain(OPERATOR.user);
        expect(message).toContain("create a CocoonHibernation");
        expect(message).toContain("change its CocoonSet");
      });
      expect(counted).toEqual({ "deny/gate_field": 1 });
    },
  );

  test("a status write by an ordinary user cannot change a VM pod's annotations either", async () => {
    const name = await operatorPod();
    const answer = await patch(
      name,
      { metadata: { annotations: { "vm.cocoonstack.io/ip": "10.0.0.66" } } },
      ORDINARY_USER,
      "/status",
    );
    expect(answer.status).toBe(403);
    expect(messageOf(answer)).toContain('metadata.annotations["vm.cocoonstack.io/ip"]');
  });

  test("the platform's own patches and status writes never reach the webhook; an unrelated label passes", async () => {
    const boundNode = uniqueName("cocoon-pool");
    const name = await operatorPod(boundNode);
    const node = { user: `system:node:${boundNode}`, groups: [USER_GROUP] };
    const counted = await admissionsDuring("mutate", async () => {
      for (const [who, as] of [
        ["operator: hibernate", OPERATOR],
        ["operator: generation stamp", OPERATOR],
        ["vk-cocoon: VM id and IP", VK_COCOON],
      ] as const) {
        const annotations = RUNTIME_ANNOTATION_PATCHES[who];
        await expectCreated(patch(name, { metadata: { annotations } }, as));
      }
      const lifecycle = RUNTIME_ANNOTATION_PATCHES["vk-cocoon: lifecycle"];
      await expectCreated(patch(name, { metadata: { annotations: lifecycle } }, node, "/status"));
      await expectCreated(
        patch(name, { metadata: { labels: { team: "research" } } }, ORDINARY_USER),
      );
      // The garbage collector orphans the pod: it removes the owner reference.
      await expectCreated(patch(name, { metadata: { ownerReferences: null } }, GARBAGE_COLLECTOR));
    });
    expect(counted).toEqual({});
    const after = await stored(name);
    expect(after.metadata.ownerReferences).toBeUndefined();
    expect(after.metadata.annotations["vm.cocoonstack.io/lifecycle-state"]).toBe("hibernated");
  });

  test("pods/ephemeralcontainers and pods/resize cannot change a pod's gate fields (so they are not registered)", async () => {
    const name = await operatorPod();
    const before = await stored(name);
    const sneaky = {
      metadata: {
        annotations: { [VM_NAME_ANNOTATION]: "vk-sneaky" },
        ownerReferences: null,
      },
      spec: {
        tolerations: [COCOON_TOLERATION, { key: COCOON_TOLERATION.key, effect: "NoExecute" }],
      },
    };
    for (const subresource of ["/ephemeralcontainers", "/resize"]) {
      await patch(
        name,
        sneaky,
        ORDINARY_USER,
        subresource,
        "application/strategic-merge-patch+json",
      );
      const after = await stored(name);
      expect(after.metadata.annotations, subresource).toEqual(before.metadata.annotations);
      expect(after.metadata.ownerReferences, subresource).toEqual(before.metadata.ownerReferences);
      expect(after.spec.tolerations, subresource).toEqual(before.spec.tolerations);
    }
  });
});

describe("a user with only pod patch and pods/status rights, through a real apiserver", () => {
  const PATCHERS = "cocoon-test:patchers";
  const MALLORY = { user: "mallory", groups: [PATCHERS] };
  const patchAs = (name: string, body: unknown, contentType: string, subresource = "") =>
    cluster.request("PATCH", `/api/v1/namespaces/${namespace}/pods/${name}${subresource}`, {
      as: MALLORY,
      contentType,
      body,
    });
  const MERGE = "application/merge-patch+json";
  const JSON_PATCH = "application/json-patch+json";
  const STRATEGIC = "application/strategic-merge-patch+json";

  beforeAll(async () => {
    const role = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "cocoon-test-patchers" },
      rules: [{ apiGroups: [""], resources: ["pods", "pods/status"], verbs: ["get", "patch"] }],
    };
    const binding = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "cocoon-test-patchers" },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: role.metadata.name,
      },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: PATCHERS }],
    };
    const applied = await cluster.kubectl(["apply", "--server-side", "-f", "-"], {
      stdin: [role, binding].map((object) => JSON.stringify(object)).join("\n"),
    });
    expect(applied.exitCode).toBe(0);
  });

  test("every path that would make a plain pod a VM pod is refused", async () => {
    const name = uniqueName("plain");
    await expectCreated(createPod(pod(name)));
    const counted = await admissionsDuring("mutate", async () => {
      for (const [path, send] of [
        [
          "pods/status adding the VM name",
          () =>
            patchAs(
              name,
              { metadata: { annotations: { [VM_NAME_ANNOTATION]: "vk-x" } } },
              MERGE,
              "/status",
            ),
        ],
        [
          "a merge patch adding the VM name",
          () =>
            patchAs(name, { metadata: { annotations: { [VM_NAME_ANNOTATION]: "vk-x" } } }, MERGE),
        ],
        [
          "a JSON patch adding the cocoon toleration",
          () =>
            patchAs(
              name,
              [{ op: "add", path: "/spec/tolerations/-", value: COCOON_TOLERATION }],
              JSON_PATCH,
            ),
        ],
        [
          "a strategic merge patch adding the toleration and a CocoonSet owner",
          () =>
            patchAs(
              name,
              {
                metadata: { ownerReferences: [ownerReferenceTo(owner)] },
                spec: { tolerations: [COCOON_TOLERATION] },
              },
              STRATEGIC,
            ),
        ],
      ] as const) {
        expect((await send()).status, path).toBe(403);
      }
    });
    expect(counted).toEqual({ "deny/not_owned": 3, "deny/creator": 1 });
    const stored = (await cluster.request("GET", `/api/v1/namespaces/${namespace}/pods/${name}`))
      .body;
    expect(stored.metadata.annotations?.[VM_NAME_ANNOTATION]).toBeUndefined();
    expect(stored.metadata.ownerReferences).toBeUndefined();
  });

  test("every path that would change an operator's VM pod is refused; a label passes", async () => {
    const name = uniqueName("vm");
    await expectCreated(createPod(gatedPod(name, owner), OPERATOR));
    const counted = await admissionsDuring("mutate", async () => {
      for (const [path, send] of [
        [
          "retargeting the VM name",
          () =>
            patchAs(
              name,
              { metadata: { annotations: { [VM_NAME_ANNOTATION]: "vk-other" } } },
              MERGE,
            ),
        ],
        [
          "retargeting it through pods/status",
          () =>
            patchAs(
              name,
              { metadata: { annotations: { [VM_NAME_ANNOTATION]: "vk-other" } } },
              MERGE,
              "/status",
            ),
        ],
        [
          "hibernating it by annotation",
          () =>
            patchAs(
              name,
              { metadata: { annotations: { "vm.cocoonstack.io/hibernate": "true" } } },
              MERGE,
            ),
        ],
        [
          "dropping its owner",
          () => patchAs(name, [{ op: "remove", path: "/metadata/ownerReferences" }], JSON_PATCH),
        ],
        [
          "adding a second cocoon toleration",
          () =>
            patchAs(
              name,
              [
                {
                  op: "add",
                  path: "/spec/tolerations/-",
                  value: { ...COCOON_TOLERATION, effect: "NoExecute" },
                },
              ],
              JSON_PATCH,
            ),
        ],
      ] as const) {
        const refused = await send();
        expect(refused.status, path).toBe(403);
        expect(messageOf(refused), path).toContain(`user "${MALLORY.user}" may not change`);
      }
      await expectCreated(patchAs(name, { metadata: { labels: { team: "research" } } }, MERGE));
    });
    expect(counted).toEqual({ "deny/gate_field": 5 });
  });

  test("creating a pod or a Binding is RBAC's refusal, before the webhook", async () => {
    const name = uniqueName("plain");
    await expectCreated(createPod(pod(name)));
    const counted = await admissionsDuring("mutate", async () => {
      const created = await createPod(gatedPod(uniqueName("vm"), owner), MALLORY);
      expect(created.status).toBe(403);
      const bound = await cluster.request(
        "POST",
        `/api/v1/namespaces/${namespace}/pods/${name}/binding`,
        {
          as: MALLORY,
          body: bindingTo(name, vmNodeName),
        },
      );
      expect(bound.status).toBe(403);
    });
    expect(counted).toEqual({});
  });
});
