import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import {
  agentMode,
  connType,
  guestOs,
  hibernatePolicy,
  hibernationDesire,
  snapshotPolicy,
  toolboxMode,
  vmBackend,
} from "../../src/cocoon/crd-enums";
import {
  COCOONHIBERNATION_FIELDS,
  COCOONSET_FIELDS,
  COCOONSET_SPEC_FIELDS,
  type FieldNode,
} from "../../src/cocoon/crd-fields";
import { COCOONHIBERNATION_KIND, COCOONSET_KIND } from "../../src/cocoon/crd-resources";
import { isJsonObject } from "../../src/json/read";

/**
 * The field tree must define exactly the fields of the operator's CRDs. By
 * default the structural copies in test/fixtures/crds/ are read; set
 * COCOON_CRD_DIR to the operator's own CRD directory to compare with that.
 */
const CRD_DIR = process.env.COCOON_CRD_DIR ?? join(import.meta.dir, "../fixtures/crds");

interface CrdSchema {
  readonly kind: string;
  readonly openAPIV3Schema: unknown;
}

function crdSchemas(): CrdSchema[] {
  return readdirSync(CRD_DIR)
    .filter((file) => /\.ya?ml$/.test(file))
    .flatMap((file) => parseAllDocuments(readFileSync(join(CRD_DIR, file), "utf8")))
    .map((document) => document.toJS() as unknown)
    .flatMap((crd) => {
      if (!isJsonObject(crd) || crd.kind !== "CustomResourceDefinition") return [];
      const spec = crd.spec as { names: { kind: string }; versions: unknown[] };
      const v1 = spec.versions.find((version) => isJsonObject(version) && version.name === "v1");
      const schema = isJsonObject(v1) && isJsonObject(v1.schema) ? v1.schema : {};
      return [{ kind: spec.names.kind, openAPIV3Schema: schema.openAPIV3Schema }];
    });
}

/** The tree an openAPIV3Schema describes, in the same terms as src/cocoon/crd-fields.ts. */
function treeOf(schema: unknown): FieldNode {
  if (!isJsonObject(schema)) return { type: "scalar" };
  if (schema["x-kubernetes-preserve-unknown-fields"] === true || schema.additionalProperties) {
    return { type: "map" };
  }
  if (schema.type === "array") return { type: "list", items: treeOf(schema.items) };
  if (schema.type === "object" && isJsonObject(schema.properties)) {
    const fields = Object.entries(schema.properties).map(([name, field]) => [name, treeOf(field)]);
    return { type: "object", fields: Object.fromEntries(fields) };
  }
  return { type: schema.type === "object" ? "map" : "scalar" };
}

/** Every path of a tree, `spec.toolboxes[].name: scalar`, in a stable order. */
function pathsOf(node: FieldNode, at = ""): string[] {
  switch (node.type) {
    case "object":
      return Object.entries(node.fields)
        .flatMap(([name, field]) => pathsOf(field, at ? `${at}.${name}` : name))
        .sort();
    case "list":
      return pathsOf(node.items, `${at}[]`);
    default:
      return [`${at}: ${node.type}`];
  }
}

/** A CRD cannot declare metadata fields: the apiserver applies ObjectMeta itself. */
function withoutMetadata(node: FieldNode): string[] {
  return pathsOf(node).filter((path) => !path.startsWith("metadata"));
}

describe("the CRD field tree", () => {
  const schemas = crdSchemas();

  test.each([
    [COCOONSET_KIND, COCOONSET_FIELDS],
    [COCOONHIBERNATION_KIND, COCOONHIBERNATION_FIELDS],
  ])("%s: every field the CRD defines, and no other", (kind, fields) => {
    const crd = schemas.find((schema) => schema.kind === kind);
    expect(crd).toBeDefined();
    expect(withoutMetadata(fields)).toEqual(withoutMetadata(treeOf(crd?.openAPIV3Schema)));
  });

  test("the comparison sees a drift: a field the tree lacks, a map read as an object", () => {
    const crd = schemas.find((schema) => schema.kind === COCOONSET_KIND);
    const schema = structuredClone(crd?.openAPIV3Schema) as {
      properties: { spec: { properties: Record<string, unknown> } };
    };
    schema.properties.spec.properties.newField = { type: "string" };
    expect(withoutMetadata(treeOf(schema))).toContain("spec.newField: scalar");
    expect(withoutMetadata(COCOONSET_FIELDS)).not.toContain("spec.newField: scalar");
    expect(withoutMetadata(COCOONSET_FIELDS)).toContain("spec.agent.resources.limits: map");
  });

  test("metadata holds the standard ObjectMeta fields; labels and annotations take any key", () => {
    expect(pathsOf(COCOONSET_FIELDS).filter((path) => path.startsWith("metadata."))).toContain(
      "metadata.labels: map",
    );
    expect(pathsOf(COCOONHIBERNATION_FIELDS)).toContain("metadata.ownerReferences[].uid: scalar");
  });
});

/** The `enum` of the schema at `path` (property names; `[]` steps into list items). */
function enumAt(schema: unknown, path: string[]): unknown {
  let node = schema;
  for (const step of path) {
    if (!isJsonObject(node)) return undefined;
    node =
      step === "[]"
        ? node.items
        : isJsonObject(node.properties)
          ? node.properties[step]
          : undefined;
  }
  return isJsonObject(node) ? node.enum : undefined;
}

describe("the enumerated values the rules allow", () => {
  const schemas = crdSchemas();
  const schemaOf = (kind: string) =>
    schemas.find((schema) => schema.kind === kind)?.openAPIV3Schema;

  test.each<[string, string[], { options: readonly string[] }]>([
    [COCOONSET_KIND, ["spec", "agent", "mode"], agentMode],
    [COCOONSET_KIND, ["spec", "agent", "os"], guestOs],
    [COCOONSET_KIND, ["spec", "agent", "backend"], vmBackend],
    [COCOONSET_KIND, ["spec", "agent", "connType"], connType],
    [COCOONSET_KIND, ["spec", "toolboxes", "[]", "mode"], toolboxMode],
    [COCOONSET_KIND, ["spec", "toolboxes", "[]", "os"], guestOs],
    [COCOONSET_KIND, ["spec", "toolboxes", "[]", "backend"], vmBackend],
    [COCOONSET_KIND, ["spec", "toolboxes", "[]", "connType"], connType],
    [COCOONSET_KIND, ["spec", "snapshotPolicy"], snapshotPolicy],
    [COCOONSET_KIND, ["spec", "hibernatePolicy"], hibernatePolicy],
    [COCOONHIBERNATION_KIND, ["spec", "desire"], hibernationDesire],
  ])("%s %p are the CRD's enum", (kind, path, allowed) => {
    expect([...allowed.options].sort()).toEqual(
      [...((enumAt(schemaOf(kind), path) as string[] | undefined) ?? [])].sort(),
    );
  });
});

/**
 * Each scalar of the CocoonSet spec and what the Go types read for it when
 * absent, as `path: type zero`, next to what the CRD's schema says of its type.
 */
function goTypesAgainstSchema(node: FieldNode, schema: unknown, at: string): string[] {
  const field = isJsonObject(schema) ? schema : {};
  switch (node.type) {
    case "object": {
      const properties = isJsonObject(field.properties) ? field.properties : {};
      return Object.entries(node.fields).flatMap(([name, child]) =>
        goTypesAgainstSchema(child, properties[name], `${at}.${name}`),
      );
    }
    case "list":
      return goTypesAgainstSchema(node.items, field.items, `${at}[]`);
    case "map":
      return node.values
        ? goTypesAgainstSchema(node.values, field.additionalProperties, `${at}.*`)
        : [];
    default: {
      const schemaType =
        field["x-kubernetes-int-or-string"] === true ? "quantity" : String(field.type);
      const goType = node.quantity
        ? "quantity"
        : node.zero === undefined
          ? "pointer"
          : typeof node.zero;
      return [`${at}: ${schemaType} as ${goType}`];
    }
  }
}

test("the spec's Go value fields have the zero value of the CRD's type", () => {
  const schema = crdSchemas().find(({ kind }) => kind === COCOONSET_KIND)?.openAPIV3Schema;
  const spec =
    isJsonObject(schema) && isJsonObject(schema.properties) ? schema.properties.spec : {};
  const fields = goTypesAgainstSchema(COCOONSET_SPEC_FIELDS, spec, "spec");
  const expected = {
    boolean: "boolean",
    integer: "number",
    string: "string",
    quantity: "quantity",
  };
  const mismatched = fields.filter((line) => {
    const [, schemaType = "", goType = ""] = /: (\S+) as (\S+)$/.exec(line) ?? [];
    // Pointers (storage, envFrom's references and optional) have no zero: any schema type.
    return goType !== "pointer" && expected[schemaType as keyof typeof expected] !== goType;
  });
  expect(mismatched).toEqual([]);
  expect(fields.filter((line) => line.endsWith("as pointer")).sort()).toEqual([
    "spec.agent.envFrom[].configMapRef.optional: boolean as pointer",
    "spec.agent.envFrom[].secretRef.optional: boolean as pointer",
  ]);
});
