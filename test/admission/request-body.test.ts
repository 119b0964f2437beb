import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { countContainers, MAX_REVIEW_CONTAINERS } from "../../src/admission/request-body";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("countContainers", () => {
  test.each([
    ["{}", 1],
    ['{"a":[1,{"b":[]}]}', 4],
    ['{"a":"{[not these]}"}', 1],
    ['{"a":"an escaped quote \\" then {[ still a string"}', 1],
    ['["\\\\",{}]', 2],
    ["[[[]]]", 3],
  ])("%s holds %d", (json, containers) => {
    expect(countContainers(bytes(json), 100)).toBe(containers);
  });

  test("stops counting one past the limit", () => {
    expect(countContainers(bytes(`[${"{},".repeat(1000)}{}]`), 10)).toBe(11);
  });

  test("a body holds at most as many containers as it has bytes, so a short one is never scanned", () => {
    fc.assert(
      fc.property(fc.json(), (json) => {
        const body = bytes(json);
        expect(countContainers(body, Number.POSITIVE_INFINITY)).toBeLessThanOrEqual(body.length);
      }),
    );
    // The densest body, nothing but opening brackets, reaches the cap only at as many bytes.
    const densest = bytes("[".repeat(MAX_REVIEW_CONTAINERS + 1));
    expect(countContainers(densest, MAX_REVIEW_CONTAINERS)).toBe(MAX_REVIEW_CONTAINERS + 1);
  });
});
