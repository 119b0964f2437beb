import { type JsonObject, readInt, readObjectList } from "../json/read";
import { anyFields, type FieldsCheck, mistypedAt } from "./answer-fields";

/** A kind of object the webhook reads from the apiserver, with the check of the fields its readers use. */
export interface ApiResource<Fields extends JsonObject = JsonObject> {
  /** "" for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly fields: FieldsCheck<Fields>;
}

export function apiVersionOf({ group, version }: ApiResource): string {
  return group ? `${group}/${version}` : version;
}

/** The group of an apiVersion: `apps` of `apps/v1`, "" (the core group) of `v1`. */
export function apiGroupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash === -1 ? "" : apiVersion.slice(0, slash);
}

export function collectionPath(resource: ApiResource, namespace?: string): string {
  const base = resource.group ? `/apis/${resource.group}/${resource.version}` : "/api/v1";
  const scope = namespace === undefined ? "" : `/namespaces/${namespace}`;
  return `${base}${scope}/${resource.plural}`;
}

/** What the scale guard reads of a parent workload, each field absent, null or of its type. */
export interface WorkloadFields extends JsonObject {
  readonly spec?: {
    readonly replicas?: number | null;
    readonly template?: {
      readonly spec?: { readonly tolerations?: readonly JsonObject[] | null } | null;
    } | null;
  } | null;
}

const REPLICAS = ["spec", "replicas"] as const;
const TEMPLATE_TOLERATIONS = ["spec", "template", "spec", "tolerations"] as const;

export const workloadFields: FieldsCheck<WorkloadFields> = (object) =>
  mistypedAt(object, REPLICAS, readInt, "a whole number") ??
  mistypedAt(object, TEMPLATE_TOLERATIONS, readObjectList, "a list of objects") ??
  (object as WorkloadFields);

export const DEPLOYMENTS = {
  group: "apps",
  version: "v1",
  kind: "Deployment",
  plural: "deployments",
  namespaced: true,
  fields: workloadFields,
} as const satisfies ApiResource;

export const STATEFULSETS = {
  ...DEPLOYMENTS,
  kind: "StatefulSet",
  plural: "statefulsets",
} as const satisfies ApiResource;

export const NODES = {
  group: "",
  version: "v1",
  kind: "Node",
  plural: "nodes",
  namespaced: false,
  fields: anyFields,
} as const satisfies ApiResource;

export const PODS = {
  ...NODES,
  kind: "Pod",
  plural: "pods",
  namespaced: true,
} as const satisfies ApiResource;
