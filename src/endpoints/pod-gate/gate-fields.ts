import { cutShort } from "../../bounded-text";
import { isCocoonToleration, VM_ANNOTATION_PREFIX } from "../../cocoon/markers";
import { jsonEqual } from "../../json/equal";
import {
  absentIfMistyped,
  isJsonObject,
  type JsonObject,
  type JsonPath,
  valueAt,
} from "../../json/read";

// The gate fields of a VM-backed pod: what makes it a VM and which VM, who manages it and where it
// runs. Each is compared as the matchConditions compare it, absent or null reading as empty.

export const ANNOTATIONS: JsonPath = ["metadata", "annotations"];
export const TOLERATIONS: JsonPath = ["spec", "tolerations"];
export const OWNER_REFERENCES: JsonPath = ["metadata", "ownerReferences"];
export const NODE_NAME: JsonPath = ["spec", "nodeName"];

/** Gate fields compared whole, each with the value that absence and null read as. */
const WHOLE_FIELDS: readonly { readonly path: JsonPath; readonly empty: unknown }[] = [
  { path: OWNER_REFERENCES, empty: [] },
  { path: NODE_NAME, empty: "" },
  { path: ["spec", "nodeSelector"], empty: {} },
];

/** At most this many changed fields are named in a denial. */
const NAMED_FIELDS = 5;

function orEmpty(value: unknown, empty: unknown): unknown {
  return value === undefined || value === null ? empty : value;
}

/** The JSON path of each gate field `updated` changes from `stored`. */
export function changedGateFields(stored: unknown, updated: unknown): string[] {
  const changed = changedVmAnnotations(stored, updated);
  if (!jsonEqual(cocoonTolerations(stored), cocoonTolerations(updated))) {
    changed.push(TOLERATIONS.join("."));
  }
  for (const { path, empty } of WHOLE_FIELDS) {
    if (!jsonEqual(orEmpty(valueAt(stored, path), empty), orEmpty(valueAt(updated, path), empty))) {
      changed.push(path.join("."));
    }
  }
  return changed;
}

/** "a, b and 3 more": the changed fields a denial names. */
export function describeChangedFields(fields: readonly string[]): string {
  const named = fields.slice(0, NAMED_FIELDS);
  const more = fields.length - named.length;
  return more > 0 ? `${named.join(", ")} and ${more} more` : named.join(", ");
}

function changedVmAnnotations(stored: unknown, updated: unknown): string[] {
  const before = orEmpty(valueAt(stored, ANNOTATIONS), {});
  const after = orEmpty(valueAt(updated, ANNOTATIONS), {});
  if (!isJsonObject(before) || !isJsonObject(after)) {
    return jsonEqual(before, after) ? [] : [ANNOTATIONS.join(".")];
  }
  const changed: string[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!key.startsWith(VM_ANNOTATION_PREFIX)) continue;
    const path = `metadata.annotations["${cutShort(key)}"]`;
    const kept =
      Object.hasOwn(before, key) && Object.hasOwn(after, key) && jsonEqual(before[key], after[key]);
    if (!kept && !changed.includes(path)) changed.push(path);
  }
  return changed;
}

/** The tolerations keyed `virtual-kubelet.io/provider`, in order; a mistyped list as it is. */
function cocoonTolerations(pod: unknown): unknown {
  const tolerations = orEmpty(valueAt(pod, TOLERATIONS), []);
  if (!Array.isArray(tolerations)) return tolerations;
  return tolerations.filter(isCocoonToleration);
}

/**
 * The pod as a `pods/status` write leaves it: the apiserver keeps the stored spec and owner
 * references, so of the gate fields only the annotations can change.
 */
export function afterStatusWrite(stored: unknown, sent: unknown): unknown {
  if (!isJsonObject(stored)) return sent;
  return withAnnotations(stored, absentIfMistyped(valueAt(sent, ANNOTATIONS)));
}

/** The pod as a Binding leaves it: the apiserver copies the Binding's annotations onto it. */
export function afterBinding(stored: unknown, binding: unknown): unknown {
  const added = valueAt(binding, ANNOTATIONS);
  if (!isJsonObject(stored) || !isJsonObject(added)) return stored;
  const annotations = valueAt(stored, ANNOTATIONS);
  return withAnnotations(stored, { ...(isJsonObject(annotations) ? annotations : {}), ...added });
}

function withAnnotations(pod: JsonObject, annotations: unknown): JsonObject {
  const metadata = valueAt(pod, ["metadata"]);
  return { ...pod, metadata: { ...(isJsonObject(metadata) ? metadata : {}), annotations } };
}

/** Whether a Binding carries an annotation under `vm.cocoonstack.io/`, which it would copy onto its pod. */
export function bindingSetsVmAnnotations(binding: unknown): boolean {
  const annotations = valueAt(binding, ANNOTATIONS);
  return (
    isJsonObject(annotations) &&
    Object.keys(annotations).some((key) => key.startsWith(VM_ANNOTATION_PREFIX))
  );
}
