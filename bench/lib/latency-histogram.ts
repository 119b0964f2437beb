/**
 * Latencies as wrk records them: microseconds → how many responses took
 * that long. Several runs merged into one histogram give percentiles of all
 * their responses together, which the percentiles of each run cannot.
 */
export type LatencyHistogram = ReadonlyMap<number, number>;

/** wrk's `BENCH_HISTOGRAM` line: `microseconds:count` pairs separated by commas. */
export function parseHistogram(text: string): Map<number, number> {
  const histogram = new Map<number, number>();
  for (const entry of text.split(",")) {
    if (entry === "") continue;
    const [value, count] = entry.split(":").map(Number);
    if (!Number.isSafeInteger(value) || !Number.isSafeInteger(count))
      throw new Error(`not a latency histogram entry: "${entry}"`);
    histogram.set(value as number, (histogram.get(value as number) ?? 0) + (count as number));
  }
  return histogram;
}

export function mergeHistograms(histograms: Iterable<LatencyHistogram>): Map<number, number> {
  const merged = new Map<number, number>();
  for (const histogram of histograms)
    for (const [value, count] of histogram) merged.set(value, (merged.get(value) ?? 0) + count);
  return merged;
}

export function responsesIn(histogram: LatencyHistogram): number {
  let total = 0;
  for (const count of histogram.values()) total += count;
  return total;
}

/**
 * The `p`th percentile in microseconds, as wrk computes it: the smallest
 * recorded latency at which the running count reaches round(p/100 × n + 0.5).
 */
export function percentile(histogram: LatencyHistogram, p: number): number {
  const rank = Math.round((p / 100) * responsesIn(histogram) + 0.5);
  let seen = 0;
  for (const value of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(value) ?? 0;
    if (seen >= rank) return value;
  }
  return 0;
}

export function slowest(histogram: LatencyHistogram): number {
  return Math.max(0, ...histogram.keys());
}
