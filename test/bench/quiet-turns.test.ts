import { describe, expect, test } from "bun:test";
import {
  type FixedRateResult,
  judgeTail,
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

/** A server's fixed-rate result with these turns (the fields the judgement reads). */
function atFixedRate(
  server: FixedRateResult["server"],
  turns: ReturnType<typeof turn>[],
): FixedRateResult {
  const p999Us = Math.max(...turns.map((each) => each.p999Us));
  return {
    server,
    askedRequestsPerSecond: 2000,
    connections: 20,
    delayMs: 10,
    seconds: 10 * turns.length,
    responses: 17_500 * turns.length,
    requestsPerSecond: 1750,
    p50Us: 1000,
    p99Us: 2500,
    p999Us,
    maxUs: p999Us,
    errors: 0,
    stolenShare: 0,
    turns,
    quietTurnsP999Us: quietTurnsP999(turns),
  };
}

describe("the tail goal is judged against the design floor, the bare floor beside it", () => {
  const bare = atFixedRate("floor", [turn(3.5, 0.1), turn(3.4, 0.1), turn(3.6, 0.2)]);

  test("within 0.5 ms of the design floor is met, however far over the bare floor", () => {
    const design = atFixedRate("design", [turn(4.8, 0.1), turn(4.9, 0.1), turn(4.86, 0.2)]);
    const cocoon = atFixedRate("cocoon", [turn(5.3, 0.1), turn(5.2, 0.0), turn(5.4, 0.3)]);
    const verdict = judgeTail(cocoon, design, bare);
    expect(verdict).toEqual({ judged: true, met: true, overDesignUs: 440, overBareUs: 1800 });
  });

  test("more than 0.5 ms over the design floor is not met", () => {
    const design = atFixedRate("design", [turn(4.8, 0.1), turn(4.9, 0.1), turn(4.86, 0.2)]);
    const cocoon = atFixedRate("cocoon", [turn(5.5, 0.1), turn(5.4, 0.0), turn(5.6, 0.3)]);
    expect(judgeTail(cocoon, design, bare)).toMatchObject({ judged: true, met: false });
  });

  test("not judged while the design floor has too few quiet turns, whatever the bare floor's", () => {
    const design = atFixedRate("design", [turn(4.8, 0.1), turn(9, 1.1), turn(4.86, 0.9)]);
    const cocoon = atFixedRate("cocoon", [turn(5.3, 0.1), turn(5.2, 0.0), turn(5.4, 0.3)]);
    expect(judgeTail(cocoon, design, bare)).toEqual({
      judged: false,
      quietTurns: { cocoon: 3, design: 1 },
    });
  });
});

describe("median", () => {
  test("odd, even and empty", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});
