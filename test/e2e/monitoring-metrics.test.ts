import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { render } from "../manifests/kustomize";
import {
  exposedSeriesNames,
  type MetricFamily,
  promqlMetricNames,
  SCRAPE_SERIES,
} from "../support/promql";
import { startWebhook, type WebhookProcess } from "./harness";

/** Every `expr` string anywhere in the rendered monitoring objects (alerts and dashboard panels). */
function expressions(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") {
    if (value.trimStart().startsWith("{")) {
      try {
        expressions(JSON.parse(value), into); // the dashboard JSON inside its ConfigMap
      } catch {
        // plain string that happens to start with a brace
      }
    }
  } else if (Array.isArray(value)) {
    for (const item of value) expressions(item, into);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === "expr" && typeof child === "string") into.push(child);
      else expressions(child, into);
    }
  }
  return into;
}

/** Metric families as the running binary's /metrics page declares them (`# TYPE name type`). */
function familiesOf(metricsText: string): MetricFamily[] {
  return [...metricsText.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name = "", type = ""]) => ({
    name,
    type,
  }));
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
    const exprs = expressions(render("manifests/monitoring"));
    expect(exprs.length).toBeGreaterThan(10);
    const exposed = exposedSeriesNames(familiesOf(await webhook.metrics()));
    const missing = exprs.flatMap((expr) =>
      promqlMetricNames(expr)
        .filter((name) => !exposed.has(name) && !SCRAPE_SERIES.has(name))
        .map((name) => `${name} (in: ${expr.slice(0, 80)})`),
    );
    expect(missing).toEqual([]);
  });
});
