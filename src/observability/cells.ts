import {
  Counter,
  type CounterConfiguration,
  Gauge,
  type LabelValues,
  type Registry,
} from "./prom-client";

/*
 * The metrics every review touches, kept in plain cells. prom-client hashes
 * and checks the label set on every inc() and observe(), children from
 * labels() included; on the review path that was about 11 % of the webhook's
 * CPU per review (median of seven runs, 9-13 %; the in-process A/B of
 * bench/metrics-ab.ts, docs/performance.md). Here the request path adds to
 * a number, and the totals reach the exposition when it is scraped: counters
 * and gauges through prom-client's collect hook, which it calls before every
 * read; the duration histogram, for which prom-client has no way to add counts other
 * than one observe() each, is rendered in the exposition format beside the
 * registry's text.
 */

/** A count the request path adds to: `cell.count++`. */
export interface CountCell {
  count: number;
}

/**
 * A prom-client Counter whose series are counted in cells: before every read
 * of the counter, its collect hook adds what each cell counted since the
 * last read. A cell's series is exported from the first read, at 0 if
 * nothing was counted yet.
 */
export class CellCounter<L extends string> {
  readonly counter: Counter<L>;
  readonly #cells: { readonly labels: LabelValues<L>; readonly cell: CountCell; read: number }[] =
    [];

  constructor(configuration: Omit<CounterConfiguration<L>, "collect">) {
    const cells = this.#cells;
    this.counter = new Counter<L>({
      ...configuration,
      collect() {
        for (const entry of cells) {
          this.inc(entry.labels, entry.cell.count - entry.read);
          entry.read = entry.cell.count;
        }
      },
    });
  }

  /** A new cell for the series `labels`; make one per series and keep it. */
  cell(labels: LabelValues<L>): CountCell {
    const cell = { count: 0 };
    this.#cells.push({ labels, cell, read: 0 });
    return cell;
  }
}

/** A prom-client Gauge that reads `cell.count` whenever it is read. */
export function cellGauge(
  configuration: { readonly name: string; readonly help: string; readonly registers: Registry[] },
  cell: CountCell,
): Gauge {
  return new Gauge({
    ...configuration,
    collect() {
      this.set(cell.count);
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
 * format (version 0.0.4, the registry's), as prom-client renders its own
 * histograms, for the scrape to append to the registry's text.
 */
export class BucketHistogram<L extends string> {
  readonly type = "histogram";
  readonly #bounds: readonly number[];
  readonly #series: HistogramSeries[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
    buckets: readonly number[],
  ) {
    this.#bounds = [...buckets].sort((a, b) => a - b);
  }

  /** The series `labels`, observed from now on (rendered with zero counts until then); make it once and keep it. */
  series(labels: Readonly<Record<L, string>>): Observer {
    const bounds = this.#bounds;
    const series: HistogramSeries = {
      labels: { ...labels },
      counts: new Float64Array(bounds.length + 1),
      sum: 0,
    };
    this.#series.push(series);
    return {
      observe(value) {
        let bucket = 0;
        while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket++;
        (series.counts[bucket] as number)++;
        series.sum += value;
      },
    };
  }

  /** HELP, TYPE and every series' cumulative buckets, sum and count; lines end in a newline. */
  exposition(): string {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum } of this.#series) {
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
