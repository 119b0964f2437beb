/**
 * The AdmissionReview bodies the benchmark POSTs, shaped like the apiserver's
 * (a ReplicaSet-made pod carries managedFields, the service-account projected
 * volume, the default not-ready/unreachable tolerations …). Each scenario
 * names the path, the body, the verdict every server should give, and which
 * parent workload the fake apiserver holds.
 */

import {
  admissionReview,
  appsResource,
  COCOONSET_KIND,
  COCOONSET_RESOURCE,
  HIBERNATION_KIND,
  HIBERNATION_RESOURCE,
  POD_KIND,
  POD_RESOURCE,
  type ReviewOptions,
  SCALE_KIND,
} from "../test/support/admission-review";

export const OPERATOR = "system:serviceaccount:cocoon-system:cocoon-operator";
const REPLICASET_CONTROLLER = "system:serviceaccount:kube-system:replicaset-controller";
const COCOON_TOLERATION_KEY = "virtual-kubelet.io/provider";

export type ScenarioId =
  | "pod-common"
  | "pod-gated"
  | "scale-down"
  | "hibernation-create"
  | "cocoonset-10"
  | "pod-1mb";

export interface Scenario {
  readonly id: ScenarioId;
  readonly title: string;
  readonly path: string;
  readonly body: string;
  /** The `response.allowed` cocoon-webhook and the peer must answer (the floor always allows). */
  readonly expectAllowed: boolean;
}

/** A Deployment/StatefulSet the fake apiserver serves for the /scale scenario. */
export interface ParentWorkload {
  readonly resource: "deployments";
  readonly namespace: string;
  readonly name: string;
  readonly object: unknown;
}

/** A review as the apiserver sends it, with the request options and groups of a real cluster. */
function review(options: ReviewOptions & { readonly username: string }): string {
  const operation = options.operation ?? "CREATE";
  return JSON.stringify(
    admissionReview({
      ...options,
      userInfo: {
        username: options.username,
        uid: "0d6f5c2e-1111-4b8e-9a53-6f3c1e0f0001",
        groups: [
          "system:serviceaccounts",
          "system:serviceaccounts:kube-system",
          "system:authenticated",
        ],
      },
      options: {
        apiVersion: "meta.k8s.io/v1",
        kind: operation === "CREATE" ? "CreateOptions" : "UpdateOptions",
        fieldManager: "kube-controller-manager",
      },
    }),
  );
}

interface PodOptions {
  readonly name: string;
  readonly gated: boolean;
  /** Extra env entries per container and an extra annotation, to grow the pod. */
  readonly padEnvPerContainer?: number;
  readonly padAnnotationBytes?: number;
  /** Adds an envoy sidecar container. */
  readonly sidecar?: boolean;
}

function container(name: string, image: string, extraEnv: number): Record<string, unknown> {
  const env: Record<string, unknown>[] = [
    { name: "LOG_LEVEL", value: "info" },
    { name: "POD_NAME", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } },
    {
      name: "DB_PASSWORD",
      valueFrom: { secretKeyRef: { name: "web-db", key: "password", optional: false } },
    },
  ];
  for (let i = 0; i < extraEnv; i++) {
    env.push({
      name: `FEATURE_FLAG_${i}`,
      value: `enabled-for-tenant-${i}-in-region-eu-west-1-az-b`,
    });
  }
  return {
    name,
    image,
    imagePullPolicy: "IfNotPresent",
    args: ["--listen=:8080", "--metrics=:9102"],
    ports: [
      { name: "http", containerPort: 8080, protocol: "TCP" },
      { name: "metrics", containerPort: 9102, protocol: "TCP" },
    ],
    env,
    resources: {
      requests: { cpu: "250m", memory: "256Mi" },
      limits: { cpu: "1", memory: "512Mi" },
    },
    volumeMounts: [
      { name: "config", mountPath: "/etc/web", readOnly: true },
      {
        name: "kube-api-access-7xk2p",
        mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
        readOnly: true,
      },
    ],
    livenessProbe: {
      httpGet: { path: "/healthz", port: 8080, scheme: "HTTP" },
      initialDelaySeconds: 10,
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    },
    readinessProbe: {
      httpGet: { path: "/readyz", port: "http", scheme: "HTTP" },
      timeoutSeconds: 1,
      periodSeconds: 5,
      successThreshold: 1,
      failureThreshold: 3,
    },
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ["ALL"] },
    },
  };
}

/** A pod as the ReplicaSet controller (or, gated, the cocoon operator) sends it on CREATE. */
export function pod(options: PodOptions): Record<string, unknown> {
  const extraEnv = options.padEnvPerContainer ?? 0;
  const annotations: Record<string, string> = {
    "prometheus.io/scrape": "true",
    "prometheus.io/port": "9102",
    "kubectl.kubernetes.io/restartedAt": "2026-11-20T08:15:00Z",
  };
  if (options.padAnnotationBytes) {
    annotations["example.com/large-config"] = "x".repeat(options.padAnnotationBytes);
  }
  if (options.gated) annotations["vm.cocoonstack.io/name"] = `vk-default-${options.name}`;
  const tolerations: Record<string, unknown>[] = [
    {
      key: "node.kubernetes.io/not-ready",
      operator: "Exists",
      effect: "NoExecute",
      tolerationSeconds: 300,
    },
    {
      key: "node.kubernetes.io/unreachable",
      operator: "Exists",
      effect: "NoExecute",
      tolerationSeconds: 300,
    },
  ];
  if (options.gated) tolerations.push({ key: COCOON_TOLERATION_KEY, operator: "Exists" });
  const owner = options.gated
    ? { kind: "CocoonSet", name: "agents", apiVersion: "cocoonset.cocoonstack.io/v1" }
    : { kind: "ReplicaSet", name: "web-7d9c8b6f5d", apiVersion: "apps/v1" };
  return {
    kind: "Pod",
    apiVersion: "v1",
    metadata: {
      name: options.name,
      generateName: options.gated ? undefined : "web-7d9c8b6f5d-",
      namespace: "default",
      uid: "5e6c1f0a-3b9d-4c61-8f7e-2d4a9b0c1e23",
      creationTimestamp: "2026-11-29T09:00:00Z",
      labels: { app: "web", "pod-template-hash": "7d9c8b6f5d", tier: "frontend" },
      annotations,
      ownerReferences: [
        {
          ...owner,
          uid: "7a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        {
          manager: "kube-controller-manager",
          operation: "Update",
          apiVersion: "v1",
          time: "2026-11-29T09:00:00Z",
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": {
              "f:generateName": {},
              "f:labels": { ".": {}, "f:app": {}, "f:pod-template-hash": {}, "f:tier": {} },
              "f:ownerReferences": {
                ".": {},
                'k:{"uid":"7a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9"}': {},
              },
            },
            "f:spec": {
              "f:containers": { 'k:{"name":"web"}': { ".": {}, "f:image": {}, "f:name": {} } },
              "f:dnsPolicy": {},
              "f:restartPolicy": {},
            },
          },
        },
      ],
    },
    spec: {
      volumes: [
        { name: "config", configMap: { name: "web-config", defaultMode: 420 } },
        {
          name: "kube-api-access-7xk2p",
          projected: {
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
              {
                configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] },
              },
              {
                downwardAPI: {
                  items: [
                    {
                      path: "namespace",
                      fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" },
                    },
                  ],
                },
              },
            ],
            defaultMode: 420,
          },
        },
      ],
      containers: [
        container("web", "registry.example.com/web:1.42.0", extraEnv),
        ...(options.sidecar
          ? [container("sidecar", "registry.example.com/envoy:1.31.2", extraEnv)]
          : []),
      ],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "web",
      serviceAccount: "web",
      securityContext: { runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001 },
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 100,
              podAffinityTerm: {
                labelSelector: { matchLabels: { app: "web" } },
                topologyKey: "kubernetes.io/hostname",
              },
            },
          ],
        },
      },
      schedulerName: "default-scheduler",
      tolerations,
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: "PreemptLowerPriority",
    },
    status: { phase: "Pending", qosClass: "Burstable" },
  };
}

function podReview(uid: string, object: unknown, username: string): string {
  return review({
    uid,
    kind: POD_KIND,
    resource: POD_RESOURCE,
    name: "",
    namespace: "default",
    operation: "CREATE",
    username,
    object,
  });
}

function scale(name: string, replicas: number): Record<string, unknown> {
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name,
      namespace: "default",
      uid: "1f2e3d4c-5b6a-4789-8a9b-0c1d2e3f4a5b",
      resourceVersion: "48213",
      creationTimestamp: "2026-11-28T12:00:00Z",
    },
    spec: replicas === 0 ? {} : { replicas },
    status: { replicas: 3, selector: "app=agents" },
  };
}

/** The cocoon-tolerated Deployment the scale-down targets, as the apiserver returns it. */
export function parentDeployment(): ParentWorkload {
  const template = pod({ name: "agents", gated: true });
  const templateSpec = template.spec as Record<string, unknown>;
  return {
    resource: "deployments",
    namespace: "default",
    name: "agents",
    object: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "agents", namespace: "default", resourceVersion: "48213", generation: 4 },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: "agents" } },
        template: { metadata: { labels: { app: "agents" } }, spec: templateSpec },
        strategy: { type: "Recreate" },
      },
      status: { replicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 4 },
    },
  };
}

/** A valid CocoonSet with an agent, two sub-agents and `toolboxes` toolboxes. */
export function cocoonSet(toolboxes: number): Record<string, unknown> {
  const modes = ["run", "clone", "static"] as const;
  return {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonSet",
    metadata: {
      name: "research-agents",
      namespace: "default",
      uid: "2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901",
      generation: 1,
      creationTimestamp: "2026-11-29T09:00:00Z",
      labels: { team: "research" },
    },
    spec: {
      agent: {
        image: "agents/research:2.3.1",
        replicas: 2,
        mode: "clone",
        os: "linux",
        backend: "cloud-hypervisor",
        connType: "ssh",
        resources: { limits: { cpu: "4", memory: "8Gi" }, requests: { cpu: "2", memory: "4Gi" } },
        storage: "40Gi",
      },
      toolboxes: Array.from({ length: toolboxes }, (_, i) => {
        const mode = modes[i % modes.length] ?? "run";
        const name = `tool-${i}`;
        if (mode === "static") {
          return {
            name,
            mode,
            staticIP: `10.20.0.${10 + i}`,
            staticVMID: `vm-${1000 + i}`,
            connType: "rdp",
          };
        }
        return {
          name,
          mode,
          image:
            mode === "clone"
              ? `toolboxes/${name}:1.0`
              : `registry.example.com/toolboxes/${name}:1.0`,
          os: i % 2 === 0 ? "linux" : "windows",
          backend: "cloud-hypervisor",
          connType: i % 2 === 0 ? "ssh" : "rdp",
          resources: { limits: { cpu: "2", memory: "4Gi" } },
          storage: "20Gi",
        };
      }),
      snapshotPolicy: "main-only",
      hibernatePolicy: "retain",
    },
  };
}

const KIB = 1024;

/** The five benchmark scenarios; bodies are built once. */
export function buildScenarios(): Scenario[] {
  const parent = parentDeployment();
  const common = podReview(
    "c0ffee00-0000-4000-8000-000000000001",
    pod({ name: "web-7d9c8b6f5d-x2x9q", gated: false }),
    REPLICASET_CONTROLLER,
  );
  const gated = podReview(
    "c0ffee00-0000-4000-8000-000000000002",
    pod({ name: "agents-0", gated: true }),
    OPERATOR,
  );
  const scaleDown = review({
    uid: "c0ffee00-0000-4000-8000-000000000003",
    kind: SCALE_KIND,
    resource: appsResource(parent.resource),
    subResource: "scale",
    name: parent.name,
    namespace: parent.namespace,
    operation: "UPDATE",
    username: "kubernetes-admin",
    object: scale(parent.name, 1),
    oldObject: scale(parent.name, 3),
  });
  const cocoonSetReview = review({
    uid: "c0ffee00-0000-4000-8000-000000000004",
    kind: COCOONSET_KIND,
    resource: COCOONSET_RESOURCE,
    name: "research-agents",
    namespace: "default",
    operation: "CREATE",
    username: "alice@example.com",
    object: cocoonSet(10),
  });
  const hibernationCreate = review({
    uid: "c0ffee00-0000-4000-8000-000000000006",
    kind: HIBERNATION_KIND,
    resource: HIBERNATION_RESOURCE,
    name: "agents-0",
    namespace: HIBERNATION_NAMESPACE,
    operation: "CREATE",
    username: "alice@example.com",
    object: hibernation("agents-0", "agents-0"),
  });
  // ≈1 MB: two containers × 4 000 env entries plus a 300 KiB annotation.
  const large = podReview(
    "c0ffee00-0000-4000-8000-000000000005",
    pod({
      name: "web-7d9c8b6f5d-big01",
      gated: false,
      sidecar: true,
      padEnvPerContainer: 4000,
      padAnnotationBytes: 300 * KIB,
    }),
    REPLICASET_CONTROLLER,
  );
  return [
    {
      id: "pod-common",
      title: "non-cocoon pod CREATE",
      path: "/mutate",
      body: common,
      expectAllowed: true,
    },
    {
      id: "pod-gated",
      title: "gated pod, allowed",
      path: "/mutate",
      body: gated,
      expectAllowed: true,
    },
    {
      id: "scale-down",
      title: "/scale scale-down (parent GET)",
      path: "/validate",
      body: scaleDown,
      expectAllowed: false,
    },
    {
      id: "hibernation-create",
      title: "CocoonHibernation CREATE (LIST)",
      path: "/validate-cocoonhibernation",
      body: hibernationCreate,
      expectAllowed: true,
    },
    {
      id: "cocoonset-10",
      title: "CocoonSet, 10 toolboxes",
      path: "/validate-cocoonset",
      body: cocoonSetReview,
      expectAllowed: true,
    },
    { id: "pod-1mb", title: "≈1 MB pod CREATE", path: "/mutate", body: large, expectAllowed: true },
  ];
}

/** The namespace of the CocoonHibernation scenario and the hibernations the fake apiserver lists there. */
export const HIBERNATION_NAMESPACE = "agents";

function hibernation(name: string, podName: string): Record<string, unknown> {
  return {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonHibernation",
    metadata: { name, namespace: HIBERNATION_NAMESPACE },
    spec: { podRef: { name: podName }, desire: "Hibernate" },
  };
}

/** Ten hibernations of other pods: the CREATE below conflicts with none of them. */
export function existingHibernations(): Record<string, unknown>[] {
  return Array.from({ length: 10 }, (_, i) => hibernation(`agents-${i + 1}`, `agents-${i + 1}`));
}

/** `count` CocoonSet documents as one multi-document YAML stream (JSON is YAML). */
export function cocoonSetDocuments(count: number): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const set = cocoonSet(3 + (i % 8));
    (set.metadata as Record<string, unknown>).name = `set-${i}`;
    parts.push(JSON.stringify(set));
  }
  return `${parts.join("\n---\n")}\n`;
}
