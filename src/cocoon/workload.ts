import { z } from "zod";
import { jsonObjectList } from "../json";
import { hasCocoonToleration, tolerationsSchema } from "./tolerations";

/** The workloads the scale guard protects: apps/v1 resource → kind. */
export const WORKLOAD_KINDS = {
  deployments: "Deployment",
  statefulsets: "StatefulSet",
} as const;

/** The apiVersion of both workload kinds. */
export const WORKLOAD_API_VERSION = "apps/v1";

/** The parent's resource as `request.resource.resource` names it on a `/scale` request. */
export type WorkloadResource = keyof typeof WORKLOAD_KINDS;

export type WorkloadKind = (typeof WORKLOAD_KINDS)[WorkloadResource];

export function isWorkloadResource(resource: string | undefined): resource is WorkloadResource {
  return resource !== undefined && Object.hasOwn(WORKLOAD_KINDS, resource);
}

export function isWorkloadKind(kind: string | undefined): kind is WorkloadKind {
  return Object.values(WORKLOAD_KINDS).some((workloadKind) => workloadKind === kind);
}

/** apps/v1 defaults an omitted `spec.replicas` of a Deployment or StatefulSet to 1. */
const DEFAULT_WORKLOAD_REPLICAS = 1;

/** An autoscaling/v1 Scale omits `spec.replicas` when it is 0 (`kubectl scale --replicas=0` sends `spec: {}`). */
const OMITTED_SCALE_REPLICAS = 0;

/** `spec.replicas` of a Deployment or StatefulSet, defaulted. */
const workloadReplicasSchema = z
  .object({ spec: z.object({ replicas: z.int().nullish() }).nullish() })
  .transform((workload) => workload.spec?.replicas ?? DEFAULT_WORKLOAD_REPLICAS);

/** `spec.replicas` of a Scale subresource object, defaulted. */
const scaleReplicasSchema = z
  .object({ spec: z.object({ replicas: z.int().nullish() }).nullish() })
  .transform((scale) => scale.spec?.replicas ?? OMITTED_SCALE_REPLICAS);

/** `spec.template.spec.tolerations` of a Deployment or StatefulSet, decoded on its own. */
const workloadTolerationsSchema = z
  .object({
    spec: z
      .object({
        template: z
          .object({ spec: z.object({ tolerations: tolerationsSchema.nullish() }).nullish() })
          .nullish(),
      })
      .nullish(),
  })
  .transform((workload) => workload.spec?.template?.spec?.tolerations ?? []);

/** The replica count of a Deployment or StatefulSet (absent: 1); `undefined` when unreadable. */
export function readWorkloadReplicas(workload: unknown): number | undefined {
  return workloadReplicasSchema.safeParse(workload).data;
}

/** The replica count of a Scale object (absent: 0); `undefined` when unreadable. */
export function readScaleReplicas(scale: unknown): number | undefined {
  return scaleReplicasSchema.safeParse(scale).data;
}

/**
 * Whether a Deployment's or StatefulSet's pod template carries the cocoon
 * toleration. The webhook's CEL matchCondition mirrors it. An unreadable
 * template is not a cocoon one.
 */
export function workloadIsCocoon(workload: unknown): boolean {
  const tolerations = workloadTolerationsSchema.safeParse(workload);
  return tolerations.success && hasCocoonToleration(tolerations.data);
}

/**
 * What the scale guard reads of a parent workload fetched from the apiserver,
 * typed strictly: a mistyped field there means the answer is not a real
 * workload, which must fail closed rather than read as "not cocoon".
 */
export const parentWorkloadFields = z.looseObject({
  spec: z
    .looseObject({
      replicas: z.int().nullish(),
      template: z
        .looseObject({
          spec: z.looseObject({ tolerations: jsonObjectList.nullish() }).nullish(),
        })
        .nullish(),
    })
    .nullish(),
});

export type ParentWorkload = z.output<typeof parentWorkloadFields>;
