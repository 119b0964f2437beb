import { describe, expect, test } from "bun:test";
import { isDnsLabel, isDnsSubdomain } from "../../src/kube/name-grammar";

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
