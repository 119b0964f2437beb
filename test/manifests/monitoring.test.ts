import { describe, expect, test } from "bun:test";
import {
  type IPrometheusRule,
  PrometheusRule,
  ServiceMonitor,
} from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { ConfigMap } from "kubernetes-models/v1";
import { exprsIn, promqlMetricNames } from "../support/promql";
import { expressionProblems, registeredSeries } from "../support/registered-series";
import {
  findObject,
  KUBECTL,
  type KubeObject,
  kubectlKustomize,
  objectKey,
  render,
} from "./kustomize";
import { validateSchema } from "./schemas";

const objects = render("manifests/monitoring");
const defaults = render("manifests/default");

test("the expression check catches unknown series, labels and label values", () => {
  expect(expressionProblems("rate(cocoon_webhook_admissions_total[5m])")).toEqual([
    "cocoon_webhook_admissions_total is not registered in src/observability/metrics.ts",
  ]);
  expect(expressionProblems('cocoon_webhook_tls_reloads_total{status="failure"}')).toEqual([
    "cocoon_webhook_tls_reloads_total has no label status",
  ]);
  expect(expressionProblems('cocoon_webhook_admission_total{result="denied"}')).toEqual([
    'cocoon_webhook_admission_total: result="denied" never occurs',
  ]);
  expect(expressionProblems('cocoon_webhook_admission_duration_seconds_bucket{le="5"}')).toEqual(
    [],
  );
  expect(expressionProblems("cocoon_webhook_admission_total_bucket")).toEqual([
    "cocoon_webhook_admission_total_bucket is not registered in src/observability/metrics.ts",
  ]);
});

describe("manifests/monitoring renders", () => {
  test("the expected inventory, all passing their schemas", () => {
    expect(objects.map(objectKey).sort()).toEqual([
      "ConfigMap cocoon-system/cocoon-webhook-dashboard",
      "PrometheusRule cocoon-system/cocoon-webhook",
      "ServiceMonitor cocoon-system/cocoon-webhook",
    ]);
    for (const object of objects)
      expect(() => validateSchema(object), objectKey(object)).not.toThrow();
  });

  test.skipIf(KUBECTL === undefined)("the same objects as kubectl kustomize", () => {
    const byKey = (list: readonly KubeObject[]) =>
      [...list].sort((a, b) => objectKey(a).localeCompare(objectKey(b)));
    expect(byKey(kubectlKustomize("manifests/monitoring"))).toEqual(byKey(objects));
  });

  test("the ServiceMonitor scrapes the Service's metrics port", () => {
    const monitor = findObject(objects, "ServiceMonitor", "cocoon-webhook");
    if (!ServiceMonitor.is(monitor)) throw new Error("not a ServiceMonitor");
    const service = findObject(defaults, "Service", "cocoon-webhook");
    const serviceMetadata = service.metadata as {
      labels: Record<string, string>;
      namespace: string;
    };
    for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels ?? {})) {
      expect(serviceMetadata.labels[key]).toBe(value);
    }
    expect(monitor.spec.namespaceSelector?.matchNames).toEqual([serviceMetadata.namespace]);
    const ports = (service.spec as { ports: Array<{ name: string }> }).ports.map(
      (port) => port.name,
    );
    expect(monitor.spec.endpoints?.map((endpoint) => endpoint.port)).toEqual(["metrics"]);
    expect(ports).toContain("metrics");
  });
});

describe("PrometheusRule", () => {
  const object = findObject(objects, "PrometheusRule", "cocoon-webhook");
  if (!PrometheusRule.is(object)) throw new Error("not a PrometheusRule");
  const rule: IPrometheusRule = object;
  const alerts = (rule.spec.groups ?? []).flatMap((group) => group.rules ?? []);
  const exprOf = (name: string) => String(alerts.find((alert) => alert.alert === name)?.expr ?? "");

  test("every alert expression selects registered metrics, labels and label values", () => {
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) {
      expect(expressionProblems(String(alert.expr)), alert.alert).toEqual([]);
    }
  });

  test("every alert has a severity, a summary and a description", () => {
    for (const alert of alerts) {
      expect(["critical", "warning", "info"], alert.alert).toContain(alert.labels?.severity ?? "");
      expect(alert.annotations?.summary, alert.alert).toBeTruthy();
      expect(alert.annotations?.description, alert.alert).toBeTruthy();
    }
    expect(new Set(alerts.map((alert) => alert.alert)).size).toBe(alerts.length);
  });

  test("the alerts cover availability, fail-closed errors, denials, latency and the certificate", () => {
    expect(promqlMetricNames(exprOf("CocoonWebhookDown"))).toEqual(["up"]);
    expect(exprOf("CocoonWebhookDown")).toStartWith("absent(");
    expect(exprOf("CocoonWebhookFailingClosed")).toContain(
      'cocoon_webhook_admission_total{result="error"}',
    );
    expect(exprOf("CocoonWebhookDenialSpike")).toContain(
      'cocoon_webhook_admission_total{result="deny"}',
    );
    expect(promqlMetricNames(exprOf("CocoonWebhookLatencyNearTimeout"))).toEqual([
      "cocoon_webhook_admission_duration_seconds_bucket",
    ]);
    expect(exprOf("CocoonWebhookCertificateExpiringSoon")).toContain("14 * 86400");
    expect(promqlMetricNames(exprOf("CocoonWebhookCertificateExpiringSoon"))).toEqual([
      "cocoon_webhook_tls_certificate_expiry_timestamp_seconds",
    ]);
    expect(exprOf("CocoonWebhookCertificateReloadFailing")).toContain(
      'cocoon_webhook_tls_reloads_total{result="failure"}',
    );
  });

  test("the latency alert fires below the webhooks' 5s timeout", () => {
    const threshold = Number(
      />\s*([\d.]+)\s*$/.exec(exprOf("CocoonWebhookLatencyNearTimeout"))?.[1],
    );
    expect(threshold).toBeGreaterThan(0);
    expect(threshold).toBeLessThan(5);
  });
});

describe("Grafana dashboard", () => {
  const configMap = findObject(objects, "ConfigMap", "cocoon-webhook-dashboard");
  if (!ConfigMap.is(configMap)) throw new Error("not a ConfigMap");
  const [file, ...others] = Object.entries(configMap.data ?? {});
  const dashboard: unknown = JSON.parse(file?.[1] ?? "null");

  const exprs = exprsIn(dashboard);
  const allMetrics = new Set(exprs.flatMap((expr) => promqlMetricNames(expr)));

  test("one dashboard JSON file, picked up by the Grafana sidecar", () => {
    expect(others).toEqual([]);
    expect(file?.[0]).toEndWith(".json");
    expect(configMap.metadata?.labels?.grafana_dashboard).toBe("1");
    expect(dashboard).toMatchObject({ uid: "cocoon-webhook", title: "cocoon-webhook" });
  });

  test("every panel query selects registered metrics, labels and label values", () => {
    expect(exprs.length).toBeGreaterThan(5);
    for (const expr of exprs) expect(expressionProblems(expr), expr).toEqual([]);
  });

  test("template variables query registered metrics", () => {
    const templating = (dashboard as { templating?: { list?: Array<{ definition?: string }> } })
      .templating;
    for (const variable of templating?.list ?? []) {
      const metric = /label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(
        variable.definition ?? "",
      )?.[1];
      if (metric !== undefined) expect(registeredSeries.has(metric), metric).toBe(true);
    }
  });

  test("panels cover admissions, latency, apiserver calls and certificate expiry", () => {
    for (const metric of [
      "cocoon_webhook_admission_total",
      "cocoon_webhook_admission_duration_seconds_bucket",
      "cocoon_webhook_apiserver_requests_total",
      "cocoon_webhook_apiserver_request_duration_seconds_bucket",
      "cocoon_webhook_tls_certificate_expiry_timestamp_seconds",
      "cocoon_webhook_tls_reloads_total",
    ]) {
      expect(allMetrics.has(metric), metric).toBe(true);
    }
    expect(
      exprs.some((expr) =>
        /sum by \(handler, result\) \(rate\(cocoon_webhook_admission_total/.test(expr),
      ),
    ).toBe(true);
    for (const quantile of ["0.5", "0.9", "0.99"]) {
      expect(
        exprs.some((expr) =>
          expr.startsWith(`histogram_quantile(${quantile}, sum by (handler, le)`),
        ),
      ).toBe(true);
    }
  });
});
