import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { render } from "../manifests/kustomize";
import {
  exposedSeriesNames,
  exprsIn,
  type LabelMatcher,
  type MetricFamily,
  promqlMetricNames,
  promqlSelectors,
  SCRAPE_SERIES,
} from "../support/promql";
import { startWebhook, type WebhookProcess } from "./harness";

/** Metric families as the running binary's /metrics page declares them (`# TYPE name type`). */
function familiesOf(metricsText: string): MetricFamily[] {
  return [...metricsText.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name = "", type = ""]) => ({
    name,
    type,
  }));
}

/** The `name{labels} value` lines of a /metrics page, labels parsed. */
function samplesOf(metricsText: string) {
  return [...metricsText.matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/gm)].map(
    ([, name = "", labels = "", value = ""]) => ({
      name,
      labels: Object.fromEntries(
        [...labels.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(
          ([, label = "", labelValue = ""]) => [label, labelValue],
        ),
      ),
      value: Number(value),
    }),
  );
}

/** Whether a sample's labels satisfy a selector's matchers on the labels the webhook sets. */
function matches(labels: Record<string, string>, matcher: LabelMatcher): boolean {
  const value = labels[matcher.name];
  if (value === undefined) return true; // a label the scrape adds (job, namespace, pod)
  const anchored = new RegExp(`^(?:${matcher.value})$`);
  switch (matcher.op) {
    case "=":
      return value === matcher.value;
    case "!=":
      return value !== matcher.value;
    case "=~":
      return anchored.test(value);
    case "!~":
      return !anchored.test(value);
  }
}

let webhook: WebhookProcess;
beforeAll(async () => {
  webhook = await startWebhook();
});
afterAll(async () => {
  await webhook.stop();
});

describe("monitoring manifests against the running binary", () => {
  test("every metric an alert or dashboard panel queries is on the binary's /metrics page", async () => {
    const exprs = exprsIn(render("manifests/monitoring"));
    expect(exprs.length).toBeGreaterThan(10);
    const exposed = exposedSeriesNames(familiesOf(await webhook.metrics()));
    const missing = exprs.flatMap((expr) =>
      promqlMetricNames(expr)
        .filter((name) => !exposed.has(name) && !SCRAPE_SERIES.has(name))
        .map((name) => `${name} (in: ${expr.slice(0, 80)})`),
    );
    expect(missing).toEqual([]);
  });

  // increase() and rate() ignore a counter's first sample: a series born at 1 on its first
  // event would hide that event from every alert (a reload failure, say).
  test("every counter series an alert reads exists at 0 on a fresh binary", async () => {
    const rule = render("manifests/monitoring").find((object) => object.kind === "PrometheusRule");
    const counterSelectors = exprsIn(rule).flatMap((expr) =>
      promqlSelectors(expr).filter((selector) => selector.metric.endsWith("_total")),
    );
    expect(counterSelectors.length).toBeGreaterThan(3);
    const samples = samplesOf(await webhook.metrics());
    const absent = counterSelectors
      .filter(
        (selector) =>
          !samples.some(
            (sample) =>
              sample.name === selector.metric &&
              sample.value === 0 &&
              selector.matchers.every((matcher) => matches(sample.labels, matcher)),
          ),
      )
      .map(
        (selector) =>
          `${selector.metric}{${selector.matchers.map((m) => `${m.name}${m.op}"${m.value}"`).join(",")}}`,
      );
    expect(absent).toEqual([]);
  });
});
