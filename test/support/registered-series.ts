/*
 * The series the webhook's registry declares — names, label names and the
 * values those labels can take — and a check of the series an expression (an
 * alert, a dashboard panel, a promtool test's input) selects against them.
 */
import { ENDPOINT_KEYS, ENDPOINTS, resultReasons, VERDICT_RESULTS } from "../../src/endpoints";
import { admissionDuration, registry, TLS_RELOAD_RESULTS } from "../../src/observability/metrics";
import {
  exposedSeriesNames,
  familyOfSeries,
  type MetricFamily,
  promqlSelectors,
  SCRAPE_SERIES,
} from "./promql";

/** The registry's families, and the admission duration histogram rendered beside them. */
const families: MetricFamily[] = [
  ...(await registry.getMetricsAsJSON()).map((metric) => ({
    name: metric.name,
    type: String(metric.type),
  })),
  { name: admissionDuration.name, type: admissionDuration.type },
];
/** Every series name the webhook's metrics expose. */
export const registeredSeries = exposedSeriesNames(families);

/** Label names a metric family declares (prom-client keeps them on the metric object). */
function labelNamesOf(family: MetricFamily): string[] {
  if (family.name === admissionDuration.name) return [...admissionDuration.labelNames];
  const metric: unknown = registry.getSingleMetric(family.name);
  if (
    typeof metric === "object" &&
    metric !== null &&
    "labelNames" in metric &&
    Array.isArray(metric.labelNames)
  ) {
    return metric.labelNames.filter((name): name is string => typeof name === "string");
  }
  return [];
}

/**
 * Labels Prometheus attaches from the scrape target (Service endpoints discovery), and the
 * cluster label a Prometheus shared by clusters adds (external labels, Thanos, Mimir).
 */
const TARGET_LABELS = new Set([
  "cluster",
  "job",
  "namespace",
  "pod",
  "service",
  "endpoint",
  "instance",
  "container",
]);

/** The label values the metrics can carry (README, Metrics); a matcher on these labels must use them. */
const LABEL_VALUES: Record<string, ReadonlySet<string>> = {
  handler: new Set(ENDPOINT_KEYS.map((endpoint) => ENDPOINTS[endpoint].label)),
  // Verdict results, and the TLS reload results.
  result: new Set([...VERDICT_RESULTS, ...TLS_RELOAD_RESULTS]),
  reason: new Set(
    ENDPOINT_KEYS.flatMap((endpoint) => resultReasons(endpoint).map(({ reason }) => reason)),
  ),
  outcome: new Set(["success", "not_found", "error", "timeout"]),
  verb: new Set(["get", "list"]),
  resource: new Set(["deployments", "statefulsets", "cocoonhibernations"]),
};

/**
 * Problems with one expression's series: unknown names, undeclared labels, label values that
 * never occur. Its syntax is promtool's check (test/alerts).
 */
export function expressionProblems(expr: string): string[] {
  const problems: string[] = [];
  for (const selector of promqlSelectors(expr)) {
    if (SCRAPE_SERIES.has(selector.metric)) continue;
    if (!registeredSeries.has(selector.metric)) {
      problems.push(`${selector.metric} is not registered in src/observability/metrics.ts`);
      continue;
    }
    const family = familyOfSeries(selector.metric, families);
    const declared = new Set(family ? labelNamesOf(family) : []);
    if (selector.metric.endsWith("_bucket")) declared.add("le");
    for (const matcher of selector.matchers) {
      if (!declared.has(matcher.name) && !TARGET_LABELS.has(matcher.name)) {
        problems.push(`${selector.metric} has no label ${matcher.name}`);
      }
      const allowed = LABEL_VALUES[matcher.name];
      if (allowed === undefined || !declared.has(matcher.name) || matcher.value.startsWith("$"))
        continue;
      const values = matcher.op.endsWith("~") ? matcher.value.split("|") : [matcher.value];
      for (const value of values) {
        if (!allowed.has(value))
          problems.push(`${selector.metric}: ${matcher.name}="${value}" never occurs`);
      }
    }
  }
  return problems;
}
