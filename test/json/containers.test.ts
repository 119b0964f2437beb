import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  ContainerCounter,
  countContainers,
  MAX_DECODED_CONTAINERS,
} from "../../src/json/containers";

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
    expect(countContainers(bytes(json))).toBe(containers);
  });

  test("stops counting one past the cap", () => {
    const beyond = bytes("[".repeat(MAX_DECODED_CONTAINERS + 10));
    expect(countContainers(beyond)).toBe(MAX_DECODED_CONTAINERS + 1);
  });

  test("a body holds at most as many containers as it has bytes, so a short one is never scanned", () => {
    fc.assert(
      fc.property(fc.json(), (json) => {
        const body = bytes(json);
        expect(countContainers(body)).toBeLessThanOrEqual(body.length);
      }),
    );
    // The densest body, nothing but opening brackets, reaches the cap only at as many bytes.
    const densest = bytes("[".repeat(MAX_DECODED_CONTAINERS + 1));
    expect(countContainers(densest)).toBe(MAX_DECODED_CONTAINERS + 1);
  });
});

describe("ContainerCounter", () => {
  test("counts a text cut anywhere into chunks as it counts the whole", () => {
    fc.assert(
      fc.property(fc.json(), fc.array(fc.nat(), { maxLength: 6 }), (json, cuts) => {
        const body = bytes(json);
        const offsets = [...new Set(cuts.map((cut) => cut % (body.length + 1)))].sort(
          (a, b) => a - b,
        );
        const counter = new ContainerCounter();
        let from = 0;
        for (const offset of [...offsets, body.length]) {
          counter.add(body.subarray(from, offset));
          from = offset;
        }
        expect(counter.add(new Uint8Array())).toBe(countContainers(body));
      }),
    );
  });

  test("stops counting one past the limit it is given", () => {
    expect(new ContainerCounter().add(bytes(`[${"{},".repeat(1000)}{}]`), 10)).toBe(11);
  });

  test("an escape split from the character it escapes still keeps the string open", () => {
    const counter = new ContainerCounter();
    counter.add(bytes('["a\\'));
    expect(counter.add(bytes('"{[",{}]'))).toBe(2);
  });
});
