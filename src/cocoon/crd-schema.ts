import cocoonHibernationCrd from "../../manifests/crds/cocoonset.cocoonstack.io_cocoonhibernations.yaml";
import cocoonSetCrd from "../../manifests/crds/cocoonset.cocoonstack.io_cocoonsets.yaml";
import { isJsonObject, valueAt } from "../json/read";
import { COCOON_VERSION } from "./crd-resources";

// The CRDs' openAPIV3Schema, embedded at build time: the one statement of their fields and limits.

export interface SchemaNode {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly items?: SchemaNode;
  readonly additionalProperties?: SchemaNode;
  readonly enum?: readonly string[];
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly "x-kubernetes-int-or-string"?: true;
}

function openApiSchemaOf(crd: unknown): SchemaNode {
  const versions = valueAt(crd, ["spec", "versions"]);
  const served = Array.isArray(versions)
    ? versions.find((version) => isJsonObject(version) && version.name === COCOON_VERSION)
    : undefined;
  const schema = valueAt(served, ["schema", "openAPIV3Schema"]);
  if (!isJsonObject(schema)) {
    throw new Error(`an embedded CRD has no ${COCOON_VERSION} openAPIV3Schema`);
  }
  // Our own file, checked node by node by its tests: its shape is the schema's.
  return schema as SchemaNode;
}

export const COCOONSET_SCHEMA = openApiSchemaOf(cocoonSetCrd);
export const COCOONHIBERNATION_SCHEMA = openApiSchemaOf(cocoonHibernationCrd);

/** The node at `path` (property names; `[]` steps into list items); throws when the schema lacks it. */
export function schemaAt(schema: SchemaNode, path: readonly string[]): SchemaNode {
  let node: SchemaNode | undefined = schema;
  for (const step of path) {
    node = step === "[]" ? node?.items : node?.properties?.[step];
  }
  if (!node)
    throw new Error(`the embedded CRD schema has no ${path.join(".").replaceAll(".[]", "[]")}`);
  return node;
}
