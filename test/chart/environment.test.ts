/*
 * The chart's hand-kept schema and templates against the binary's own
 * configuration: every variable start-up reads can be set, the template's
 * integer check uses the patterns of start-up's own schema (which `make chart`
 * writes into values.schema.json, test/chart/files.test.ts), and
 * `enforcement` has exactly the endpoint table's endpoints.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { environmentValuesSchema, FIXED_ENVIRONMENT } from "../../scripts/chart-environment";
import { CHART_DIR } from "../../scripts/chart-files";
import { ENVIRONMENT_VARIABLES } from "../../src/config";
import { ENDPOINT_KEYS } from "../../src/endpoints";
import { ENFORCEMENT_ACTIONS, enforcementName } from "../../src/endpoints/enforcement";

type Json = Record<string, unknown>;

const CHART = join(import.meta.dir, "../..", CHART_DIR);
const template = (name: string) => readFileSync(join(CHART, "templates", name), "utf8");
const schema = JSON.parse(readFileSync(join(CHART, "values.schema.json"), "utf8")) as {
  properties: Record<string, { properties: Record<string, Json> }>;
};

describe("the chart's environment and start-up's", () => {
  // Their order is the manifests' (the comparison with kustomize holds it).
  test("the Deployment writes every variable start-up reads", () => {
    const listed = /range \$name := list ((?:"[A-Z_]+" ?)+)/.exec(template("deployment.yaml"));
    const names = [...(listed?.[1] ?? "").matchAll(/"([A-Z_]+)"/g)].map((match) => match[1]);
    expect(names.sort()).toEqual(
      ENVIRONMENT_VARIABLES.filter((name) => !FIXED_ENVIRONMENT.includes(name)).sort(),
    );
  });

  test("the template checks integers against the schema's own patterns", () => {
    const line = /\$patterns := dict (.*) -\}\}/.exec(template("_helpers.tpl"))?.[1] ?? "";
    const strings = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(
      (match) => JSON.parse(`"${match[1]}"`) as string,
    );
    const patterns = Object.fromEntries(
      strings.flatMap((text, index) =>
        index % 2 === 0 ? [[text, strings[index + 1] as string]] : [],
      ),
    );
    const expected = Object.fromEntries(
      Object.entries(environmentValuesSchema())
        .filter(([, each]) => typeof each.pattern === "string")
        .map(([name, each]) => [name, String(each.pattern)]),
    );
    expect(patterns).toEqual(expected);
  });

  test("enforcement has the endpoint table's endpoints, each deny or warn, in its order", () => {
    const endpoints = ENDPOINT_KEYS.map(enforcementName);
    const enforcement = schema.properties.enforcement?.properties ?? {};
    expect(Object.keys(enforcement)).toEqual(endpoints);
    for (const each of Object.values(enforcement))
      expect(each.enum).toEqual([...ENFORCEMENT_ACTIONS]);
    const listed = /range \$endpoint := list ((?:"[a-z-]+" ?)+)/.exec(template("_helpers.tpl"));
    expect([...(listed?.[1] ?? "").matchAll(/"([a-z-]+)"/g)].map((match) => match[1])).toEqual(
      endpoints,
    );
  });
});
