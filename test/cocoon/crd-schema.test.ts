import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { COCOONHIBERNATION_KIND, COCOONSET_KIND } from "../../src/cocoon/crd-resources";
import {
  COCOONHIBERNATION_SCHEMA,
  COCOONSET_SCHEMA,
  type SchemaNode,
  schemaAt,
} from "../../src/cocoon/crd-schema";

const MANIFESTS_CRDS = join(import.meta.dir, "../../manifests/crds");

/** The v1 openAPIV3Schema of each CRD in `directory`, by kind. */
function schemasIn(directory: string): Map<string, unknown> {
  const schemas = new Map<string, unknown>();
  for (const file of readdirSync(directory).filter((name) => /\.ya?ml$/.test(name))) {
    const crd = parse(readFileSync(join(directory, file), "utf8"));
    if (crd?.kind !== "CustomResourceDefinition") continue;
    const v1 = crd.spec.versions.find((version: { name: string }) => version.name === "v1");
    schemas.set(crd.spec.names.kind, v1?.schema?.openAPIV3Schema);
  }
  return schemas;
}

const FACTS = [
  "type",
  "enum",
  "default",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "required",
  "x-kubernetes-int-or-string",
] as const;

/** What a schema states of each field, `path key value`, without descriptions and CEL spelling. */
function factsOf(node: unknown, at = ""): string[] {
  if (node === null || typeof node !== "object") return [];
  const schema = node as Record<string, unknown>;
  const own = FACTS.filter((key) => key in schema).map(
    (key) => `${at} ${key} ${JSON.stringify(schema[key])}`,
  );
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  return [
    ...own,
    ...Object.entries(properties).flatMap(([name, child]) => factsOf(child, `${at}.${name}`)),
    ...factsOf(schema.items, `${at}[]`),
    ...factsOf(schema.additionalProperties, `${at}.*`),
  ].sort();
}

describe("the CRD schema embedded in the binary", () => {
  test("is the one manifests/crds holds", () => {
    const onDisk = schemasIn(MANIFESTS_CRDS);
    expect(COCOONSET_SCHEMA).toEqual(onDisk.get(COCOONSET_KIND) as SchemaNode);
    expect(COCOONHIBERNATION_SCHEMA).toEqual(onDisk.get(COCOONHIBERNATION_KIND) as SchemaNode);
  });

  test("an agent and a toolbox share their VM option enums and defaults, as the rules assume", () => {
    for (const field of ["os", "backend", "connType"]) {
      const agent = schemaAt(COCOONSET_SCHEMA, ["spec", "agent", field]);
      const toolbox = schemaAt(COCOONSET_SCHEMA, ["spec", "toolboxes", "[]", field]);
      expect([field, toolbox.enum, toolbox.default]).toEqual([field, agent.enum, agent.default]);
    }
  });

  test("a path the schema lacks is named, not read as undefined", () => {
    expect(() => schemaAt(COCOONSET_SCHEMA, ["spec", "agent", "imgae"])).toThrow(
      "the embedded CRD schema has no spec.agent.imgae",
    );
  });

  test("the comparison with the operator's CRDs sees a drift", () => {
    const changed = structuredClone(COCOONSET_SCHEMA) as { properties: { spec: SchemaNode } };
    const spec = changed.properties.spec as { properties: Record<string, SchemaNode> };
    spec.properties.newField = { type: "string" };
    expect(factsOf(changed)).not.toEqual(factsOf(COCOONSET_SCHEMA));
    expect(factsOf(changed)).toContain('.spec.newField type "string"');
  });

  /*
   * Set COCOON_CRD_DIR to the operator's CRD directory (cocoon-common's
   * apis/v1/crds) to check that manifests/crds states what the operator's
   * CRDs state, field by field.
   */
  const operatorDirectory = process.env.COCOON_CRD_DIR;
  test.skipIf(operatorDirectory === undefined).each([COCOONSET_KIND, COCOONHIBERNATION_KIND])(
    "%s states what the operator's CRD states",
    (kind) => {
      const operator = schemasIn(operatorDirectory ?? MANIFESTS_CRDS).get(kind);
      expect(factsOf(schemasIn(MANIFESTS_CRDS).get(kind))).toEqual(factsOf(operator));
    },
  );
});
