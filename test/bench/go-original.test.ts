import { describe, expect, test } from "bun:test";
import { compareWithGoOriginal, meetsGoOriginalBar } from "../../bench/lib/report";
import type { ServerId } from "../../bench/lib/servers";
import type { ScenarioId } from "../../bench/payloads";

const measured = (
  scenario: ScenarioId,
  server: ServerId,
  requestsPerSecond: number,
  serverCpuMsPerRequest: number,
) => ({ scenario, server, serverCpuMsPerRequest, wrk: { requestsPerSecond } });

describe("cocoon-webhook against the Go original", () => {
  test("per scenario: req/s and CPU per review as cocoon-webhook's over the Go original's", () => {
    const comparison = compareWithGoOriginal([
      measured("pod-common", "go", 4000, 0.5),
      measured("pod-common", "floor", 20_000, 0.05),
      measured("pod-common", "cocoon", 9400, 0.135),
      measured("scale-down", "cocoon", 3000, 0.4),
      measured("scale-down", "go", 2000, 0.8),
    ]);
    expect(comparison).toEqual([
      { scenario: "pod-common", throughputRatio: 2.35, cpuPerReviewRatio: 0.27 },
      { scenario: "scale-down", throughputRatio: 1.5, cpuPerReviewRatio: 0.5 },
    ]);
  });

  test("no Go original in the run: nothing to compare", () => {
    expect(
      compareWithGoOriginal([
        measured("pod-common", "cocoon", 9400, 0.135),
        measured("pod-common", "peer", 3000, 0.6),
      ]),
    ).toEqual([]);
  });

  test("a scenario the Go original sat out is left out", () => {
    expect(
      compareWithGoOriginal([
        measured("pod-common", "cocoon", 9000, 0.1),
        measured("pod-common", "go", 3000, 0.4),
        measured("hibernation-create", "cocoon", 5000, 0.2),
      ]).map((each) => each.scenario),
    ).toEqual(["pod-common"]);
  });

  test("the bar: at least twice the throughput at most 0.35 times the CPU per review", () => {
    const bar = (throughputRatio: number, cpuPerReviewRatio: number) =>
      meetsGoOriginalBar({ scenario: "pod-common", throughputRatio, cpuPerReviewRatio });
    expect(bar(2.33, 0.27)).toBe(true);
    expect(bar(2, 0.35)).toBe(true);
    expect(bar(1.99, 0.27)).toBe(false);
    expect(bar(2.33, 0.36)).toBe(false);
  });
});
