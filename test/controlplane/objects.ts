import { stringify as toYaml } from "yaml";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import { eventually } from "../support/eventually";
import type { ApiAnswer, ControlPlane } from "./cluster";
import { OPERATOR, ORDINARY_USER } from "./install";
import { controlPlaneTier } from "./setup";

/** Objects the scenarios create, and the REST paths they live at. */

// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects as JSON
export type KubeObject = Record<string, any>;

export const COCOON_API = "/apis/cocoonset.cocoonstack.io/v1";
export const COCOON_TOLERATION = { key: COCOON_TOLERATION_KEY, operator: "Exists" };

/** A name no other test uses. */
export const uniqueName = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** A fresh namespace outside the webhooks' exclusions, created by the admin. */
export async function createNamespace(cluster: ControlPlane, prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  await expectCreated(
    cluster.request("POST", "/api/v1/namespaces", {
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
    }),
  );
  return name;
}

/** A CocoonSet the operator's identity stores in `namespace`, to own its pods. */
export function createOwnerCocoonSet(
  cluster: ControlPlane,
  namespace: string,
): Promise<KubeObject> {
  return expectCreated(
    cluster.request("POST", `${COCOON_API}/namespaces/${namespace}/cocoonsets`, {
      as: OPERATOR,
      body: cocoonSet(uniqueName("agents")),
    }),
  );
}

export async function expectCreated(answer: Promise<ApiAnswer>): Promise<KubeObject> {
  const { status, body } = await answer;
  if (status !== 201 && status !== 200) {
    throw new Error(`expected the object to be stored, got ${status}: ${JSON.stringify(body)}`);
  }
  return body;
}

export function pod(
  name: string,
  extra: { spec?: KubeObject; metadata?: KubeObject } = {},
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, ...extra.metadata },
    spec: { containers: [{ name: "main", image: "registry.example/agent:1" }], ...extra.spec },
  };
}

/** A pod that enters the cocoon gate by both markers. */
export function gatedPod(name: string, owner?: KubeObject): KubeObject {
  return pod(name, {
    metadata: {
      annotations: { [VM_NAME_ANNOTATION]: `vk-${name}` },
      ...(owner ? { ownerReferences: [ownerReferenceTo(owner)] } : {}),
    },
    spec: { tolerations: [COCOON_TOLERATION] },
  });
}

export function ownerReferenceTo(object: KubeObject): KubeObject {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name,
    uid: object.metadata.uid,
    controller: true,
  };
}

export function cocoonSet(name: string, spec: KubeObject = {}): KubeObject {
  return {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonSet",
    metadata: { name },
    spec: { agent: { image: "agent:1", replicas: 1 }, ...spec },
  };
}

export function hibernation(podName: string, desire = "Hibernate"): KubeObject {
  return {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonHibernation",
    metadata: { name: podName },
    spec: { desire, podRef: { name: podName } },
  };
}

/** A Binding that places pod `podName` on node `nodeName` (POST to the pod's `binding`). */
export function bindingTo(podName: string, nodeName: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Binding",
    metadata: { name: podName },
    target: { apiVersion: "v1", kind: "Node", name: nodeName },
  };
}

/** A Node tainted like the ones vk-cocoon registers. */
export function vmNode(name: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name },
    spec: { taints: [{ key: COCOON_TOLERATION_KEY, value: "cocoon", effect: "NoSchedule" }] },
  };
}

export function workload(
  kind: "Deployment" | "StatefulSet",
  name: string,
  replicas: number,
  options: { cocoon: boolean },
): KubeObject {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind,
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      ...(kind === "StatefulSet" ? { serviceName: name } : {}),
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: "main", image: "registry.example/agent:1" }],
          ...(options.cocoon ? { tolerations: [COCOON_TOLERATION] } : {}),
        },
      },
    },
  };
}

/** `kubectl create -f -` of `object` in `namespace` by an ordinary user, as a person would type it. */
export const kubectlCreate = (cluster: ControlPlane, namespace: string, object: KubeObject) =>
  cluster.kubectl(["create", "-n", namespace, "-f", "-"], {
    as: ORDINARY_USER,
    stdin: toYaml(object),
  });

/** The Status message of a refused request, as `kubectl` prints it after "Error from server". */
export const messageOf = (answer: ApiAnswer): string => String(answer.body?.message ?? "");

/**
 * How often each (result, reason) of `handler` was counted while `action`
 * ran, from the webhook's own /metrics: `{}` when the apiserver never called it.
 */
export async function admissionsDuring(
  handler: string,
  action: () => Promise<unknown>,
): Promise<Record<string, number>> {
  const before = await admissionSamples(handler);
  await action();
  const after = await admissionSamples(handler);
  const deltas: Record<string, number> = {};
  for (const [key, value] of after) {
    const delta = value - (before.get(key) ?? 0);
    if (delta !== 0) deltas[key] = delta;
  }
  return deltas;
}

async function admissionSamples(handler: string): Promise<Map<string, number>> {
  const text = await controlPlaneTier().webhook.process().metrics();
  const samples = new Map<string, number>();
  const pattern = /^cocoon_webhook_admission_total\{([^}]*)\} (\S+)$/gm;
  for (const [, labels = "", value] of text.matchAll(pattern)) {
    const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels)?.[1] ?? "";
    if (label("handler") !== handler) continue;
    samples.set(`${label("result")}/${label("reason")}`, Number(value));
  }
  return samples;
}

/**
 * Stores `object` at `collection` (a CocoonSets path) as if it had been
 * created before the webhook knew the rule it breaks: the CocoonSet webhook
 * is turned away from the namespace (a namespaceSelector, the one change to
 * its registration) just long enough. `refusedSpec` is a spec the webhook
 * refuses, to see the change take effect and be undone.
 */
export async function storedBeforeTheRule(
  cluster: ControlPlane,
  collection: string,
  object: KubeObject,
  refusedSpec: KubeObject,
): Promise<void> {
  const ns = /\/namespaces\/([^/]+)\//.exec(collection)?.[1] ?? "";
  const configuration =
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/cocoon-webhook";
  const { body } = await cluster.request("GET", configuration);
  const index = body.webhooks.findIndex((webhook: KubeObject) =>
    webhook.name.startsWith("cocoonsets."),
  );
  const patch = (operations: KubeObject[]) =>
    expectCreated(
      cluster.request("PATCH", configuration, {
        contentType: "application/json-patch+json",
        body: operations,
      }),
    );
  const probe = () =>
    cluster.request("POST", `${collection}?dryRun=All`, {
      as: ORDINARY_USER,
      body: cocoonSet(uniqueName("probe"), refusedSpec),
    });
  await patch([
    {
      op: "add",
      path: `/webhooks/${index}/namespaceSelector`,
      value: {
        matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: [ns] }],
      },
    },
  ]);
  try {
    if ((await eventually(probe, (answer) => answer.status === 201, 30_000)).status !== 201) {
      throw new Error("the CocoonSet webhook was not turned away from the namespace in 30 s");
    }
    await expectCreated(cluster.request("POST", collection, { as: ORDINARY_USER, body: object }));
  } finally {
    await patch([{ op: "remove", path: `/webhooks/${index}/namespaceSelector` }]);
  }
  if ((await eventually(probe, (answer) => answer.status === 403, 30_000)).status !== 403) {
    throw new Error("the CocoonSet webhook did not come back to the namespace in 30 s");
  }
}
