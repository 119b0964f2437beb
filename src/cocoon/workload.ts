import { DEPLOYMENTS, STATEFULSETS } from "../kube/api-resources";

/** The workloads the scale guard protects, keyed as `request.resource.resource` names them. */
export const WORKLOADS = { deployments: DEPLOYMENTS, statefulsets: STATEFULSETS } as const;

export type WorkloadResource = keyof typeof WORKLOADS;

export type WorkloadKind = (typeof WORKLOADS)[WorkloadResource]["kind"];

export function isWorkloadResource(resource: string | undefined): resource is WorkloadResource {
  return resource !== undefined && Object.hasOwn(WORKLOADS, resource);
}

export function isWorkloadKind(kind: string | undefined): kind is WorkloadKind {
  return Object.values(WORKLOADS).some((workload) => workload.kind === kind);
}
