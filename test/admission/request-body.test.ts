import { describe, expect, test } from "bun:test";
import { countContainers } from "../../src/admission/request-body";

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
});
