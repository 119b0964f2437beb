/*
 * Monitoring follows the install: the latency alert's threshold and text come
 * from webhook.timeoutSeconds, each alert can be switched off or re-tuned, URL
 * mode renders no alert it cannot feed, the ServiceMonitor takes the scrape
 * settings, and the dashboard goes where the Grafana sidecar looks.
 */
import { describe, expect, test } from "bun:test";
import { helmError, helmTemplate, type Json, only } from "./render";

type Rule = { alert: string; expr: string; for: string; annotations: Record<string, string> };

const MONITORING = [
  "monitoring.serviceMonitor.enabled=true",
  "monitoring.prometheusRule.enabled=true",
  "monitoring.dashboard.enabled=true",
];
const URL_MODE = [
  "replicaCount=0",
  "webhook.url=https://192.0.2.10:8443",
  "webhook.caBundle=Q0E=",
  "certificate.source=secret",
];

function rulesOf(objects: Json[]): Rule[] {
  const spec = only(objects, "PrometheusRule").spec as { groups: { rules: Rule[] }[] };
  return spec.groups.flatMap((group) => group.rules);
}

const rule = (objects: Json[], name: string) =>
  rulesOf(objects).find((each) => each.alert === name) as Rule;

describe("alerts", () => {
  test("LatencyNearTimeout fires at half of webhook.timeoutSeconds and names it", () => {
    for (const [timeout, threshold] of [
      ["5", "2.5"],
      ["10", "5"],
      ["2", "1"],
    ] as const) {
      const rendered = helmTemplate(
        "cocoon-system",
        ...MONITORING,
        `webhook.timeoutSeconds=${timeout}`,
        "env.APISERVER_TIMEOUT=800ms",
      );
      const latency = rule(rendered, "CocoonWebhookLatencyNearTimeout");
      expect(latency.expr.trim()).toEndWith(`) > ${threshold}`);
      expect(latency.annotations.summary).toContain(`near the ${timeout}s timeout`);
      expect(latency.annotations.description).toContain("over half the webhook timeout");
    }
  });

  test("APISERVER_TIMEOUT at or above the webhook's timeout is refused, naming both", () => {
    expect(helmError("webhook.timeoutSeconds=3")).toContain(
      "env.APISERVER_TIMEOUT (3000ms, 3s when unset) must be below webhook.timeoutSeconds (3s)",
    );
    expect(helmError("env.APISERVER_TIMEOUT=1m", "webhook.timeoutSeconds=30")).toContain(
      "env.APISERVER_TIMEOUT (60000ms",
    );
    expect(helmError("env.APISERVER_TIMEOUT=null", "webhook.timeoutSeconds=3")).toContain(
      "3s when unset",
    );
    expect(
      helmTemplate("cocoon-system", "env.APISERVER_TIMEOUT=2500ms", "webhook.timeoutSeconds=3"),
    ).not.toEqual([]);
  });

  test("each alert can be switched off, and its for and threshold set", () => {
    const rendered = helmTemplate(
      "cocoon-system",
      ...MONITORING,
      "monitoring.prometheusRule.alerts.CocoonWebhookDenialSpike.enabled=false",
      "monitoring.prometheusRule.alerts.CocoonWebhookFailingClosed.threshold=0.2",
      "monitoring.prometheusRule.alerts.CocoonWebhookFailingClosed.for=30m",
      "monitoring.prometheusRule.alerts.CocoonWebhookCertificateExpiringSoon.threshold=21",
    );
    const names = rulesOf(rendered).map((each) => each.alert);
    expect(names).not.toContain("CocoonWebhookDenialSpike");
    expect(names.length).toBe(10);
    const latency = rule(
      helmTemplate(
        "cocoon-system",
        ...MONITORING,
        "monitoring.prometheusRule.alerts.CocoonWebhookLatencyNearTimeout.threshold=0.8",
      ),
      "CocoonWebhookLatencyNearTimeout",
    );
    expect(latency.expr.trim()).toEndWith(") > 4");
    expect(latency.annotations.description).toContain("over 80% of the webhook timeout");
    const failing = rule(rendered, "CocoonWebhookFailingClosed");
    expect(failing.expr.trim()).toEndWith("> 0.2");
    expect(failing.for).toBe("30m");
    const expiring = rule(rendered, "CocoonWebhookCertificateExpiringSoon");
    expect(expiring.expr).toContain("< 21 * 86400");
    expect(expiring.annotations.summary).toContain("within 21 days");
    expect(helmError("monitoring.prometheusRule.alerts.CocoonWebhookDown.threshold=1")).toContain(
      "additional properties 'threshold' not allowed",
    );
    expect(helmError("monitoring.prometheusRule.alerts.CocoonWebhookDown.for=5 minutes")).toContain(
      "/monitoring/prometheusRule/alerts/CocoonWebhookDown/for",
    );
  });

  test("the texts say the configured durations and factors as the defaults do", () => {
    const alert = (name: string) => `monitoring.prometheusRule.alerts.${name}`;
    const rendered = helmTemplate(
      "cocoon-system",
      ...MONITORING,
      `${alert("CocoonWebhookDown")}.for=15m`,
      `${alert("CocoonWebhookWarningsPersist")}.for=48h`,
      `${alert("CocoonWebhookInWarnMode")}.for=14d`,
      `${alert("CocoonWebhookDenialSpike")}.threshold=10`,
    );
    expect(rule(rendered, "CocoonWebhookDown").annotations.description).toContain(
      "replica for 15 minutes.",
    );
    expect(rule(rendered, "CocoonWebhookWarningsPersist").annotations.description).toStartWith(
      "For 48 hours,",
    );
    expect(rule(rendered, "CocoonWebhookInWarnMode").annotations.summary).toEndWith(
      "in warn mode for 14 days.",
    );
    expect(rule(rendered, "CocoonWebhookDenialSpike").annotations.description).toContain(
      "more than 10 times the",
    );
  });

  test("a group whose alerts are all off is left out (no group without rules)", () => {
    const off = (alert: string) => `monitoring.prometheusRule.alerts.${alert}.enabled=false`;
    const rendered = helmTemplate(
      "cocoon-system",
      ...MONITORING,
      off("CocoonWebhookWarningsPersist"),
      off("CocoonWebhookInWarnMode"),
    );
    const groups = (only(rendered, "PrometheusRule").spec as { groups: Json[] }).groups;
    expect(groups.map((group) => group.name)).toEqual([
      "cocoon-webhook.availability",
      "cocoon-webhook.admission",
      "cocoon-webhook.tls",
    ]);
    for (const group of groups) expect((group.rules as Json[]).length).toBeGreaterThan(0);
  });

  test("the availability alerts select the release's Service as the job", () => {
    const rendered = helmTemplate("platform", ...MONITORING, "fullnameOverride=gate");
    expect(rule(rendered, "CocoonWebhookDown").expr).toBe(
      'absent(up{job="gate", namespace="platform"} == 1)',
    );
    expect(rule(rendered, "CocoonWebhookReplicaDown").expr).toContain('job="gate"');
  });

  test("URL mode renders no alert on up{} (no Service is scraped), nor a ServiceMonitor", () => {
    const rendered = helmTemplate("dev", ...URL_MODE, "monitoring.prometheusRule.enabled=true");
    const names = rulesOf(rendered).map((each) => each.alert);
    expect(names).not.toContain("CocoonWebhookDown");
    expect(names).not.toContain("CocoonWebhookReplicaDown");
    expect(names).toContain("CocoonWebhookFailingClosed");
    expect(JSON.stringify(rulesOf(rendered))).not.toContain("up{");
    expect(helmError(...URL_MODE, "monitoring.serviceMonitor.enabled=true")).toContain(
      "/monitoring/serviceMonitor/enabled",
    );
  });
});

describe("ServiceMonitor and dashboard", () => {
  test("the ServiceMonitor takes interval, scrapeTimeout, relabelings and metricRelabelings", () => {
    const rendered = helmTemplate(
      "cocoon-system",
      ...MONITORING,
      "monitoring.serviceMonitor.interval=15s",
      "monitoring.serviceMonitor.scrapeTimeout=10s",
      "monitoring.serviceMonitor.relabelings[0].targetLabel=cluster",
      "monitoring.serviceMonitor.relabelings[0].replacement=east",
      "monitoring.serviceMonitor.metricRelabelings[0].action=drop",
      "monitoring.serviceMonitor.metricRelabelings[0].regex=process_.*",
    );
    const [endpoint] = (only(rendered, "ServiceMonitor").spec as { endpoints: Json[] }).endpoints;
    expect(endpoint).toMatchObject({
      port: "metrics",
      interval: "15s",
      scrapeTimeout: "10s",
      relabelings: [{ targetLabel: "cluster", replacement: "east" }],
      metricRelabelings: [{ action: "drop", regex: "process_.*" }],
    });
    expect(helmError(...MONITORING, "monitoring.serviceMonitor.interval=often")).toContain(
      "/monitoring/serviceMonitor/interval",
    );
  });

  test("the dashboard goes to the sidecar's namespace, with its label and annotations", () => {
    const rendered = helmTemplate(
      "cocoon-system",
      ...MONITORING,
      "monitoring.dashboard.namespace=grafana",
      "monitoring.dashboard.labels.grafana_dashboard=null",
      "monitoring.dashboard.labels.dashboards=cocoon",
      "monitoring.dashboard.annotations.grafana_folder=Platform",
    );
    const dashboard = rendered.find(
      (object) =>
        object.kind === "ConfigMap" &&
        String((object.metadata as Json).name).endsWith("-dashboard"),
    ) as Json;
    const metadata = dashboard.metadata as {
      namespace: string;
      labels: Json;
      annotations: Json;
    };
    expect(metadata.namespace).toBe("grafana");
    expect(metadata.labels.dashboards).toBe("cocoon");
    expect(metadata.labels).not.toHaveProperty("grafana_dashboard");
    expect(metadata.annotations).toEqual({ grafana_folder: "Platform" });
  });
});
