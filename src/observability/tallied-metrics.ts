import {
  Counter,
  type CounterConfiguration,
  Gauge,
  type GaugeConfiguration,
  type LabelValues,
} from "prom-client";

/*
 * The metrics every review touches, kept as plain numbers. prom-client builds
 * and checks a series' label key on every inc() and observe(), children from
 * labels() included; on the review path that cost a fifth of the webhook's
 * CPU per review (docs/performance.md). Counters and the gauge reach the
 * exposition through prom-client's collect hook, which it calls before every
 * read; the duration histogram, to which prom-client can add only one
 * observe() at a time, is rendered in the exposition format beside the
 * registry's text.
 */

/** A count the request path adds to: `tally.count++`. */
export interface Tally {
  count: number;
}

/**
 * A prom-client Counter whose series are counted in tallies: before every
 * read, its collect hook adds what each tally counted since the last one. A
 * tally's series is exported at 0 from the first read.
 */
export class TalliedCounter<L extends string> {
  readonly counter: Counter<L>;
  readonly #tallies: { readonly labels: LabelValues<L>; readonly tally: Tally; read: number }[] =
    [];

  constructor(configuration: Omit<CounterConfiguration<L>, "collect">) {
    const tallies = this.#tallies;
    this.counter = new Counter<L>({
      ...configuration,
      collect() {
        for (const entry of tallies) {
          this.inc(entry.labels, entry.tally.count - entry.read);
          entry.read = entry.tally.count;
        }
      },
    });
  }

  /** A new tally of the series `labels`; make one per series and keep it. */
  tally(labels: LabelValues<L>): Tally {
    const tally = { count: 0 };
    this.#tallies.push({ labels, tally, read: 0 });
    return tally;
  }
}

/** A prom-client Gauge that reads `tally.count` whenever it is read. */
export function talliedGauge(
  configuration: Omit<GaugeConfiguration<string>, "collect">,
  tally: Tally,
): Gauge {
  return new Gauge({
    ...configuration,
    collect() {
      this.set(tally.count);
    },
  });
}

/** One series of a BucketHistogram, as the request path observes into it. */
export interface Observer {
  observe(value: number): void;
}

interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** Observations per bucket, not cumulative; the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum: number;
}

/**
 * A histogram kept as plain per-bucket counts: an observation is a bucket
 * search and two additions. `exposition()` renders it in the Prometheus text
 * format (0.0.4, the registry's) as prom-client renders its own histograms.
 */
export class BucketHistogram<L extends string> {
  readonly type = "histogram";
  readonly #bounds: readonly number[];
  readonly #series = new Map<string, { series: HistogramSeries; observer: Observer }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
    buckets: readonly number[],
  ) {
    this.#bounds = [...buckets].sort((a, b) => a - b);
  }

  /** The series `labels`, rendered with zero counts until observed; the same one for the same labels. */
  series(labels: Readonly<Record<L, string>>): Observer {
    const key = JSON.stringify(labels);
    const known = this.#series.get(key);
    if (known) return known.observer;
    const bounds = this.#bounds;
    const series: HistogramSeries = {
      labels: { ...labels },
      counts: new Float64Array(bounds.length + 1),
      sum: 0,
    };
    const observer: Observer = {
      observe(value) {
        let bucket = 0;
        while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket++;
        (series.counts[bucket] as number)++;
        series.sum += value;
      },
    };
    this.#series.set(key, { series, observer });
    return observer;
  }

  /** HELP, TYPE and every series' cumulative buckets, sum and count; lines end in a newline. */
  exposition(): string {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} histogram`];
    for (const { series } of this.#series.values()) {
      const { labels, counts, sum } = series;
      const labelParts = Object.entries(labels).map(
        ([name, value]) => `${name}="${escapeLabelValue(value)}"`,
      );
      const bucketLine = (le: string, value: number) =>
        `${this.name}_bucket{${[`le="${le}"`, ...labelParts].join(",")}} ${value}`;
      const labelText = labelParts.length > 0 ? `{${labelParts.join(",")}}` : "";
      let cumulative = 0;
      this.#bounds.forEach((bound, bucket) => {
        cumulative += counts[bucket] as number;
        lines.push(bucketLine(String(bound), cumulative));
      });
      const count = cumulative + (counts[this.#bounds.length] as number);
      lines.push(bucketLine("+Inf", count));
      lines.push(`${this.name}_sum${labelText} ${sum}`);
      lines.push(`${this.name}_count${labelText} ${count}`);
    }
    return `${lines.join("\n")}\n`;
  }
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function escapeLabelValue(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}
