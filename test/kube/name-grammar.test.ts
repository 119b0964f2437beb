import { describe, expect, test } from "bun:test";
import { invalidNameProblem, isDnsLabel, isDnsSubdomain } from "../../src/kube/name-grammar";

describe("DNS names", () => {
  test.each(["a", "team-a", "0", "a".repeat(63)])("%p is a label", (name) => {
    expect(isDnsLabel(name)).toBeTrue();
  });
  test.each(["", ".", "..", "a.b", "A", "-a", "a-", "a/b", "%2e", "a b", "a".repeat(64)])(
    "%p is not a label",
    (name) => {
      expect(isDnsLabel(name)).toBeFalse();
    },
  );
  test.each(["web", "web.v2", "a.b.c", "a".repeat(253)])("%p is a subdomain", (name) => {
    expect(isDnsSubdomain(name)).toBeTrue();
  });
  test.each(["", ".", "..", "a..b", ".a", "a.", "a/b", "%2e", "Web", "a_b", "a".repeat(254)])(
    "%p is not a subdomain",
    (name) => {
      expect(isDnsSubdomain(name)).toBeFalse();
    },
  );
});

describe("invalidNameProblem", () => {
  test("valid or absent names have none", () => {
    expect(invalidNameProblem({ namespace: "team-a", name: "web.v2" })).toBeUndefined();
    expect(invalidNameProblem({ name: "node-1" })).toBeUndefined();
    expect(invalidNameProblem({})).toBeUndefined();
  });
  test("the namespace is judged as a label, the name as a subdomain, the namespace first", () => {
    expect(invalidNameProblem({ namespace: "a.b", name: "a.b" })).toBe(
      'the namespace "a.b" is not a valid namespace name (an RFC 1123 label: at most 63 lowercase letters, digits and "-")',
    );
    expect(invalidNameProblem({ namespace: "ok", name: ".." })).toBe(
      'the name ".." is not a valid object name (an RFC 1123 subdomain: at most 253 lowercase letters, digits, "-" and ".")',
    );
  });
  test("a long or mistyped name is quoted and cut short", () => {
    expect(invalidNameProblem({ name: "A".repeat(500) })).toContain(`"${"A".repeat(50)}`);
    expect(invalidNameProblem({ name: "A".repeat(500) })?.length).toBeLessThan(300);
    expect(invalidNameProblem({ name: 7 })).toContain('the name "7" is not a valid object name');
  });
});
