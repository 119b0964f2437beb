import { describe, expect, test } from "bun:test";
import {
  exposedSeriesNames,
  familyOfSeries,
  promqlMetricNames,
  promqlSelectors,
} from "../support/promql";

describe("metric name extraction", () => {
  test("skips functions, aggregations, keywords, label lists, strings and matchers", () => {
    expect(
      promqlMetricNames(
        'sum by (handler, le) (rate(a_bucket{result="x", by="y"}[5m])) > on (pod) group_left b and absent(c) or {__name__="d"}',
      ),
    ).toEqual(["a_bucket", "b", "c", "d"]);
    expect(
      promqlMetricNames(
        'sum(rate(x{namespace=~"$namespace"}[$__rate_interval] offset 1d)) by (handler) == bool 1 unless ignoring (le) y * inf',
      ),
    ).toEqual(["x", "y"]);
  });

  test("reads label matchers", () => {
    expect(promqlSelectors('x{result="error", reason=~"a|b", pod!="", job!~"x"}')).toEqual([
      {
        metric: "x",
        matchers: [
          { name: "result", op: "=", value: "error" },
          { name: "reason", op: "=~", value: "a|b" },
          { name: "pod", op: "!=", value: "" },
          { name: "job", op: "!~", value: "x" },
        ],
      },
    ]);
  });

  test("histograms expose _bucket, _sum and _count", () => {
    const families = [
      { name: "h_seconds", type: "histogram" },
      { name: "c_total", type: "counter" },
    ];
    expect([...exposedSeriesNames(families)].sort()).toEqual([
      "c_total",
      "h_seconds",
      "h_seconds_bucket",
      "h_seconds_count",
      "h_seconds_sum",
    ]);
    expect(familyOfSeries("h_seconds_bucket", families)?.name).toBe("h_seconds");
    expect(familyOfSeries("c_total_bucket", families)).toBeUndefined();
  });
});
