import {
  COCOON_GROUP,
  COCOON_VERSION,
  COCOONHIBERNATION_KIND,
  COCOONHIBERNATIONS,
  COCOONSET_KIND,
} from "../../cocoon/crd-resources";
import { SANDBOX_OWNER } from "../../endpoints/pod-gate/creators";
import {
  type JsonObject,
  MISTYPED,
  type Read,
  readObject,
  readObjectList,
  readString,
} from "../../json/read";
import { type FieldsCheck, type MalformedField, mistypedAt } from "../../kube/answer-fields";
import {
  type ApiResource,
  DEPLOYMENTS,
  NODES,
  PODS,
  STATEFULSETS,
  workloadFields,
} from "../../kube/api-resources";

function readName(value: unknown): Read<string> {
  const name = readString(value);
  return name === "" ? MISTYPED : name;
}

function readStringMap(value: unknown): Read<JsonObject> {
  const map = readObject(value);
  if (map === undefined || map === MISTYPED) return map;
  for (const key in map) if (typeof map[key] !== "string") return MISTYPED;
  return map;
}

const NAME = "a non-empty string";

const identityProblem = (object: JsonObject, namespaced: boolean): MalformedField | undefined =>
  mistypedAt(object, ["metadata"], readObject, "an object", true) ??
  mistypedAt(object, ["metadata", "name"], readName, NAME, true) ??
  (namespaced ? mistypedAt(object, ["metadata", "namespace"], readName, NAME, true) : undefined);

/** The cocoon objects' other fields are the rules' to judge, as in the webhook. */
const namespacedIdentity: FieldsCheck = (object) => identityProblem(object, true) ?? object;

export const AUDITED_COCOONSETS = {
  group: COCOON_GROUP,
  version: COCOON_VERSION,
  kind: COCOONSET_KIND,
  plural: "cocoonsets",
  namespaced: true,
  fields: namespacedIdentity,
} as const satisfies ApiResource;

/** sandbox-operator's Sandboxes: listed only to resolve the owner references of their pods. */
export const AUDITED_SANDBOXES = {
  group: SANDBOX_OWNER.group,
  version: "v1beta1",
  kind: SANDBOX_OWNER.kind,
  plural: "sandboxes",
  namespaced: true,
  fields: namespacedIdentity,
} as const satisfies ApiResource;

/** The version sandbox-operator served before v1beta1, tried when v1beta1 is not served. */
export const AUDITED_SANDBOXES_V1ALPHA1 = {
  ...AUDITED_SANDBOXES,
  version: "v1alpha1",
} as const satisfies ApiResource;

export const AUDITED_HIBERNATIONS = {
  ...COCOONHIBERNATIONS,
  kind: COCOONHIBERNATION_KIND,
  fields: namespacedIdentity,
} as const satisfies ApiResource;

export const AUDITED_PODS = {
  ...PODS,
  fields: (object) =>
    identityProblem(object, true) ??
    mistypedAt(object, ["metadata", "annotations"], readStringMap, "an object of strings") ??
    mistypedAt(object, ["metadata", "ownerReferences"], readObjectList, "a list of objects") ??
    mistypedAt(object, ["metadata", "managedFields"], readObjectList, "a list of objects") ??
    mistypedAt(object, ["spec"], readObject, "an object", true) ??
    mistypedAt(object, ["spec", "nodeName"], readString, "a string") ??
    mistypedAt(object, ["spec", "tolerations"], readObjectList, "a list of objects") ??
    object,
} as const satisfies ApiResource;

export const AUDITED_NODES = {
  ...NODES,
  fields: (object) =>
    identityProblem(object, false) ??
    mistypedAt(object, ["spec", "taints"], readObjectList, "a list of objects") ??
    object,
} as const satisfies ApiResource;

const workloadItem: FieldsCheck = (object) =>
  identityProblem(object, true) ?? workloadFields(object);

export const AUDITED_DEPLOYMENTS = { ...DEPLOYMENTS, fields: workloadItem } as const;
export const AUDITED_STATEFULSETS = { ...STATEFULSETS, fields: workloadItem } as const;

/** Nodes, CocoonSets and Sandboxes before pods, whose checks need the VM nodes and the owners. */
export const AUDITED_RESOURCES = [
  AUDITED_NODES,
  AUDITED_COCOONSETS,
  AUDITED_SANDBOXES,
  AUDITED_HIBERNATIONS,
  AUDITED_PODS,
  AUDITED_DEPLOYMENTS,
  AUDITED_STATEFULSETS,
] as const;
