import { type JsonPath, stringAt } from "../json/read";

const METADATA_NAMESPACE: JsonPath = ["metadata", "namespace"];

/**
 * The namespace a namespaced object lives in: the one its admission request
 * names (the apiserver always sets it for a namespaced object), else the
 * object's own `metadata.namespace`, else `fallback` (the offline CLI's
 * `--namespace`). An empty string counts as unset.
 */
export function namespaceOf(object: unknown, requested: string | undefined, fallback = ""): string {
  return requested || stringAt(object, METADATA_NAMESPACE) || fallback;
}
