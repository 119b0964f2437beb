import type { JsonObject } from "../json/read";
import type { ApiResource } from "../kube/api-resources";

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

/** One object: its namespace (absent for a cluster-scoped kind) and name. */
export interface ObjectRef {
  readonly namespace?: string;
  readonly name: string;
}

/**
 * The apiserver as the handlers see it: reads, each bounded by
 * APISERVER_TIMEOUT. Objects come back verified (the object asked for, the
 * resource's fields well-typed); the handlers decode only what they need.
 */
export interface KubeApi {
  /** GET one object; `undefined` on the apiserver's own NotFound for it. Throws KubeApiError. */
  get<Fields extends JsonObject>(
    resource: ApiResource<Fields>,
    object: ObjectRef,
  ): Promise<Fields | undefined>;
  /** LIST `resource` in `namespace`, every page: the items. Throws KubeApiError. */
  list(resource: ApiResource, namespace: string): Promise<readonly JsonObject[]>;
}
