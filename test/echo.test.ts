import { describe, expect, test } from "bun:test";
import { ECHO_LIMIT, echo } from "../src/echo";

describe("echo", () => {
  test("a value within the limit is repeated whole", () => {
    const name = "a".repeat(ECHO_LIMIT);
    expect(echo(name)).toBe(name);
  });

  test("a longer value is cut at the limit, with a marker saying how long it was", () => {
    expect(echo("abcdefgh", 3)).toBe("abc…(cut from 8 characters)");
  });

  test("a surrogate pair at the cut is left out whole, never split", () => {
    const cut = echo(`ab${"😀".repeat(4)}`, 3);
    expect(cut).toBe("ab…(cut from 10 characters)");
    expect(cut.isWellFormed()).toBeTrue();
  });
});
