import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  COMMON_REASONS,
  ENDPOINTS,
  endpointAt,
  HANDLER_LABELS,
  resultReasons,
} from "../../src/admission/endpoints";
import { RULE_CATALOGUE } from "../../src/rules/catalogue";

const REPO = join(import.meta.dir, "../..");

/** Every reason literal passed to skipped(), denied() or errored() anywhere in src/. */
function reasonLiteralsInSource(dir = join(REPO, "src")): Set<string> {
  const reasons = new Set<string>();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), "utf8");
    for (const [, reason = ""] of text.matchAll(/\b(?:skipped|denied|errored)\(\s*"([a-z_]+)"/g)) {
      reasons.add(reason);
    }
  }
  return reasons;
}

describe("the endpoint table", () => {
  test("paths and labels are unique, and each path maps back to its label", () => {
    const paths = HANDLER_LABELS.map((endpoint) => ENDPOINTS[endpoint].path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const endpoint of HANDLER_LABELS) {
      expect(endpointAt(ENDPOINTS[endpoint].path)).toBe(endpoint);
    }
    expect(endpointAt("/other")).toBeUndefined();
  });

  test("an endpoint's reasons are unique within each result", () => {
    for (const endpoint of HANDLER_LABELS) {
      const pairs = resultReasons(endpoint).map(({ result, reason }) => `${result}/${reason}`);
      expect(new Set(pairs).size, endpoint).toBe(pairs.length);
    }
  });

  test("every listed reason is given somewhere: a literal in a handler, or a catalogue rule's", () => {
    const given = reasonLiteralsInSource();
    for (const rule of RULE_CATALOGUE) given.add(rule.reason);
    for (const endpoint of HANDLER_LABELS) {
      for (const { reason } of resultReasons(endpoint)) {
        if (reason !== "") expect(given, `${endpoint}: ${reason}`).toContain(reason);
      }
    }
  });

  test("the CocoonSet and CocoonHibernation denials are exactly their catalogue rules' reasons", () => {
    const reasonsOf = (hibernation: boolean): Set<string> =>
      new Set(
        RULE_CATALOGUE.filter((rule) => rule.id.startsWith("hibernation.") === hibernation).map(
          (rule) => rule.reason,
        ),
      );
    expect(new Set<string>(ENDPOINTS.validate_cocoonset.reasons.deny)).toEqual(reasonsOf(false));
    expect(new Set<string>(ENDPOINTS.validate_cocoonhibernation.reasons.deny)).toEqual(
      reasonsOf(true),
    );
    expect(COMMON_REASONS.deny).toEqual([]);
  });

  test("README's endpoint list names exactly the table's admission paths", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const rows = [...readme.matchAll(/^\| admission \| `(\/[^`]*)` \| POST \|/gm)].map(
      ([, path]) => path,
    );
    expect(rows.length).toBeGreaterThan(0);
    const firstRow = readme.match(/^\| admission \(HTTPS\) \| `(\/[^`]*)` \| POST \|/m)?.[1];
    expect([firstRow, ...rows].sort()).toEqual(
      HANDLER_LABELS.map((endpoint) => ENDPOINTS[endpoint].path).sort(),
    );
  });
});
