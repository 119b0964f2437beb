import { type JsonPath, stringAt } from "../json/read";

const METADATA_NAMESPACE: JsonPath = ["metadata", "namespace"];

/** The request's namespace (set for a namespaced object), else the object's, else `--namespace`. */
export function namespaceOf(object: unknown, requested: string | undefined, fallback = ""): string {
  return requested || stringAt(object, METADATA_NAMESPACE) || fallback;
}
