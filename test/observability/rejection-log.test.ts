import { describe, expect, test } from "bun:test";
import { createRejectionLog } from "../../src/observability/rejection-log";
import { capturingLogger } from "../support/capturing-logger";

/** A rejection log on a clock the test moves, with its pending summary timer exposed. */
function rejectionLogOnTestClock(lines = 3, intervalMs = 1000) {
  const { log, lines: written } = capturingLogger();
  const clock = { now: 0, pending: undefined as (() => void) | undefined };
  const logRejection = createRejectionLog(log, {
    lines,
    intervalMs,
    now: () => clock.now,
    after: (_ms, run) => {
      clock.pending = run;
      return () => {
        clock.pending = undefined;
      };
    },
  });
  return { logRejection, written, clock };
}

const rejection = (status: number, path = "/x") => ({ method: "POST", path, status });

describe("the rejection log", () => {
  test("logs a fixed number of lines per window, then one summary by status at its end", () => {
    const { logRejection, written, clock } = rejectionLogOnTestClock();
    for (const status of [404, 404, 400, 404, 415, 404, 400]) logRejection(rejection(status));
    expect(written.map((line) => line.msg)).toEqual([
      "request rejected",
      "request rejected",
      "request rejected",
    ]);
    clock.pending?.();
    expect(written.at(-1)).toMatchObject({
      msg: "requests rejected: 4 more 4xx answers were not logged one by one",
      suppressed: 4,
      byStatus: { "404": 2, "415": 1, "400": 1 },
    });
    expect(clock.pending).toBeUndefined();
  });

  test("a new window logs again, after the previous one's summary", () => {
    const { logRejection, written, clock } = rejectionLogOnTestClock(1);
    logRejection(rejection(404));
    logRejection(rejection(404));
    clock.now = 1000;
    logRejection(rejection(400));
    expect(written.map((line) => line.msg)).toEqual([
      "request rejected",
      "requests rejected: 1 more 4xx answers were not logged one by one",
      "request rejected",
    ]);
  });

  test("nothing suppressed, no summary", () => {
    const { logRejection, written, clock } = rejectionLogOnTestClock();
    logRejection(rejection(404));
    logRejection.flush();
    expect(clock.pending).toBeUndefined();
    expect(written).toHaveLength(1);
  });

  test("every echoed value is cut short", () => {
    const { logRejection, written } = rejectionLogOnTestClock();
    logRejection({
      method: "M".repeat(10_000),
      path: `/${"p".repeat(100_000)}`,
      status: 404,
      reason: "r".repeat(100_000),
      client: "c".repeat(10_000),
    });
    expect(JSON.stringify(written[0]).length).toBeLessThan(4096);
    expect(written[0]?.path).toEndWith("…(cut from 100001 characters)");
  });
});
