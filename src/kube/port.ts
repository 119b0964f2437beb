import type { WorkloadResource } from "../cocoon/workload";

/**
 * Raised for every apiserver call that did not produce an answer the rules
 * can trust: network error, timeout, non-2xx other than a GET's 404, or no
 * Kubernetes API configured. Rules fail closed on it.
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
 * APISERVER_TIMEOUT. Objects come back as parsed JSON; the rules decode only
 * the fields they need.
 */
export interface KubeApi {
  /** GET apps/v1 `resource` `namespace/name`; `undefined` on 404. Throws KubeApiError. */
  getWorkload(resource: WorkloadResource, namespace: string, name: string): Promise<unknown>;
  /** GET v1 node `name` (cluster-scoped); `undefined` on 404. Throws KubeApiError. */
  getNode(name: string): Promise<unknown>;
  /** GET v1 pod `namespace/name`; `undefined` on 404. Throws KubeApiError. */
  getPod(namespace: string, name: string): Promise<unknown>;
  /** LIST cocoonset.cocoonstack.io/v1 cocoonhibernations in `namespace`; the `items`. Throws KubeApiError. */
  listHibernations(namespace: string): Promise<readonly unknown[]>;
}
