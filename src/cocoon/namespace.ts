import { type JsonPath, stringAt } from "../json/read";

const METADATA_NAMESPACE: JsonPath = ["metadata", "namespace"];

/**
 * The namespace the admission request names (always set for a namespaced
 * object), else the object's own, else the offline CLI's `--namespace`; "" is unset.
 */
export function namespaceOf(object: unknown, requested: string | undefined, fallback = ""): string {
  return requested || stringAt(object, METADATA_NAMESPACE) || fallback;
}
