import { z } from "zod";
import { type JsonPath, jsonObjectList, MISTYPED, readInt, readList, valueAt } from "../json/read";
import { hasCocoonToleration } from "./tolerations";

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

const REPLICAS: JsonPath = ["spec", "replicas"];
const TEMPLATE_TOLERATIONS: JsonPath = ["spec", "template", "spec", "tolerations"];

/** The replica count of a Deployment or StatefulSet (absent: 1); `undefined` when unreadable. */
export function readWorkloadReplicas(workload: unknown): number | undefined {
  return replicasOr(workload, DEFAULT_WORKLOAD_REPLICAS);
}

/** The replica count of a Scale object (absent: 0); `undefined` when unreadable. */
export function readScaleReplicas(scale: unknown): number | undefined {
  return replicasOr(scale, OMITTED_SCALE_REPLICAS);
}

function replicasOr(object: unknown, omitted: number): number | undefined {
  const replicas = readInt(valueAt(object, REPLICAS));
  if (replicas === MISTYPED) return undefined;
  return replicas ?? omitted;
}

/**
 * Whether a Deployment's or StatefulSet's pod template carries the cocoon
 * toleration. The webhook's CEL matchCondition mirrors it. An unreadable
 * template is not a cocoon one.
 */
export function workloadIsCocoon(workload: unknown): boolean {
  const tolerations = readList(valueAt(workload, TEMPLATE_TOLERATIONS));
  return tolerations !== undefined && tolerations !== MISTYPED && hasCocoonToleration(tolerations);
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
