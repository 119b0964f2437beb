import { KubeApiError } from "../contract/reads";

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
