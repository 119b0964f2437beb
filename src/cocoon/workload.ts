import { type JsonPath, MISTYPED, readInt, readList, valueAt } from "../json/read";
import { DEPLOYMENTS, STATEFULSETS } from "../kube/resources";
import { hasCocoonToleration } from "./tolerations";

/**
 * The workloads the scale guard protects, by their resource as
 * `request.resource.resource` names it on a `/scale` request.
 */
export const WORKLOADS = { deployments: DEPLOYMENTS, statefulsets: STATEFULSETS } as const;

export type WorkloadResource = keyof typeof WORKLOADS;

export type WorkloadKind = (typeof WORKLOADS)[WorkloadResource]["kind"];

export function isWorkloadResource(resource: string | undefined): resource is WorkloadResource {
  return resource !== undefined && Object.hasOwn(WORKLOADS, resource);
}

export function isWorkloadKind(kind: string | undefined): kind is WorkloadKind {
  return Object.values(WORKLOADS).some((workload) => workload.kind === kind);
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
