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
import Ajv from "ajv";
import { environmentValuesSchema, FIXED_ENVIRONMENT } from "../../scripts/chart-environment";
import { CHART_DIR } from "../../scripts/chart-files";
import { ENVIRONMENT_VARIABLES, environmentJsonSchema } from "../../src/config";
import { ENDPOINT_KEYS } from "../../src/endpoints";
import { ENFORCEMENT_ACTIONS, enforcementName } from "../../src/endpoints/enforcement";
import { startupAccepts } from "./render";

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

  describe("the listen addresses, which the chart writes from `ports`", () => {
    const ajv = new Ajv({ strict: false });
    const addresses = [
      ...[":8443", "0.0.0.0:8443", "127.0.0.1:9090", "[::1]:9443", "[::]:1", " :80 ", ":0"],
      ...[":65535", ":08443", "localhost:8443", "8443", ":", ":65536", ":99999", ":000001"],
      ...["a:b:80", "[::1:80", "::1:80", ":8443x", ":-1", ":1.5", "[]:80", "host:"],
    ];

    test.each(["LISTEN_ADDR", "METRICS_ADDR"])(
      "%s: start-up's JSON Schema accepts exactly the texts start-up accepts",
      (name) => {
        const { properties } = environmentJsonSchema() as { properties: Record<string, Json> };
        const validate = ajv.compile({ ...properties[name], default: undefined });
        const disagreements = addresses.filter(
          (text) => validate(text) !== startupAccepts(name, text),
        );
        expect(disagreements).toEqual([]);
      },
    );

    test.each([
      ["admission", "LISTEN_ADDR"],
      ["metrics", "METRICS_ADDR"],
    ])("a ports.%s the schema accepts gives a %s start-up accepts", (port, name) => {
      const validate = ajv.compile(schema.properties.ports?.properties[port] ?? {});
      const candidates = [-1, 0, 1, 8443, 65535, 65536, 100_000, 1.5];
      const accepted = candidates.filter((each) => validate(each));
      expect(accepted).toEqual([1, 8443, 65535]);
      for (const each of accepted) expect(startupAccepts(name, `:${each}`)).toBe(true);
      for (const each of [65536, 100_000, 1.5])
        expect(startupAccepts(name, `:${each}`)).toBe(false);
    });
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
