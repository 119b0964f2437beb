import type { ParentWorkload, WorkloadResource } from "../cocoon/workload";

/** Core resources the pod gate reads (cluster-scoped nodes, namespaced pods). */
export const NODES_RESOURCE = "nodes";
export const PODS_RESOURCE = "pods";

/**
 * Raised for every apiserver call that did not produce an answer the rules
 * can trust: network error, timeout, redirect, non-2xx other than a GET's
 * 404, a 2xx whose body is not the object asked for, an oversized body, an
 * invalid name, or no Kubernetes API configured. Rules fail closed on it.
 */
export class KubeApiError extends Error {
  override readonly name = "KubeApiError";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * The apiserver as the rules see it: four reads, each bounded by
 * APISERVER_TIMEOUT. Objects come back verified (the object asked for, the
 * fields read well-typed); the rules decode only the fields they need.
 */
export interface KubeApi {
  /** GET apps/v1 `resource` `namespace/name`; `undefined` on a direct 404. Throws KubeApiError. */
  getWorkload(
    resource: WorkloadResource,
    namespace: string,
    name: string,
  ): Promise<ParentWorkload | undefined>;
  /** GET v1 node `name` (cluster-scoped); `undefined` on a direct 404. Throws KubeApiError. */
  getNode(name: string): Promise<Record<string, unknown> | undefined>;
  /** GET v1 pod `namespace/name`; `undefined` on a direct 404. Throws KubeApiError. */
  getPod(namespace: string, name: string): Promise<Record<string, unknown> | undefined>;
  /** LIST cocoonset.cocoonstack.io/v1 cocoonhibernations in `namespace`, every page; the `items`. Throws KubeApiError. */
  listHibernations(namespace: string): Promise<readonly Record<string, unknown>[]>;
}
