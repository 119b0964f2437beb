import { describe, expect, test } from "bun:test";
import { Histogram, Registry } from "prom-client";
import { DeferredHistogram } from "../../src/observability/deferred";

const BUCKETS = [0.001, 0.01, 0.1, 1];

describe("DeferredHistogram", () => {
  test("renders exactly what prom-client's Histogram renders for the same observations", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const deferred = new DeferredHistogram("h_seconds", "help", "handler", BUCKETS, [ours]);
    const reference = new Histogram({
      name: "h_seconds",
      help: "help",
      labelNames: ["handler"],
      buckets: BUCKETS,
      registers: [theirs],
    });
    const observations: [string, number][] = [
      ["a", 0.0005],
      ["a", 0.001],
      ["a", 0.05],
      ["b", 3],
      ["a", 1],
      ["b", 0.2],
    ];
    for (const [label, value] of observations) {
      deferred.labels(label).observe(value);
      reference.labels(label).observe(value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  test("a series exists, at zero, once its observer is taken", async () => {
    const registry = new Registry();
    new DeferredHistogram("h_seconds", "help", "handler", BUCKETS, [registry]).labels("idle");
    const text = await registry.metrics();
    expect(text).toContain('h_seconds_bucket{le="+Inf",handler="idle"} 0');
    expect(text).toContain('h_seconds_count{handler="idle"} 0');
  });
});
