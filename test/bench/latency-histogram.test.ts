import { describe, expect, test } from "bun:test";
import {
  mergeHistograms,
  parseHistogram,
  percentile,
  responsesIn,
  slowest,
} from "../../bench/lib/latency-histogram";

describe("latency histograms of wrk runs", () => {
  test("parses wrk's microseconds:count pairs", () => {
    expect([...parseHistogram("812:3,1005:1,20000:2")]).toEqual([
      [812, 3],
      [1005, 1],
      [20000, 2],
    ]);
    expect(parseHistogram("").size).toBe(0);
    expect(() => parseHistogram("812:3,oops")).toThrow('not a latency histogram entry: "oops"');
  });

  test("percentiles follow wrk's rank rule", () => {
    // 1 000 responses: 998 fast ones, one at 5 ms, one at 9 ms.
    const histogram = new Map([
      [900, 998],
      [5000, 1],
      [9000, 1],
    ]);
    expect(percentile(histogram, 50)).toBe(900);
    // rank round(0.999 × 1000 + 0.5) = 1000: the slowest response.
    expect(percentile(histogram, 99.9)).toBe(9000);
    expect(percentile(histogram, 99.8)).toBe(5000);
    expect(slowest(histogram)).toBe(9000);
  });

  test("merged runs give the percentiles of all their responses", () => {
    const quiet = parseHistogram("1000:999,4000:1");
    const disturbed = parseHistogram("1000:990,30000:10");
    const merged = mergeHistograms([quiet, disturbed]);
    expect(responsesIn(merged)).toBe(2000);
    expect(merged.get(1000)).toBe(1989);
    // Each run's own p99.9 is its worst response; over both, the 2nd worst of 2 000.
    expect(percentile(quiet, 99.9)).toBe(4000);
    expect(percentile(disturbed, 99.9)).toBe(30000);
    expect(percentile(merged, 99)).toBe(1000);
    expect(percentile(merged, 99.9)).toBe(30000);
    expect(percentile(merged, 99.4)).toBe(1000);
  });
});
