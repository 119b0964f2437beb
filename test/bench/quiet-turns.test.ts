import { describe, expect, test } from "bun:test";
import {
  MIN_QUIET_TURNS,
  QUIET_TURN_STOLEN_SHARE,
  quietTurns,
  quietTurnsP999,
} from "../../bench/lib/fixed-rate";
import { median } from "../../bench/lib/statistics";

const turn = (p999Ms: number, stolenPercent: number) => ({
  requestsPerSecond: 1750,
  p999Us: p999Ms * 1000,
  stolenShare: stolenPercent / 100,
});

describe("the paced tail is judged on quiet turns", () => {
  test("a turn is quiet when the hypervisor took at most the threshold", () => {
    expect(QUIET_TURN_STOLEN_SHARE).toBe(0.003);
    const turns = [turn(3.1, 0.1), turn(3.4, 0.3), turn(14, 0.4), turn(9, 2)];
    expect(quietTurns(turns).map((each) => each.p999Us)).toEqual([3100, 3400]);
  });

  test("the median p99.9 of the quiet turns; disturbed turns do not move it", () => {
    const turns = [turn(3.0, 0.1), turn(15.4, 1.3), turn(3.4, 0.2), turn(8.9, 2.0), turn(3.2, 0.1)];
    expect(quietTurnsP999(turns)).toBe(3200);
  });

  test("too few quiet turns: not judged", () => {
    expect(MIN_QUIET_TURNS).toBe(3);
    expect(quietTurnsP999([turn(3.0, 0.1), turn(3.2, 0.2), turn(5, 0.9)])).toBeUndefined();
    expect(quietTurnsP999([])).toBeUndefined();
  });
});

describe("median", () => {
  test("odd, even and empty", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});
