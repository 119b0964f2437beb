import { describe, expect, test } from "bun:test";
import { allowed, denied, errored, skipped, type Warned } from "../../src/contract/verdict";
import {
  collectViolations,
  LISTED_VIOLATIONS_LIMIT,
  violation,
} from "../../src/contract/violations";
import { ENDPOINTS, RULE_REMEDIES } from "../../src/endpoints";
import {
  AUDIT_VALUE_MAX_CHARACTERS,
  encodeResponse,
  enforce,
  LISTED_WARNINGS_LIMIT,
  remediesOf,
  WARNING_MAX_CHARACTERS,
  warningsOf,
} from "../../src/http/review-answer";

const warned = (verdict: Parameters<typeof enforce>[0]): Warned => {
  const decision = enforce(verdict, "warn", remediesOf("podGate"));
  if (decision.result !== "warn") throw new Error("not warned");
  return decision;
};

const toolboxViolations = (count: number, rule = "toolbox.image-required") =>
  collectViolations((report) => {
    for (let index = 0; index < count; index++) {
      report(rule, () => violation(rule, ["spec", "toolboxes", index, "image"], "is required"));
    }
  }, LISTED_VIOLATIONS_LIMIT);

describe("warnings", () => {
  test("a denial without violations is one warning: its reason, its remedy, then its message", () => {
    expect(warningsOf(warned(denied("not_owned", "pod a/b has no CocoonSet owner")))).toEqual([
      `cocoon-webhook: not_owned: ${ENDPOINTS.podGate.remedies.not_owned}. pod a/b has no CocoonSet owner`,
    ]);
  });

  test(`at most ${LISTED_WARNINGS_LIMIT} warnings, then one that counts the rest`, () => {
    const warnings = warningsOf(warned(denied("invalid_spec", "m", toolboxViolations(25))));
    expect(warnings).toHaveLength(LISTED_WARNINGS_LIMIT + 1);
    expect(warnings[0]).toBe(
      "cocoon-webhook: toolbox.image-required: set an image on every run or clone toolbox. spec.toolboxes[0].image: is required",
    );
    expect(warnings.at(-1)).toStartWith("cocoon-webhook: … and 15 more;");
  });

  test(`each within ${WARNING_MAX_CHARACTERS} characters, cut on a character with a marker`, () => {
    const long = `${"é".repeat(50)}${"🦀".repeat(300)}`;
    const [warning = ""] = warningsOf(warned(errored("node_fetch", long)));
    expect([...warning]).toHaveLength(WARNING_MAX_CHARACTERS);
    expect(warning).toStartWith(
      `cocoon-webhook: node_fetch: ${ENDPOINTS.podGate.remedies.node_fetch}. éé`,
    );
    expect(warning.endsWith("🦀…")).toBeTrue();
  });
});

describe("control characters", () => {
  test("a denial's message and a warning write them as escapes", () => {
    const verdict = denied("creator", 'user "eve\n\rX\u0007" may not create it');
    const answer = encodeResponse("admission.k8s.io/v1", "u", "podGate", verdict);
    expect(answer.response.status?.message).toBe(
      'cocoon-webhook: user "eve\\n\\rX\\u0007" may not create it',
    );
    expect(warningsOf(warned(verdict))).toEqual([
      `cocoon-webhook: creator: ${ENDPOINTS.podGate.remedies.creator}. user "eve\\n\\rX\\u0007" may not create it`,
    ]);
  });
});

describe("audit annotations", () => {
  const encode = (decision: Parameters<typeof encodeResponse>[3]) =>
    encodeResponse("admission.k8s.io/v1", "uid", "cocoonSet", decision).response;

  test("a denial names the endpoint, the decision, the reason and every rule id once", () => {
    const violations = collectViolations((report) => {
      report("vm.os", () => violation("vm.os", ["spec", "agent", "os"], "x"));
      report("vm.os", () => violation("vm.os", ["spec", "toolboxes", 0, "os"], "x"));
      report("toolbox.name-unique", () =>
        violation("toolbox.name-unique", ["spec", "toolboxes", 1, "name"], "x"),
      );
    }, 1);
    expect(encode(denied("invalid_spec", "m", violations)).auditAnnotations).toEqual({
      endpoint: "validate-cocoonset",
      decision: "deny",
      reason: "invalid_spec",
      rules: "vm.os,toolbox.name-unique",
    });
  });

  test("an error has no rules; a warning says warn", () => {
    expect(encode(errored("decode", "m")).auditAnnotations).toEqual({
      endpoint: "validate-cocoonset",
      decision: "error",
      reason: "decode",
    });
    expect(encode(warned(errored("decode", "m"))).auditAnnotations).toMatchObject({
      decision: "warn",
      reason: "decode",
    });
  });

  test(`rule ids stay within ${AUDIT_VALUE_MAX_CHARACTERS} characters`, () => {
    const violations = collectViolations((report) => {
      for (let index = 0; index < 200; index++) {
        const rule = `rule-${index}-${"x".repeat(20)}`;
        report(rule, () => violation(rule, ["spec"], "x"));
      }
    }, 5);
    const rules = encode(denied("invalid_spec", "m", violations)).auditAnnotations?.rules ?? "";
    expect([...rules]).toHaveLength(AUDIT_VALUE_MAX_CHARACTERS);
    expect(rules.endsWith("…")).toBeTrue();
  });
});

describe("enforce", () => {
  const violations = collectViolations<"vm.os">((report) =>
    report("vm.os", () => violation("vm.os", ["spec", "agent", "os"], "must be linux")),
  );

  test("deny leaves every verdict as it is", () => {
    for (const verdict of [
      allowed(),
      skipped("no_change"),
      denied("invalid_spec", "no", violations),
      errored("decode", "unreadable"),
    ]) {
      expect(enforce(verdict, "deny", remediesOf("cocoonSet"))).toBe(verdict);
    }
  });

  test("warn allows a denial and a failed check, keeping what they would have said, with the reason's remedy", () => {
    expect(
      enforce(denied("invalid_spec", "no", violations), "warn", remediesOf("cocoonSet")),
    ).toEqual({
      allowed: true,
      result: "warn",
      reason: "invalid_spec",
      message: "no",
      remedy: ENDPOINTS.cocoonSet.remedies.invalid_spec,
      ruleRemedies: RULE_REMEDIES,
      violations,
      refused: "deny",
    });
    expect(
      enforce(errored("list", "cannot verify"), "warn", remediesOf("cocoonHibernation")),
    ).toMatchObject({
      allowed: true,
      result: "warn",
      reason: "list",
      remedy: ENDPOINTS.cocoonHibernation.remedies.list,
      refused: "error",
      violations: { total: 0 },
    });
  });

  test("a handler that threw (reason internal, the route's own) warns with the generic remedy", () => {
    expect(
      enforce(errored("internal", "internal error"), "warn", remediesOf("podGate")),
    ).toMatchObject({ reason: "internal", remedy: expect.stringMatching(/^retry/) });
  });

  test("warn leaves what is allowed anyway alone", () => {
    const verdict = skipped("not_cocoon");
    expect(enforce(verdict, "warn", remediesOf("podGate"))).toBe(verdict);
    expect(enforce(allowed(), "warn", remediesOf("podGate"))).toBe(allowed());
  });
});
