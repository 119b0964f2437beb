/**
 * The peer's schemas, written the usual way: the whole object is described
 * and validated (core/v1 Pod, autoscaling/v1 Scale, apps/v1 Deployment, the
 * CocoonSet CRD), and handlers read the typed result. This is the approach
 * docs/behaviour.md warns against (narrow decoding) for a webhook on every pod create; the benchmark
 * measures what it costs.
 */
import { z } from "zod";

const str = z.string();
const int = z.number().int();
const bool = z.boolean();
const intOrString = z.union([int, str]);
const quantity = z.union([str, z.number()]);
const stringMap = z.record(z.string(), z.string());

export const objectMetaSchema = z.object({
  name: str.optional(),
  generateName: str.optional(),
  namespace: str.optional(),
  uid: str.optional(),
  resourceVersion: str.optional(),
  generation: int.optional(),
  creationTimestamp: str.nullish(),
  deletionTimestamp: str.nullish(),
  deletionGracePeriodSeconds: int.optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  ownerReferences: z
    .array(
      z.object({
        apiVersion: str,
        kind: str,
        name: str,
        uid: str,
        controller: bool.optional(),
        blockOwnerDeletion: bool.optional(),
      }),
    )
    .optional(),
  finalizers: z.array(str).optional(),
  managedFields: z
    .array(
      z.object({
        manager: str.optional(),
        operation: str.optional(),
        apiVersion: str.optional(),
        time: str.optional(),
        fieldsType: str.optional(),
        fieldsV1: z.record(z.string(), z.unknown()).optional(),
        subresource: str.optional(),
      }),
    )
    .optional(),
});

const keySelector = z.object({ name: str.optional(), key: str, optional: bool.optional() });
const fieldSelector = z.object({ apiVersion: str.optional(), fieldPath: str });
const resourceFieldSelector = z.object({
  containerName: str.optional(),
  resource: str,
  divisor: quantity.optional(),
});

const envVarSchema = z.object({
  name: str,
  value: str.optional(),
  valueFrom: z
    .object({
      fieldRef: fieldSelector.optional(),
      resourceFieldRef: resourceFieldSelector.optional(),
      configMapKeyRef: keySelector.optional(),
      secretKeyRef: keySelector.optional(),
    })
    .optional(),
});

const resourceRequirements = z.object({
  limits: z.record(z.string(), quantity).optional(),
  requests: z.record(z.string(), quantity).optional(),
  claims: z.array(z.object({ name: str, request: str.optional() })).optional(),
});

const httpHeader = z.object({ name: str, value: str });
const handlerFields = {
  exec: z.object({ command: z.array(str).optional() }).optional(),
  httpGet: z
    .object({
      path: str.optional(),
      port: intOrString,
      host: str.optional(),
      scheme: z.enum(["HTTP", "HTTPS"]).optional(),
      httpHeaders: z.array(httpHeader).optional(),
    })
    .optional(),
  tcpSocket: z.object({ port: intOrString, host: str.optional() }).optional(),
  grpc: z.object({ port: int, service: str.optional() }).optional(),
};
const probeSchema = z.object({
  ...handlerFields,
  initialDelaySeconds: int.optional(),
  timeoutSeconds: int.optional(),
  periodSeconds: int.optional(),
  successThreshold: int.optional(),
  failureThreshold: int.optional(),
  terminationGracePeriodSeconds: int.optional(),
});
const lifecycleHandler = z.object({
  ...handlerFields,
  sleep: z.object({ seconds: int }).optional(),
});

const seLinuxOptions = z.object({
  user: str.optional(),
  role: str.optional(),
  type: str.optional(),
  level: str.optional(),
});
const seccompProfile = z.object({
  type: z.enum(["RuntimeDefault", "Unconfined", "Localhost"]),
  localhostProfile: str.optional(),
});
const containerSecurityContext = z.object({
  capabilities: z
    .object({ add: z.array(str).optional(), drop: z.array(str).optional() })
    .optional(),
  privileged: bool.optional(),
  seLinuxOptions: seLinuxOptions.optional(),
  runAsUser: int.optional(),
  runAsGroup: int.optional(),
  runAsNonRoot: bool.optional(),
  readOnlyRootFilesystem: bool.optional(),
  allowPrivilegeEscalation: bool.optional(),
  procMount: str.optional(),
  seccompProfile: seccompProfile.optional(),
});

const containerSchema = z.object({
  name: str,
  image: str.optional(),
  command: z.array(str).optional(),
  args: z.array(str).optional(),
  workingDir: str.optional(),
  ports: z
    .array(
      z.object({
        name: str.optional(),
        hostPort: int.optional(),
        containerPort: int,
        protocol: z.enum(["TCP", "UDP", "SCTP"]).optional(),
        hostIP: str.optional(),
      }),
    )
    .optional(),
  envFrom: z
    .array(
      z.object({
        prefix: str.optional(),
        configMapRef: z.object({ name: str, optional: bool.optional() }).optional(),
        secretRef: z.object({ name: str, optional: bool.optional() }).optional(),
      }),
    )
    .optional(),
  env: z.array(envVarSchema).optional(),
  resources: resourceRequirements.optional(),
  restartPolicy: str.optional(),
  volumeMounts: z
    .array(
      z.object({
        name: str,
        mountPath: str,
        readOnly: bool.optional(),
        subPath: str.optional(),
        subPathExpr: str.optional(),
        mountPropagation: str.optional(),
      }),
    )
    .optional(),
  volumeDevices: z.array(z.object({ name: str, devicePath: str })).optional(),
  livenessProbe: probeSchema.optional(),
  readinessProbe: probeSchema.optional(),
  startupProbe: probeSchema.optional(),
  lifecycle: z
    .object({ postStart: lifecycleHandler.optional(), preStop: lifecycleHandler.optional() })
    .optional(),
  terminationMessagePath: str.optional(),
  terminationMessagePolicy: z.enum(["File", "FallbackToLogsOnError"]).optional(),
  imagePullPolicy: z.enum(["Always", "Never", "IfNotPresent"]).optional(),
  securityContext: containerSecurityContext.optional(),
  stdin: bool.optional(),
  stdinOnce: bool.optional(),
  tty: bool.optional(),
});

const keyToPath = z.object({ key: str, path: str, mode: int.optional() });
const volumeSchema = z.object({
  name: str,
  hostPath: z.object({ path: str, type: str.optional() }).optional(),
  emptyDir: z.object({ medium: str.optional(), sizeLimit: quantity.optional() }).optional(),
  secret: z
    .object({
      secretName: str.optional(),
      items: z.array(keyToPath).optional(),
      defaultMode: int.optional(),
      optional: bool.optional(),
    })
    .optional(),
  configMap: z
    .object({
      name: str.optional(),
      items: z.array(keyToPath).optional(),
      defaultMode: int.optional(),
      optional: bool.optional(),
    })
    .optional(),
  persistentVolumeClaim: z.object({ claimName: str, readOnly: bool.optional() }).optional(),
  downwardAPI: z
    .object({
      items: z
        .array(
          z.object({
            path: str,
            fieldRef: fieldSelector.optional(),
            resourceFieldRef: resourceFieldSelector.optional(),
            mode: int.optional(),
          }),
        )
        .optional(),
      defaultMode: int.optional(),
    })
    .optional(),
  projected: z
    .object({
      sources: z.array(
        z.object({
          serviceAccountToken: z
            .object({ audience: str.optional(), expirationSeconds: int.optional(), path: str })
            .optional(),
          configMap: z
            .object({
              name: str.optional(),
              items: z.array(keyToPath).optional(),
              optional: bool.optional(),
            })
            .optional(),
          secret: z
            .object({
              name: str.optional(),
              items: z.array(keyToPath).optional(),
              optional: bool.optional(),
            })
            .optional(),
          downwardAPI: z
            .object({
              items: z
                .array(
                  z.object({ path: str, fieldRef: fieldSelector.optional(), mode: int.optional() }),
                )
                .optional(),
            })
            .optional(),
        }),
      ),
      defaultMode: int.optional(),
    })
    .optional(),
  csi: z
    .object({
      driver: str,
      readOnly: bool.optional(),
      fsType: str.optional(),
      volumeAttributes: stringMap.optional(),
    })
    .optional(),
  ephemeral: z.object({ volumeClaimTemplate: z.unknown() }).optional(),
  nfs: z.object({ server: str, path: str, readOnly: bool.optional() }).optional(),
});

export const tolerationSchema = z.object({
  key: str.optional(),
  operator: z.enum(["Exists", "Equal"]).optional(),
  value: str.optional(),
  effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]).optional(),
  tolerationSeconds: int.optional(),
});

const labelSelector = z.object({
  matchLabels: stringMap.optional(),
  matchExpressions: z
    .array(z.object({ key: str, operator: str, values: z.array(str).optional() }))
    .optional(),
});
const nodeSelectorTerm = z.object({
  matchExpressions: z
    .array(z.object({ key: str, operator: str, values: z.array(str).optional() }))
    .optional(),
  matchFields: z
    .array(z.object({ key: str, operator: str, values: z.array(str).optional() }))
    .optional(),
});
const podAffinityTerm = z.object({
  labelSelector: labelSelector.optional(),
  namespaces: z.array(str).optional(),
  topologyKey: str,
  namespaceSelector: labelSelector.optional(),
});
const weightedPodAffinityTerm = z.object({ weight: int, podAffinityTerm });
const podAffinity = z.object({
  requiredDuringSchedulingIgnoredDuringExecution: z.array(podAffinityTerm).optional(),
  preferredDuringSchedulingIgnoredDuringExecution: z.array(weightedPodAffinityTerm).optional(),
});
const affinitySchema = z.object({
  nodeAffinity: z
    .object({
      requiredDuringSchedulingIgnoredDuringExecution: z
        .object({ nodeSelectorTerms: z.array(nodeSelectorTerm) })
        .optional(),
      preferredDuringSchedulingIgnoredDuringExecution: z
        .array(z.object({ weight: int, preference: nodeSelectorTerm }))
        .optional(),
    })
    .optional(),
  podAffinity: podAffinity.optional(),
  podAntiAffinity: podAffinity.optional(),
});

export const podSpecSchema = z.object({
  volumes: z.array(volumeSchema).optional(),
  initContainers: z.array(containerSchema).optional(),
  containers: z.array(containerSchema).min(1),
  ephemeralContainers: z
    .array(containerSchema.extend({ targetContainerName: str.optional() }))
    .optional(),
  restartPolicy: z.enum(["Always", "OnFailure", "Never"]).optional(),
  terminationGracePeriodSeconds: int.optional(),
  activeDeadlineSeconds: int.optional(),
  dnsPolicy: z.enum(["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]).optional(),
  nodeSelector: stringMap.optional(),
  serviceAccountName: str.optional(),
  serviceAccount: str.optional(),
  automountServiceAccountToken: bool.optional(),
  nodeName: str.optional(),
  hostNetwork: bool.optional(),
  hostPID: bool.optional(),
  hostIPC: bool.optional(),
  shareProcessNamespace: bool.optional(),
  securityContext: z
    .object({
      seLinuxOptions: seLinuxOptions.optional(),
      runAsUser: int.optional(),
      runAsGroup: int.optional(),
      runAsNonRoot: bool.optional(),
      supplementalGroups: z.array(int).optional(),
      fsGroup: int.optional(),
      fsGroupChangePolicy: str.optional(),
      sysctls: z.array(z.object({ name: str, value: str })).optional(),
      seccompProfile: seccompProfile.optional(),
    })
    .optional(),
  imagePullSecrets: z.array(z.object({ name: str.optional() })).optional(),
  hostname: str.optional(),
  subdomain: str.optional(),
  affinity: affinitySchema.optional(),
  schedulerName: str.optional(),
  tolerations: z.array(tolerationSchema).optional(),
  hostAliases: z.array(z.object({ ip: str, hostnames: z.array(str).optional() })).optional(),
  priorityClassName: str.optional(),
  priority: int.optional(),
  dnsConfig: z
    .object({
      nameservers: z.array(str).optional(),
      searches: z.array(str).optional(),
      options: z.array(z.object({ name: str.optional(), value: str.optional() })).optional(),
    })
    .optional(),
  readinessGates: z.array(z.object({ conditionType: str })).optional(),
  runtimeClassName: str.optional(),
  enableServiceLinks: bool.optional(),
  preemptionPolicy: z.enum(["PreemptLowerPriority", "Never"]).optional(),
  overhead: z.record(z.string(), quantity).optional(),
  topologySpreadConstraints: z
    .array(
      z.object({
        maxSkew: int,
        topologyKey: str,
        whenUnsatisfiable: z.enum(["DoNotSchedule", "ScheduleAnyway"]),
        labelSelector: labelSelector.optional(),
        minDomains: int.optional(),
      }),
    )
    .optional(),
  setHostnameAsFQDN: bool.optional(),
  os: z.object({ name: z.enum(["linux", "windows"]) }).optional(),
  hostUsers: bool.optional(),
});

export const podSchema = z.object({
  apiVersion: z.literal("v1").optional(),
  kind: z.literal("Pod").optional(),
  metadata: objectMetaSchema,
  spec: podSpecSchema,
  status: z
    .object({
      phase: z.enum(["Pending", "Running", "Succeeded", "Failed", "Unknown"]).optional(),
      qosClass: str.optional(),
      conditions: z.array(z.record(z.string(), z.unknown())).optional(),
      hostIP: str.optional(),
      podIP: str.optional(),
      startTime: str.optional(),
    })
    .optional(),
});
export type Pod = z.infer<typeof podSchema>;

export const scaleSchema = z.object({
  apiVersion: str.optional(),
  kind: z.literal("Scale").optional(),
  metadata: objectMetaSchema,
  spec: z.object({ replicas: int.min(0).optional() }),
  status: z.object({ replicas: int, selector: str.optional() }).optional(),
});

export const workloadSchema = z.object({
  apiVersion: str.optional(),
  kind: z.enum(["Deployment", "StatefulSet"]).optional(),
  metadata: objectMetaSchema,
  spec: z.object({
    replicas: int.min(0).optional(),
    selector: labelSelector,
    template: z.object({ metadata: objectMetaSchema.optional(), spec: podSpecSchema }),
    strategy: z.object({ type: str.optional() }).optional(),
    serviceName: str.optional(),
  }),
  status: z.record(z.string(), z.unknown()).optional(),
});
export type Workload = z.infer<typeof workloadSchema>;

const vmOptions = {
  image: str.optional(),
  os: z.enum(["linux", "windows", "android", "macos"]).default("linux"),
  backend: z.enum(["cloud-hypervisor", "firecracker"]).default("cloud-hypervisor"),
  connType: z.enum(["ssh", "rdp", "vnc", "adb"]).optional(),
  resources: resourceRequirements.optional(),
  storage: quantity.optional(),
};

export const cocoonSetSchema = z.object({
  apiVersion: z.literal("cocoonset.cocoonstack.io/v1"),
  kind: z.literal("CocoonSet"),
  metadata: objectMetaSchema,
  spec: z.object({
    agent: z.object({
      ...vmOptions,
      image: str.min(1),
      replicas: int.min(0).default(0),
      mode: z.enum(["clone", "run"]).default("clone"),
    }),
    toolboxes: z
      .array(
        z.object({
          ...vmOptions,
          name: str.min(1),
          mode: z.enum(["run", "clone", "static"]).default("run"),
          staticIP: str.optional(),
          staticVMID: str.optional(),
        }),
      )
      .default([]),
    snapshotPolicy: z.enum(["always", "main-only", "never"]).default("always"),
    hibernatePolicy: z.enum(["retain", "release"]).optional(),
  }),
});
export type CocoonSet = z.infer<typeof cocoonSetSchema>;

const userInfo = z.object({
  username: str.optional(),
  uid: str.optional(),
  groups: z.array(str).optional(),
  extra: z.record(z.string(), z.array(str)).optional(),
});
const gvk = z.object({ group: str, version: str, kind: str });
const gvr = z.object({ group: str, version: str, resource: str });

/** A full AdmissionReview whose object and oldObject follow `object`. */
export function admissionReviewOf<T extends z.ZodType>(object: T) {
  return z.object({
    apiVersion: z.enum(["admission.k8s.io/v1", "admission.k8s.io/v1beta1"]),
    kind: z.literal("AdmissionReview"),
    request: z.object({
      uid: str.min(1),
      kind: gvk,
      resource: gvr,
      subResource: str.optional(),
      requestKind: gvk.optional(),
      requestResource: gvr.optional(),
      requestSubResource: str.optional(),
      name: str.optional(),
      namespace: str.optional(),
      operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]),
      userInfo,
      object: object.nullish(),
      oldObject: object.nullish(),
      dryRun: bool.optional(),
      options: z.record(z.string(), z.unknown()).nullish(),
    }),
  });
}
