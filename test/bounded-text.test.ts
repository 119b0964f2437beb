import { describe, expect, test } from "bun:test";
import { cutShort, ECHO_LIMIT, quotedSetting, withoutControlCharacters } from "../src/bounded-text";

describe("echo", () => {
  test("a value within the limit is repeated whole", () => {
    const name = "a".repeat(ECHO_LIMIT);
    expect(cutShort(name)).toBe(name);
  });

  test("a longer value is cut at the limit, with a marker saying how long it was", () => {
    expect(cutShort("abcdefgh", 3)).toBe("abc…(cut from 8 characters)");
  });

  test("a surrogate pair at the cut is left out whole, never split", () => {
    const cut = cutShort(`ab${"😀".repeat(4)}`, 3);
    expect(cut).toBe("ab…(cut from 10 characters)");
    expect(cut.isWellFormed()).toBeTrue();
  });
});

describe("withoutControlCharacters", () => {
  test("writes every control character as its escape and leaves the rest", () => {
    expect(withoutControlCharacters("a\nb\rc\td\u0000e\u007ff\u0085g\u2028h é ✓")).toBe(
      "a\\nb\\rc\\td\\u0000e\\u007ff\\u0085g\\u2028h é ✓",
    );
    expect(withoutControlCharacters("plain")).toBe("plain");
  });
});

describe("quotedSetting", () => {
  test("escapes anything but printable ASCII, so look-alikes show", () => {
    expect(quotedSetting("mutate\u200b")).toBe('"mutate\\u200b"');
    expect(quotedSetting("välidate")).toBe('"v\\u00e4lidate"');
  });

  test("cuts a long value short", () => {
    expect(quotedSetting("x".repeat(1000)).length).toBeLessThan(100);
  });
});
