import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COMMON_REASONS } from "../../src/contract/verdict";
import { ENDPOINT_KEYS, ENDPOINTS, RULE_CATALOGUE, resultReasons } from "../../src/endpoints";

const REPO = join(import.meta.dir, "../..");

describe("the endpoint table", () => {
  test("paths and labels are unique", () => {
    const paths = ENDPOINT_KEYS.map((endpoint) => ENDPOINTS[endpoint].path);
    expect(new Set(paths).size).toBe(paths.length);
    const labels = ENDPOINT_KEYS.map((endpoint) => ENDPOINTS[endpoint].label);
    expect(new Set(labels).size).toBe(labels.length);
  });

  test("an endpoint's reasons are unique within each result", () => {
    for (const endpoint of ENDPOINT_KEYS) {
      const pairs = resultReasons(endpoint).map(({ result, reason }) => `${result}/${reason}`);
      expect(new Set(pairs).size, endpoint).toBe(pairs.length);
    }
  });

  test("every catalogue rule belongs to exactly one endpoint, whose denials are its rules' reasons", () => {
    const owners = (reason: string) =>
      ENDPOINT_KEYS.filter((endpoint) =>
        (ENDPOINTS[endpoint].reasons.deny as readonly string[]).includes(reason),
      );
    for (const rule of RULE_CATALOGUE) expect(owners(rule.reason), rule.id).toHaveLength(1);
    const ruleEndpoints = ENDPOINT_KEYS.filter((endpoint) =>
      RULE_CATALOGUE.some((rule) => owners(rule.reason)[0] === endpoint),
    );
    expect(ruleEndpoints.length).toBeGreaterThan(0);
    for (const endpoint of ruleEndpoints) {
      const ruleReasons = RULE_CATALOGUE.filter((rule) => owners(rule.reason)[0] === endpoint).map(
        (rule) => rule.reason,
      );
      expect(new Set<string>(ENDPOINTS[endpoint].reasons.deny)).toEqual(new Set(ruleReasons));
    }
    expect(COMMON_REASONS.deny).toEqual([]);
  });
});

const README = readFileSync(join(REPO, "README.md"), "utf8");
const BEHAVIOUR = readFileSync(join(REPO, "docs/behaviour.md"), "utf8");
const PATHS = ENDPOINT_KEYS.map((endpoint) => ENDPOINTS[endpoint].path);

/** The admission paths of a listeners table: rows `| admission… | `/path` | POST |`. */
function admissionRows(markdown: string): string[] {
  return [...markdown.matchAll(/^\| admission[^|]* \| `(\/[^`]*)` \| POST \|/gm)].map(
    ([, path = ""]) => path,
  );
}

describe("the documentation follows the endpoint table", () => {
  test("README's and the behaviour page's listener tables name exactly the table's paths", () => {
    for (const markdown of [README, BEHAVIOUR]) {
      expect(admissionRows(markdown).sort()).toEqual([...PATHS].sort());
    }
  });

  test("each endpoint's section of the behaviour page tells every result and reason it can give", () => {
    for (const endpoint of ENDPOINT_KEYS) {
      const { path } = ENDPOINTS[endpoint];
      const start = BEHAVIOUR.search(new RegExp(`^## .*\\(\`${path}\`\\)$`, "m"));
      expect(start, `a section for ${path}`).toBeGreaterThan(-1);
      const rest = BEHAVIOUR.slice(start + 3);
      const section = rest.slice(0, rest.search(/^## /m) === -1 ? undefined : rest.search(/^## /m));
      const told = new Set(
        [...section.matchAll(/\| (allow|skipped|deny|error) \/ ([a-z_]+|\(empty\)) \|/g)].map(
          ([, result, reason]) => `${result} / ${reason}`,
        ),
      );
      const expected = resultReasons(endpoint)
        // A handler that throws is told once, for every endpoint, under "Results and reasons",
        // and warn mode's results (each deny and error reason again) once under "Warn mode".
        .filter(({ result, reason }) => !(result === "error" && reason === "internal"))
        .filter(({ result }) => result !== "warn")
        .map(({ result, reason }) => `${result} / ${reason || "(empty)"}`);
      expect([...told].sort(), path).toEqual(expected.sort());
    }
  });
});
