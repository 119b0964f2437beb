import type { SchemaNode } from "../../cocoon/crd-schema";
import type { PathSegment, PathSegments } from "../../json/path";
import { isJsonObject } from "../../json/read";
import { closestMatch } from "../did-you-mean";

export interface UnknownField {
  readonly segments: PathSegments;
  readonly key: string;
  readonly suggestion: string | undefined;
}

const ANY: SchemaNode = {};
const FREE_KEYS: SchemaNode = { type: "object", additionalProperties: ANY };
const objectOf = (properties: Record<string, SchemaNode>): SchemaNode => ({
  type: "object",
  properties,
});
const listOf = (items: SchemaNode): SchemaNode => ({ type: "array", items });
const leaves = (...names: string[]) => Object.fromEntries(names.map((name) => [name, ANY]));

/** Kubernetes' ObjectMeta, which the apiserver applies itself and a CRD's schema cannot state. */
const OBJECT_META = objectOf({
  ...leaves(
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "finalizers",
  ),
  labels: FREE_KEYS,
  annotations: FREE_KEYS,
  ownerReferences: listOf(
    objectOf(leaves("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")),
  ),
  managedFields: listOf(
    objectOf({
      ...leaves("manager", "operation", "apiVersion", "time", "fieldsType", "subresource"),
      fieldsV1: FREE_KEYS,
    }),
  ),
});

export function withObjectMeta(schema: SchemaNode): SchemaNode {
  return { ...schema, properties: { ...schema.properties, metadata: OBJECT_META } };
}

/**
 * Keys inside maps (labels, resource limits) are the user's own and never reported; a value of
 * the wrong type is left to the rules that read it.
 */
export function unknownFields(
  value: unknown,
  schema: SchemaNode,
  at: readonly PathSegment[] = [],
): UnknownField[] {
  const { items, properties } = schema;
  if (items && Array.isArray(value)) {
    return value.flatMap((item, index) => unknownFields(item, items, [...at, index]));
  }
  if (!properties || !isJsonObject(value)) return [];
  return Object.entries(value).flatMap(([key, field]) => {
    const known = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (known) return unknownFields(field, known, [...at, key]);
    const suggestion = closestMatch(key, Object.keys(properties));
    return [{ segments: [...at, key], key, suggestion }];
  });
}
