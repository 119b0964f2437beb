import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Violation } from "../../src/contract/violations";
import { RULE_CATALOGUE } from "../../src/endpoints";
import { cocoonSetViolations } from "../../src/endpoints/cocoonset/decide";
import { COCOONSET_CASES } from "./cases/cocoonset-cases";
import { HIBERNATION_CASES, hibernationCaseViolations } from "./cases/hibernation-cases";

const README = new URL("../../README.md", import.meta.url);
const BEGIN = "<!-- rules:begin -->";
const END = "<!-- rules:end -->";

function readmeRuleLines(): string[] {
  const readme = readFileSync(README, "utf8");
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  expect(start).toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(start);
  return readme
    .slice(start + BEGIN.length, end)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

interface Exercise {
  readonly name: string;
  readonly violations: () => Violation[];
}

/**
 * Every failing unit case, by the rule it is written for. The case tables are
 * typed by rule id, so a catalogue entry without cases does not compile.
 */
const FAILING_CASES = new Map<string, readonly Exercise[]>([
  ...Object.entries(COCOONSET_CASES).map(
    ([rule, cases]) =>
      [
        rule,
        cases.failing.map((each) => ({
          name: each.name,
          violations: () => cocoonSetViolations(each.object, each.namespace ?? "default") ?? [],
        })),
      ] as const,
  ),
  ...Object.entries(HIBERNATION_CASES).map(
    ([rule, cases]) =>
      [
        rule,
        cases.failing.map((each) => ({
          name: each.name,
          violations: () => hibernationCaseViolations(each),
        })),
      ] as const,
  ),
]);

describe("README validation rules", () => {
  test("lists exactly the rule catalogue, one line per rule", () => {
    const expected = RULE_CATALOGUE.map((rule) => `- ${rule.text}`);
    const listed = readmeRuleLines();
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...expected].sort());
  });

  test("catalogue ids and lines are unique", () => {
    const ids = RULE_CATALOGUE.map((rule) => rule.id);
    const texts = RULE_CATALOGUE.map((rule) => rule.text);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(texts).size).toBe(texts.length);
  });

  test("every rule's verdict reason is a denial docs/behaviour.md lists", () => {
    const behaviour = readFileSync(new URL("../../docs/behaviour.md", import.meta.url), "utf8");
    const denials = new Set(
      [...behaviour.matchAll(/\| deny \/ ([a-z_]+) \|$/gm)].map(([, reason]) => reason),
    );
    for (const rule of RULE_CATALOGUE) expect(denials, rule.id).toContain(rule.reason);
  });

  describe.each(RULE_CATALOGUE.map((rule) => [rule.id] as const))("rule %s", (id) => {
    test("has a failing unit case, and every one of them reports this rule", () => {
      const cases = FAILING_CASES.get(id) ?? [];
      expect(cases.length).toBeGreaterThan(0);
      for (const each of cases) {
        const rules = each.violations().map((violation) => violation.rule);
        expect({ case: each.name, reported: rules.includes(id) }).toEqual({
          case: each.name,
          reported: true,
        });
      }
    });
  });
});
