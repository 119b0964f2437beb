import { isJsonObject } from "../json";
import { KubeApiError } from "./port";

export const NODES_RESOURCE = "nodes";
export const PODS_RESOURCE = "pods";

/** What a GET asked for: the answer must be exactly this object. */
export interface ExpectedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** Absent for a cluster-scoped object. */
  readonly namespace?: string;
}

/**
 * A 2xx body is trusted only when it is the object that was asked for: any
 * other JSON object (a Status, `{}`, another kind or name) would otherwise be
 * read as an object without taints or markers and open the gate. Throws a
 * KubeApiError naming the first mismatch, so the caller fails closed.
 */
export function requireAnsweredObject(
  operation: string,
  status: number,
  object: Record<string, unknown>,
  expected: ExpectedObject,
): Record<string, unknown> {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  const mismatch = (field: string, got: unknown, want: string | undefined) =>
    new KubeApiError(
      `${operation}: apiserver answered ${status} with ${field} ${JSON.stringify(got ?? null)}, expected ${JSON.stringify(want ?? null)}`,
      status,
    );
  if (object.apiVersion !== expected.apiVersion)
    throw mismatch("apiVersion", object.apiVersion, expected.apiVersion);
  if (object.kind !== expected.kind) throw mismatch("kind", object.kind, expected.kind);
  if (metadata.name !== expected.name)
    throw mismatch("metadata.name", metadata.name, expected.name);
  const namespace = metadata.namespace === "" ? undefined : metadata.namespace;
  if (namespace !== expected.namespace)
    throw mismatch("metadata.namespace", metadata.namespace, expected.namespace);
  return object;
}
