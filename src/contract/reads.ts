import type { JsonObject } from "../json/read";
import type { ApiResource } from "../kube/api-resources";

/** One kind of apiserver call a decision makes: it becomes an RBAC rule of the webhook's role. */
export interface ApiserverRead {
  readonly verb: "get" | "list";
  readonly resource: ApiResource;
}

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

export interface ObjectRef {
  readonly namespace?: string;
  readonly name: string;
}

/**
 * The apiserver as the decisions see it: reads, each bounded by
 * APISERVER_TIMEOUT. Objects come back verified (the object asked for, the
 * resource's fields well-typed); the decisions decode only what they need.
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

/** A read a verdict depends on: its answer, or why there is none (and the verdict fails closed). */
export type ReadOutcome<T> =
  | { readonly ok: true; readonly answer: T }
  | { readonly ok: false; readonly failure: string };

/**
 * Runs one apiserver read a verdict depends on. A KubeApiError (the apiserver
 * could not be asked, or its answer cannot be trusted) becomes a failure the
 * handler refuses the request over; anything else is a bug, and propagates to
 * be answered as an internal error.
 */
export async function readApiserver<T>(read: () => Promise<T>): Promise<ReadOutcome<T>> {
  try {
    return { ok: true, answer: await read() };
  } catch (error) {
    if (error instanceof KubeApiError) return { ok: false, failure: error.message };
    throw error;
  }
}

/** How every fail-closed message ends: what to fix so the same request passes next time. */
export function retryOnceReachable(verb: "get" | "list", resource: string): string {
  return (
    "retry once the webhook can reach the Kubernetes API (check its network path, its RBAC to " +
    `${verb} ${resource}, and APISERVER_TIMEOUT)`
  );
}

/**
 * `kube` as a decision may read it: only the reads its module lists, which
 * are what the generated RBAC role grants. Any other read is a bug, not an
 * apiserver failure: it throws a plain Error, answered as an internal error.
 */
export function grantedReadsOnly(
  label: string,
  reads: readonly ApiserverRead[],
  kube: KubeApi,
): KubeApi {
  const check = (verb: ApiserverRead["verb"], resource: ApiResource) => {
    const granted = reads.some(
      (read) =>
        read.verb === verb &&
        read.resource.group === resource.group &&
        read.resource.plural === resource.plural,
    );
    if (!granted) {
      throw new Error(
        `${label} would ${verb} ${resource.plural}, which its module does not list and RBAC does not grant`,
      );
    }
  };
  return {
    async get(resource, object) {
      check("get", resource);
      return kube.get(resource, object);
    },
    async list(resource, namespace) {
      check("list", resource);
      return kube.list(resource, namespace);
    },
  };
}
