import type { JsonObject } from "../json/read";
import type { ApiResource } from "../kube/api-resources";

/** One kind of apiserver call a decision makes: it becomes an RBAC rule of the webhook's role. */
export interface ApiserverRead {
  readonly verb: "get" | "list";
  readonly resource: ApiResource;
}

/**
 * Any call without an answer the rules can trust (unreachable, redirected, not the object asked
 * for, too large, an invalid name, no API configured): they fail closed on it.
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

/** The apiserver as the decisions see it: reads bounded by APISERVER_TIMEOUT, answers verified. */
export interface KubeApi {
  /** GET one object; `undefined` on the apiserver's own NotFound for it. Throws KubeApiError. */
  get<Fields extends JsonObject>(
    resource: ApiResource<Fields>,
    object: ObjectRef,
  ): Promise<Fields | undefined>;
  /** LIST `resource` in `namespace`, every page: the items. Throws KubeApiError. */
  list(resource: ApiResource, namespace: string): Promise<readonly JsonObject[]>;
}

export type ReadOutcome<T> =
  | { readonly ok: true; readonly answer: T }
  | { readonly ok: false; readonly failure: string };

// A KubeApiError becomes a failure the decision refuses the request over; anything else is a bug,
// answered as an internal error.
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

// Only the reads a module lists, which the generated RBAC role grants: any other is a bug,
// answered as an internal error.
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
