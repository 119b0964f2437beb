import { describe, expect, test } from "bun:test";
import { Histogram, Registry } from "prom-client";
import {
  BucketHistogram,
  TalliedCounter,
  talliedGauge,
} from "../../src/observability/tallied-metrics";

const BUCKETS = [0.001, 0.01, 0.1, 1];

describe("TalliedCounter", () => {
  test("a tally's series is exported at 0 from the first read, then with what was counted", async () => {
    const registry = new Registry();
    const counted = new TalliedCounter({
      name: "things_total",
      help: "Things.",
      labelNames: ["kind"] as const,
      registers: [registry],
    });
    const apples = counted.tally({ kind: "apple" });
    counted.tally({ kind: "pear" });
    expect(await registry.metrics()).toContain(
      'things_total{kind="apple"} 0\nthings_total{kind="pear"} 0',
    );
    apples.count += 3;
    expect(await registry.metrics()).toContain('things_total{kind="apple"} 3');
  });

  test("each read adds only what was counted since the last one", async () => {
    const counted = new TalliedCounter({ name: "reads_total", help: "Reads.", registers: [] });
    const tally = counted.tally({});
    tally.count++;
    expect((await counted.counter.get()).values[0]?.value).toBe(1);
    expect((await counted.counter.get()).values[0]?.value).toBe(1);
    tally.count += 2;
    expect((await counted.counter.get()).values[0]?.value).toBe(3);
  });
});

test("talliedGauge reads the tally's count at every read", async () => {
  const registry = new Registry();
  const inFlight = { count: 0 };
  talliedGauge({ name: "in_flight", help: "In flight.", registers: [registry] }, inFlight);
  inFlight.count = 2;
  expect(await registry.metrics()).toContain("in_flight 2");
  inFlight.count--;
  expect(await registry.metrics()).toContain("in_flight 1");
});

describe("BucketHistogram", () => {
  test("renders exactly what prom-client's Histogram renders for the same observations", async () => {
    const registry = new Registry();
    const reference = new Histogram({
      name: "duration_seconds",
      help: 'Time, by handler; a "quoted" \\ help.',
      labelNames: ["handler"] as const,
      buckets: BUCKETS,
      registers: [registry],
    });
    const histogram = new BucketHistogram(
      "duration_seconds",
      'Time, by handler; a "quoted" \\ help.',
      ["handler"] as const,
      [1, 0.1, 0.01, 0.001],
    );
    const observations: [string, number][] = [
      ["mutate", 0.0005],
      ["mutate", 0.001],
      ["mutate", 0.0011],
      ["mutate", 0.5],
      ["mutate", 7],
      ["validate", 0.01],
    ];
    const series = {
      mutate: histogram.series({ handler: "mutate" }),
      validate: histogram.series({ handler: "validate" }),
      idle: histogram.series({ handler: "idle" }),
    };
    reference.zero({ handler: "idle" });
    for (const [handler, seconds] of observations) {
      reference.labels(handler).observe(seconds);
      series[handler as "mutate" | "validate"].observe(seconds);
    }
    const own = histogram.exposition().split("\n").sort();
    const expected = (await registry.metrics()).split("\n").sort();
    expect(own).toEqual(expected);
  });

  test("the same labels give the same series, rendered once", () => {
    const histogram = new BucketHistogram("once", "h", ["handler"] as const, [1]);
    histogram.series({ handler: "mutate" }).observe(0.5);
    histogram.series({ handler: "mutate" }).observe(2);
    const text = histogram.exposition();
    expect(text.match(/once_count/g)).toHaveLength(1);
    expect(text).toContain('once_count{handler="mutate"} 2');
  });

  test("label values are escaped, and a histogram without labels has plain sum and count", () => {
    const labelled = new BucketHistogram("d", "h", ["path"] as const, [1]);
    labelled.series({ path: 'a"b\\c\nd' }).observe(2);
    expect(labelled.exposition()).toContain('d_bucket{le="+Inf",path="a\\"b\\\\c\\nd"} 1');
    const plain = new BucketHistogram("p", "h", [], [1]);
    plain.series({}).observe(0.5);
    expect(plain.exposition()).toBe(
      '# HELP p h\n# TYPE p histogram\np_bucket{le="1"} 1\np_bucket{le="+Inf"} 1\np_sum 0.5\np_count 1\n',
    );
  });
});
