import { describe, expect, test } from "bun:test";
import { parseQuantity, quantitiesEqual } from "../../src/cocoon/quantity";

describe("quantitiesEqual", () => {
  test.each([
    ["1Gi", "1024Mi"],
    ["1Gi", "1073741824"],
    ["1Ki", "1024"],
    ["500m", "0.5"],
    ["1k", "1000"],
    ["1e3", "1k"],
    ["1E3", "1000"],
    ["2", "2000m"],
    ["0.5Gi", "512Mi"],
    [".5", "500m"],
    ["1.", "1"],
    ["+1", "1"],
    ["0", "-0"],
    ["1M", "1000k"],
    ["1E", "1000P"],
    ["100n", "0.1u"],
  ])("%p equals %p", (left, right) => {
    expect(quantitiesEqual(left, right)).toBe(true);
    expect(quantitiesEqual(right, left)).toBe(true);
  });

  test.each([
    ["1Gi", "1G"],
    ["1Mi", "1M"],
    ["1m", "1M"],
    ["-1", "1"],
    ["1Gi", "2Gi"],
  ])("%p differs from %p", (left, right) => {
    expect(quantitiesEqual(left, right)).toBe(false);
  });

  test.each(["", "Gi", "1 Gi", "1gi", "1.2.3", "one", "1e", "0x10", "1e99999"])(
    "%p is not a quantity",
    (text) => {
      expect(parseQuantity(text)).toBeUndefined();
      expect(quantitiesEqual(text, text)).toBe(false);
    },
  );
});
