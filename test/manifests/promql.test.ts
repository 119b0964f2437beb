import { describe, expect, test } from "bun:test";
import {
  checkPromql,
  exposedSeriesNames,
  familyOfSeries,
  promqlMetricNames,
  promqlSelectors,
} from "../support/promql";

describe("checkPromql accepts valid PromQL", () => {
  const valid = [
    "up",
    'absent(up{job="cocoon-webhook", namespace="cocoon-system"} == 1)',
    'sum by (handler) (rate(x_total{result="error"}[5m])) / sum by (handler) (rate(x_total[5m])) > 0.05',
    "sum(rate(x_total[5m])) by (handler)",
    "histogram_quantile(0.99, sum by (le) (rate(x_bucket[5m]))) > 2.5",
    "(x > 0) - time() < 14 * 86400",
    "a > 3 * (b or a * 0) and c > 10",
    "a unless on (pod) b > 0",
    "a / on (pod) group_left (node) b",
    "a / ignoring (le) group_left b",
    "rate(x[1d] offset 10m)",
    "max_over_time(rate(x[5m])[1h:1m])",
    "x == bool 1",
    "-x",
    'label_replace(x, "dst", "$1", "src", "(.*)")',
    'sum(rate(x{namespace=~"$namespace"}[$__rate_interval]))',
    '{__name__="up"}',
    "vector(0)",
    "# a comment\nup",
  ];
  for (const expr of valid) {
    test(JSON.stringify(expr), () => expect(checkPromql(expr)).toEqual([]));
  }
});

describe("checkPromql rejects malformed PromQL", () => {
  const invalid: Array<[string, string]> = [
    ["", "empty"],
    ["sum(rate(x[5m])", "unclosed paren"],
    ["rate(x[5m]))", "extra paren"],
    ['x{a="b"', "unclosed brace"],
    ['x{a="b}', "unterminated string"],
    ["rate(x[5m)", "mismatched bracket"],
    ["x[5]m]", "stray bracket"],
    ["histogram_quantil(0.9, x)", "unknown function"],
    ["x >", "trailing operator"],
    ["x > > 1", "double operator"],
    ["x y", "missing operator"],
    ["sum by handler (x)", "label list without parens"],
    ["x{a=b}", "unquoted matcher value"],
    ["x{a}", "matcher without operator"],
    ["rate(x[five])", "malformed range"],
    ["x offset", "offset without duration"],
    ["rate(x[5mm])", "malformed duration"],
    ["(x,)", "dangling comma"],
  ];
  for (const [expr, why] of invalid) {
    test(`${why}: ${JSON.stringify(expr)}`, () => expect(checkPromql(expr)).not.toEqual([]));
  }
});

describe("metric name extraction", () => {
  test("skips functions, aggregations, keywords, label lists, strings and matchers", () => {
    expect(
      promqlMetricNames(
        'sum by (handler, le) (rate(a_bucket{result="x", by="y"}[5m])) > on (pod) group_left b and absent(c) or {__name__="d"}',
      ),
    ).toEqual(["a_bucket", "b", "c", "d"]);
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
