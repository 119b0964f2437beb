import { z } from "zod";
import { jsonObjectList } from "../json/read";

/**
 * A kind of object the webhook reads from the apiserver: where it lives in
 * the API, and the fields its readers use, typed strictly. A mistyped field
 * there means the answer is not a real object of that kind, which must fail
 * closed rather than read as absent. `plural` is the resource as URLs, RBAC
 * rules and the call metrics name it.
 */
export interface ApiResource<Fields extends z.ZodType = z.ZodType> {
  /** "" for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly fields: Fields;
}

/** `apps/v1`, or `v1` for the core group. */
export function apiVersionOf({ group, version }: ApiResource): string {
  return group ? `${group}/${version}` : version;
}

/** The group of an apiVersion: `apps` of `apps/v1`, "" (the core group) of `v1`. */
export function apiGroupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash === -1 ? "" : apiVersion.slice(0, slash);
}

/** The URL path of `resource`'s collection, in `namespace` when it is namespaced. */
export function collectionPath(resource: ApiResource, namespace?: string): string {
  const base = resource.group ? `/apis/${resource.group}/${resource.version}` : "/api/v1";
  const scope = namespace === undefined ? "" : `/namespaces/${namespace}`;
  return `${base}${scope}/${resource.plural}`;
}

/** An object read as a whole: its readers judge each field themselves and fail closed on what they cannot read. */
export const anyObjectFields = z.looseObject({});

/**
 * What the scale guard reads of a parent workload: the replica count and
 * the pod template's tolerations.
 */
export const workloadFields = z.looseObject({
  spec: z
    .looseObject({
      replicas: z.int().nullish(),
      template: z
        .looseObject({
          spec: z.looseObject({ tolerations: jsonObjectList.nullish() }).nullish(),
        })
        .nullish(),
    })
    .nullish(),
});

export type WorkloadFields = z.output<typeof workloadFields>;

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
  fields: anyObjectFields,
} as const satisfies ApiResource;

export const PODS = {
  ...NODES,
  kind: "Pod",
  plural: "pods",
  namespaced: true,
} as const satisfies ApiResource;
