import { expect } from "bun:test";
import type { Verdict } from "../../src/contract/verdict";
import type { EndpointKey } from "../../src/endpoints";
import {
  enforce,
  MESSAGE_PREFIX,
  remediesOf,
  WARNING_MAX_CHARACTERS,
  warningsOf,
} from "../../src/http/review-answer";

/**
 * Checks what warn mode answers for `verdict` (a refusal of `endpoint`) as
 * kubectl shows it, a warning's first WARNING_MAX_CHARACTERS characters:
 * each warning of a violation leads with its rule id, the rule's remedy and
 * the violation's path, whole; a refusal that names no violation with its
 * reason and the reason's remedy, whole, before the explanation.
 */
export function expectWarningsLeadWithRemedy(endpoint: EndpointKey, verdict: Verdict): void {
  if (verdict.allowed) throw new Error(`expected a refusal, got ${verdict.result}`);
  const decision = enforce(verdict, "warn", remediesOf(endpoint));
  if (decision.result !== "warn") throw new Error("warn mode did not warn");
  const shown = warningsOf(decision).map((warning) =>
    [...warning].slice(0, WARNING_MAX_CHARACTERS).join(""),
  );
  const listed = decision.violations.listed;
  if (listed.length === 0) {
    const lead = `${MESSAGE_PREFIX}${decision.reason}: ${decision.remedy}. `;
    expect(decision.remedy.length).toBeGreaterThan(0);
    expect(shown[0]?.startsWith(lead), `${shown[0]} leads with ${lead}`).toBeTrue();
    return;
  }
  listed.forEach((violation, index) => {
    const remedy = decision.ruleRemedies[violation.rule] ?? "";
    const lead = `${MESSAGE_PREFIX}${violation.rule}: ${remedy}. ${violation.path}: `;
    expect(remedy.length, violation.rule).toBeGreaterThan(0);
    expect(shown[index]?.startsWith(lead), `${shown[index]} leads with ${lead}`).toBeTrue();
  });
}
