import type { Registry } from "prom-client";

/*
 * Counting on the request path without prom-client's per-call work: its
 * `inc()` and `observe()` hash and check the label set on every call, which
 * cost more than the rest of the count. Here a count is a field increment on
 * a cell looked up by its label values, and the totals reach prom-client (or
 * the exposition) only when a series is read.
 */

/** A count on the request path is `cell.pending++`; the sum reaches prom-client from its `collect` hook. */
export interface CountCell {
  pending: number;
}

export class DeferredCounts {
  readonly #cells: { readonly cell: CountCell; readonly flush: (by: number) => void }[] = [];

  cell(flush: (by: number) => void): CountCell {
    const cell = { pending: 0 };
    this.#cells.push({ cell, flush });
    return cell;
  }

  flush(): void {
    for (const { cell, flush } of this.#cells) {
      if (cell.pending === 0) continue;
      const by = cell.pending;
      cell.pending = 0;
      flush(by);
    }
  }
}

/** One cell per combination of label values, created on first use. */
export function cellTree<Outer, Inner>(
  counts: DeferredCounts,
  flush: (outer: Outer, inner: Inner, by: number) => void,
): (outer: Outer, inner: Inner) => CountCell {
  const tree = new Map<Outer, Map<Inner, CountCell>>();
  return (outer, inner) => {
    let row = tree.get(outer);
    if (!row) {
      row = new Map();
      tree.set(outer, row);
    }
    let cell = row.get(inner);
    if (!cell) {
      cell = counts.cell((by) => flush(outer, inner, by));
      row.set(inner, cell);
    }
    return cell;
  };
}

interface HistogramSeries {
  /** Observations per bucket (not cumulative); the last slot is above the highest bound. */
  readonly counts: Float64Array;
  sum: number;
}

/** One series of a DeferredHistogram: what the request path calls. */
export interface Observer {
  observe(value: number): void;
}

/**
 * A histogram with one label, kept as plain per-bucket counts and exposed in
 * prom-client's text format when the registry renders it: an observation is
 * a bucket search and two additions.
 */
export class DeferredHistogram<Label extends string> {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly #series = new Map<Label, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelName: string,
    private readonly buckets: readonly number[],
    registers: readonly Registry[],
  ) {
    for (const registry of registers) registry.registerMetric(this as never);
  }

  labels(value: Label): Observer {
    let series = this.#series.get(value);
    if (!series) {
      series = { counts: new Float64Array(this.buckets.length + 1), sum: 0 };
      this.#series.set(value, series);
    }
    const { buckets } = this;
    const found = series;
    return {
      observe(observed) {
        let index = 0;
        while (index < buckets.length && observed > (buckets[index] as number)) index++;
        (found.counts[index] as number)++;
        found.sum += observed;
      },
    };
  }

  /** What prom-client's registry reads to render and to list the metric. */
  async get() {
    const values: {
      labels: Record<string, string | number>;
      sharedLabels: Record<string, string>;
      value: number;
      metricName: string;
    }[] = [];
    for (const [label, { counts, sum }] of this.#series) {
      const sharedLabels = { [this.labelName]: label };
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += counts[index] as number;
        values.push({
          labels: { le: bound },
          sharedLabels,
          value: cumulative,
          metricName: `${this.name}_bucket`,
        });
      });
      const count = cumulative + (counts[this.buckets.length] as number);
      values.push({
        labels: { le: "+Inf" },
        sharedLabels,
        value: count,
        metricName: `${this.name}_bucket`,
      });
      values.push({ labels: {}, sharedLabels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels, value: count, metricName: `${this.name}_count` });
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }
}
