import { OPERATOR_USERNAME, SANDBOX_OPERATOR_USERNAME } from "../../src/cocoon/identities";

/*
 * What the real cocoonstack components send, in this project's own words:
 * literal objects and constants read from their public sources (each block
 * names the repository, file and commit). Nothing here is generated from
 * their code; a difference found later between these shapes and the real
 * components is a bug in this file.
 *
 * cocoon-operator v0.3.3 6151b055cbde77e6e4c5a2e35fe6bf9def814abc
 * cocoon-common   v0.3.0 8de9092a9c6fc80a3f933e950845e6ae458d28f3
 * sandbox-operator       c9d9fdad7acc02e9cfac3fe3b43cb07129d3e31f
 * vk-cocoon              a9cb04f12943834fc646fd616754ffe1466b6a9e
 */

// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects as JSON, read field by field
export type KubeJson = Record<string, any>;

/** The identities of cocoon-operator config/rbac/serviceaccount.yaml and sandbox-operator k8s/controller.yaml. */
export const IDENTITIES = {
  operator: OPERATOR_USERNAME,
  sandboxOperator: SANDBOX_OPERATOR_USERNAME,
};

// --------------------------------------------------------------- cocoon-operator

/**
 * A CocoonSet as its operator owns pods: controllerutil.SetControllerReference
 * (cocoon-operator cocoonset/pods.go newManagedPod) writes this reference.
 */
export function cocoonSetOwner(name: string, uid: string): KubeJson {
  return {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonSet",
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * The tolerations every managed pod gets (cocoon-operator cocoonset/pods.go
 * newManagedPod; the key is cocoon-common meta/keys.go TolerationKey): the
 * cocoon key with Exists and no effect, then the two NoExecute ones.
 */
const OPERATOR_TOLERATIONS = [
  { key: "virtual-kubelet.io/provider", operator: "Exists" },
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
];

interface OperatorPodOptions {
  readonly namespace: string;
  readonly set: string;
  readonly setUid: string;
  readonly generation?: number;
  /** "main", "sub-agent" or "toolbox" (cocoon-common meta/keys.go Role*). */
  readonly role: "main" | "sub-agent" | "toolbox";
  /** The slot label: the agent slot, or the toolbox name. */
  readonly slot: string;
  /** The VM annotations meta.VMSpec.Apply writes (cocoon-common meta/vmspec.go). */
  readonly vm: Record<string, string>;
  /** Sub-agents are bound to the main agent's node (cocoon-operator cocoonset/pods.go buildAgentPod). */
  readonly nodeName?: string;
  /**
   * The container's resources: the spec's, with `storage` as an
   * ephemeral-storage request and limit (cocoonset/pods.go applyStorageRequest).
   */
  readonly resources?: KubeJson;
}

/**
 * A pod as cocoon-operator creates it (cocoonset/pods.go newManagedPod,
 * buildAgentPod, buildToolboxPod): labels of cocoon-common meta/keys.go,
 * the generation annotation, the VM annotations, the placeholder container,
 * the pool selector and the controller reference.
 */
function operatorPod(options: OperatorPodOptions): KubeJson {
  // Agents are <set>-<slot>, toolboxes <set>-<toolbox> (cocoonset/pods.go).
  const name = `${options.set}-${options.slot}`;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: options.namespace,
      labels: {
        "cocoonset.cocoonstack.io/name": options.set,
        "cocoonset.cocoonstack.io/role": options.role,
        "cocoonset.cocoonstack.io/slot": options.slot,
        "app.kubernetes.io/name": options.set,
      },
      annotations: {
        "cocoonset.cocoonstack.io/generation": String(options.generation ?? 1),
        ...options.vm,
      },
      ownerReferences: [cocoonSetOwner(options.set, options.setUid)],
    },
    spec: {
      terminationGracePeriodSeconds: 1,
      tolerations: OPERATOR_TOLERATIONS,
      nodeSelector: { "cocoonstack.io/pool": "default" },
      containers: [
        {
          name: "agent",
          image: "ghcr.io/cocoonstack/placeholder:latest",
          ...(options.resources === undefined ? {} : { resources: options.resources }),
        },
      ],
      ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }),
    },
  };
}

/** The VM annotations of an agent (meta.FromAgentSpec): managed, mode clone by default. */
const agentVm = (vmName: string, image: string, forkFrom?: string): Record<string, string> => ({
  "vm.cocoonstack.io/name": vmName,
  "cocoonset.cocoonstack.io/image": image,
  "cocoonset.cocoonstack.io/mode": "clone",
  "cocoonset.cocoonstack.io/os": "linux",
  "cocoonset.cocoonstack.io/storage": "20Gi",
  "cocoonset.cocoonstack.io/snapshot-policy": "always",
  ...(forkFrom === undefined ? {} : { "vm.cocoonstack.io/fork-from": forkFrom }),
  "vm.cocoonstack.io/backend": "cloud-hypervisor",
  "cocoonset.cocoonstack.io/managed": "true",
});

/**
 * The pods cocoon-operator creates for `OPERATOR_SAMPLE_SET` in `namespace`
 * (its main agent and one sub-agent), and for three toolboxes as if the set
 * listed them: `browser` (run), `ide` (clone, probePort 8080) and `win`
 * (static, rdp).
 */
export function operatorPods(namespace: string, setUid: string, mainNode: string) {
  const set = OPERATOR_SAMPLE_SET.metadata.name;
  const image = OPERATOR_SAMPLE_SET.spec.agent.image;
  const mainVm = `vk-${namespace}-${set}-0`;
  const common = { namespace, set, setUid };
  const agentResources = {
    requests: { cpu: "2", memory: "4Gi", "ephemeral-storage": "20Gi" },
    limits: { cpu: "2", memory: "4Gi", "ephemeral-storage": "20Gi" },
  };
  return {
    main: operatorPod({
      ...common,
      role: "main",
      slot: "0",
      vm: agentVm(mainVm, image),
      resources: agentResources,
    }),
    /** A sub-agent forks the main VM on its node, so it names that node. */
    subAgent: operatorPod({
      ...common,
      role: "sub-agent",
      slot: "1",
      vm: agentVm(`vk-${namespace}-${set}-1`, image, mainVm),
      nodeName: mainNode,
      resources: agentResources,
    }),
    /** meta.FromToolboxSpec: a run toolbox, managed. */
    runToolbox: operatorPod({
      ...common,
      role: "toolbox",
      slot: "browser",
      vm: {
        "vm.cocoonstack.io/name": `vk-${namespace}-${set}-browser`,
        "cocoonset.cocoonstack.io/image": "ghcr.io/cocoonstack/cocoon/chromium:latest",
        "cocoonset.cocoonstack.io/mode": "run",
        "cocoonset.cocoonstack.io/os": "linux",
        "cocoonset.cocoonstack.io/snapshot-policy": "always",
        "vm.cocoonstack.io/backend": "cloud-hypervisor",
        "cocoonset.cocoonstack.io/managed": "true",
      },
    }),
    /** A clone toolbox, with a TCP probe port (meta/vmspec.go formatPort). */
    cloneToolbox: operatorPod({
      ...common,
      role: "toolbox",
      slot: "ide",
      vm: {
        "vm.cocoonstack.io/name": `vk-${namespace}-${set}-ide`,
        "cocoonset.cocoonstack.io/image": "cocoonstack/ide:1",
        "cocoonset.cocoonstack.io/mode": "clone",
        "cocoonset.cocoonstack.io/os": "linux",
        "cocoonset.cocoonstack.io/snapshot-policy": "always",
        "vm.cocoonstack.io/backend": "cloud-hypervisor",
        "cocoonset.cocoonstack.io/managed": "true",
        "vm.cocoonstack.io/probe-port": "8080",
      },
    }),
    /**
     * A static toolbox: not managed, and meta.VMRuntime.Apply (cocoon-common
     * meta/vmruntime.go) writes the VM id, IP and VNC port it was given.
     */
    staticToolbox: operatorPod({
      ...common,
      role: "toolbox",
      slot: "win",
      vm: {
        "vm.cocoonstack.io/name": `vk-${namespace}-${set}-win`,
        "cocoonset.cocoonstack.io/mode": "static",
        "cocoonset.cocoonstack.io/os": "windows",
        "cocoonset.cocoonstack.io/snapshot-policy": "always",
        "vm.cocoonstack.io/conn-type": "rdp",
        "vm.cocoonstack.io/backend": "cloud-hypervisor",
        "vm.cocoonstack.io/id": "static-vm-7",
        "vm.cocoonstack.io/ip": "10.88.0.7",
        "vm.cocoonstack.io/vnc-port": "5901",
      },
    }),
  };
}

/**
 * Runtime patches on live pods, as the API applies them to the stored pod
 * (a merge of annotations only): the operator's hibernate flag and
 * generation stamp (cocoon-operator docs/cocoonset.md steps 5 and 7), and
 * vk-cocoon's VM id and IP after boot (vk-cocoon provider/cocoon/create.go
 * patchRuntimeAnnotations) and its lifecycle report.
 */
export const RUNTIME_ANNOTATION_PATCHES: Readonly<Record<string, Record<string, string>>> = {
  "operator: hibernate": { "vm.cocoonstack.io/hibernate": "true" },
  "operator: generation stamp": { "cocoonset.cocoonstack.io/generation": "2" },
  "vk-cocoon: VM id and IP": {
    "vm.cocoonstack.io/id": "vm-3f9c",
    "vm.cocoonstack.io/ip": "10.88.0.12",
  },
  "vk-cocoon: lifecycle": {
    "vm.cocoonstack.io/lifecycle-state": "hibernated",
    "vm.cocoonstack.io/lifecycle-observed-generation": "2",
  },
};

/** A stored pod with `annotations` merged in. */
export function withAnnotations(pod: KubeJson, annotations: Record<string, string>): KubeJson {
  return {
    ...pod,
    metadata: { ...pod.metadata, annotations: { ...pod.metadata.annotations, ...annotations } },
  };
}

/**
 * A real CocoonSet sample: vk-cocoon manifests/test-cocoonset.yaml (without
 * its namespace, which the tests choose).
 */
export const OPERATOR_SAMPLE_SET = {
  apiVersion: "cocoonset.cocoonstack.io/v1",
  kind: "CocoonSet",
  metadata: { name: "demo-cocoonset" },
  spec: {
    nodePool: "default",
    agent: {
      image: "ubuntu-dev-base",
      replicas: 1,
      mode: "clone",
      resources: {
        requests: { cpu: "2", memory: "4Gi" },
        limits: { cpu: "2", memory: "4Gi" },
      },
      storage: "20Gi",
    },
    snapshotPolicy: "always",
  },
} as const;

// -------------------------------------------------------------- sandbox-operator

export const SANDBOX_NAMESPACE = "default";
export const SANDBOX_NAME = "demo";

/**
 * The controller reference sandbox-operator puts on a Sandbox's pod
 * (controllers/sandbox_controller.go createPod, SetControllerReference with
 * the v1beta1 Sandbox, api/v1beta1/groupversion_info.go).
 */
export function sandboxOwner(name: string, uid: string): KubeJson {
  return {
    apiVersion: "agents.x-k8s.io/v1beta1",
    kind: "Sandbox",
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/*
 * The VM name and the name hash below are those of the Sandbox default/demo;
 * a test that places the pod elsewhere keeps them (the webhook reads neither).
 */

/**
 * pkg/podruntime/cocoon.go stableVMName for default/demo: "sandbox-<ns>-<name>-"
 * and the first 8 hex digits of sha256("default/demo").
 */
export const SANDBOX_VM_NAME = "sandbox-default-demo-02c8c86b";
/** controllers/sandbox_controller.go NameHash: FNV-1a of the name "demo", 8 hex digits. */
const SANDBOX_NAME_HASH = "aefd3536";

/** routeToVirtualNode (pkg/podruntime/cocoon.go) adds this toleration in both VM runtimes. */
const SANDBOX_TOLERATION = {
  key: "virtual-kubelet.io/provider",
  operator: "Exists",
  effect: "NoSchedule",
};

interface SandboxPodOptions {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

interface SandboxRuntime {
  readonly image: string;
  readonly annotations: Record<string, string>;
  readonly nodeSelector: Record<string, string>;
}

/**
 * A Sandbox's pod as sandbox-operator creates it in the Sandbox's own
 * namespace (controllers/sandbox_controller.go createPod: the name-hash
 * label, the propagated template annotation, the controller reference),
 * after its runtime's mutation (pkg/podruntime/cocoon.go).
 */
function sandboxPod(
  { namespace, name, uid }: SandboxPodOptions,
  runtime: SandboxRuntime,
): KubeJson {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace,
      labels: { "agents.x-k8s.io/sandbox-name-hash": SANDBOX_NAME_HASH },
      annotations: {
        "agents.x-k8s.io/propagated-annotations": "sandbox.cocoonstack.io/runtime",
        ...runtime.annotations,
      },
      ownerReferences: [sandboxOwner(name, uid)],
    },
    spec: {
      containers: [{ name: "agent", image: runtime.image }],
      nodeSelector: runtime.nodeSelector,
      tolerations: [SANDBOX_TOLERATION],
    },
  };
}

const VK_COCOON_IMAGE = "ghcr.io/cocoonstack/cocoon/ubuntu:24.04";
const SANDBOXD_IMAGE = "ghcr.io/cocoonstack/sandbox/python:3.12";

/**
 * The vk-cocoon runtime (mutateVKCocoon), for the README's Sandbox (template
 * annotation sandbox.cocoonstack.io/runtime: vk-cocoon): the VM annotations.
 */
export const sandboxVkCocoonPod = (options: SandboxPodOptions): KubeJson =>
  sandboxPod(options, {
    image: VK_COCOON_IMAGE,
    annotations: {
      "sandbox.cocoonstack.io/runtime": "vk-cocoon",
      "cocoonset.cocoonstack.io/mode": "run",
      "cocoonset.cocoonstack.io/managed": "true",
      "vm.cocoonstack.io/name": SANDBOX_VM_NAME,
      "cocoonset.cocoonstack.io/image": VK_COCOON_IMAGE,
      "cocoonset.cocoonstack.io/os": "linux",
    },
    nodeSelector: { "node.kubernetes.io/instance-type": "virtual-node" },
  });

/** The sandboxd runtime (mutateSandboxd): the toleration and the owner, no VM name annotation. */
export const sandboxSandboxdPod = (options: SandboxPodOptions): KubeJson =>
  sandboxPod(options, {
    image: SANDBOXD_IMAGE,
    annotations: {
      "sandbox.cocoonstack.io/runtime": "sandboxd",
      "sandbox.cocoonstack.io/template": SANDBOXD_IMAGE,
    },
    nodeSelector: { "sandbox.cocoonstack.io/runtime": "sandboxd" },
  });

// ------------------------------------------- cocoon-operator's finalizer updates

/** cocoon-operator cocoonset/reconciler.go finalizerName. */
export const OPERATOR_FINALIZER = "cocoonset.cocoonstack.io/finalizer";

/**
 * 56 characters: `<set>-<slot>` fits a pod name, but the VM name
 * `vk-<namespace>-<set>-<slot>` is over 63 in any namespace, a rule the Go
 * webhook did not have. A set stored before the rule keeps breaking it.
 */
export const OVER_BUDGET_SET_NAME = "research-agents-with-a-long-descriptive-name-for-the-lab";

/**
 * One finalizer update by the operator: `stored` is the spec as the
 * apiserver holds it, `written` the spec as the operator sends it back
 * through cocoon-common's Go types (apis/v1/cocoonset_types.go) and Go's
 * encoding/json: fields in struct order, omitempty zero values dropped,
 * the ResourceRequirements struct always written, quantities in canonical
 * form (`20480Mi` becomes `20Gi`).
 */
export interface FinalizerUpdate {
  readonly name: string;
  /** "add": the first reconcile adds the finalizer; "remove": deletion drops it. */
  readonly finalizer: "add" | "remove";
  readonly stored: KubeJson;
  readonly written: KubeJson;
}

const SAMPLE_RESOURCES = {
  requests: { cpu: "2", memory: "4Gi" },
  limits: { cpu: "2", memory: "4Gi" },
};

export const FINALIZER_UPDATES: readonly FinalizerUpdate[] = [
  {
    name: "a set resumed by a merge patch with suspend: false, then deleted",
    finalizer: "remove",
    stored: {
      suspend: false,
      snapshotPolicy: "always",
      hibernatePolicy: "retain",
      nodePool: "default",
      agent: {
        replicas: 0,
        image: "ubuntu-dev-base",
        mode: "clone",
        os: "linux",
        backend: "cloud-hypervisor",
        storage: "20Gi",
        resources: SAMPLE_RESOURCES,
      },
    },
    written: {
      snapshotPolicy: "always",
      hibernatePolicy: "retain",
      nodePool: "default",
      agent: {
        image: "ubuntu-dev-base",
        mode: "clone",
        os: "linux",
        backend: "cloud-hypervisor",
        storage: "20Gi",
        resources: SAMPLE_RESOURCES,
      },
    },
  },
  {
    name: "a set whose toolboxes were all removed with toolboxes: [], then deleted",
    finalizer: "remove",
    stored: {
      snapshotPolicy: "main-only",
      hibernatePolicy: "retain",
      nodePool: "default",
      agent: {
        replicas: 0,
        image: "ubuntu-dev-base",
        mode: "clone",
        os: "linux",
        backend: "cloud-hypervisor",
        network: "",
        probePort: 0,
        forcePull: false,
        envFrom: [],
        resources: { limits: { memory: "4Gi" } },
      },
      toolboxes: [],
    },
    written: {
      snapshotPolicy: "main-only",
      hibernatePolicy: "retain",
      nodePool: "default",
      agent: {
        image: "ubuntu-dev-base",
        mode: "clone",
        os: "linux",
        backend: "cloud-hypervisor",
        resources: { limits: { memory: "4Gi" } },
      },
    },
  },
  {
    name: "the first finalizer add of a set stored without resources",
    finalizer: "add",
    stored: {
      snapshotPolicy: "always",
      hibernatePolicy: "retain",
      nodePool: "default",
      agent: {
        replicas: 1,
        image: "ubuntu-dev-base",
        mode: "clone",
        os: "linux",
        backend: "cloud-hypervisor",
        storage: "20480Mi",
      },
      toolboxes: [
        {
          name: "browser",
          image: "ghcr.io/cocoonstack/cocoon/chromium:latest",
          mode: "run",
          os: "linux",
          backend: "cloud-hypervisor",
          vncPort: 0,
        },
      ],
    },
    written: {
      snapshotPolicy: "always",
      hibernatePolicy: "retain",
      nodePool: "default",
      agent: {
        replicas: 1,
        image: "ubuntu-dev-base",
        mode: "clone",
        os: "linux",
        backend: "cloud-hypervisor",
        storage: "20Gi",
        resources: {},
      },
      toolboxes: [
        {
          name: "browser",
          image: "ghcr.io/cocoonstack/cocoon/chromium:latest",
          mode: "run",
          os: "linux",
          backend: "cloud-hypervisor",
          resources: {},
        },
      ],
    },
  },
];

/**
 * The old and new CocoonSet of a finalizer update: the finalizer added to a
 * live set, or removed from one being deleted.
 */
export function finalizerUpdateObjects(
  update: FinalizerUpdate,
  namespace: string,
  name = OVER_BUDGET_SET_NAME,
): { oldObject: KubeJson; object: KubeJson } {
  const metadata = { name, namespace, uid: "5b0c3f7e-0000-4000-8000-000000000030", generation: 1 };
  const deleting = { deletionTimestamp: "2026-12-04T18:00:00Z", deletionGracePeriodSeconds: 0 };
  const kind = { apiVersion: "cocoonset.cocoonstack.io/v1", kind: "CocoonSet" };
  const before =
    update.finalizer === "add"
      ? { ...metadata }
      : { ...metadata, ...deleting, finalizers: [OPERATOR_FINALIZER] };
  const after =
    update.finalizer === "add"
      ? { ...metadata, finalizers: [OPERATOR_FINALIZER] }
      : { ...metadata, ...deleting };
  return {
    oldObject: { ...kind, metadata: before, spec: update.stored },
    object: { ...kind, metadata: after, spec: update.written },
  };
}
