/*
 * charts/cocoon-webhook, hand-kept, against what it must agree with: with its
 * default values `helm template` renders exactly what kustomize renders of
 * manifests/, object by object; its webhook registrations and RBAC role are
 * what the endpoint table (src/endpoints/index.ts) gives; `helm lint`
 * passes. Run by `make lint-chart` (helm and kustomize come from test/tools,
 * built on first use).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { CHART_DIR } from "../../scripts/chart-files";
import { generatedFiles } from "../../scripts/generated-files";
import { kustomize, runTool, yamlObjects } from "../../scripts/tools";
import { loadConfig } from "../../src/config";
import { ENDPOINT_KEYS, ENDPOINTS } from "../../src/endpoints";
import {
  containerOf,
  environmentOf,
  helmError,
  helmTemplate,
  type Json,
  RELEASE_LABELS,
  webhooksOf,
  withoutReleaseLabels,
} from "./render";

const REPO = join(import.meta.dir, "../..");
const CHART = join(REPO, CHART_DIR);

const identity = (object: Json) => {
  const metadata = object.metadata as Json;
  return `${object.kind} ${metadata.namespace ?? ""}/${metadata.name}`;
};

/** Objects by kind, namespace and name, for a comparison that names what differs. */
function byIdentity(objects: Json[]): Record<string, Json> {
  return Object.fromEntries(
    objects.map((object) => [identity(object), withoutReleaseLabels(object)]),
  );
}

/** What the endpoint table gives for a file of manifests/base (scripts/generated-files.ts). */
function fromEndpointTable(path: string): Json {
  const read = (file: string) => readFileSync(join(REPO, file), "utf8");
  const text = generatedFiles(read).get(path);
  if (text === undefined) throw new Error(`${path} is not written from the endpoint table`);
  return parse(text) as Json;
}

describe("charts/cocoon-webhook", () => {
  test("registers each endpoint as the endpoint table does: paths, rules, selectors, matchConditions", () => {
    const rendered = helmTemplate("cocoon-system");
    for (const [kind, path] of [
      ["MutatingWebhookConfiguration", "manifests/base/mutating-webhook.yaml"],
      ["ValidatingWebhookConfiguration", "manifests/base/validating-webhook.yaml"],
    ] as const) {
      const expected = fromEndpointTable(path);
      const configuration = withoutReleaseLabels(
        rendered.find((object) => object.kind === kind) as Json,
      );
      expect(configuration.webhooks, kind).toEqual(expected.webhooks);
      expect(configuration.metadata, kind).toEqual(expected.metadata);
    }
  });

  test("grants the webhook's account what the endpoint table says the policies read", () => {
    const role = withoutReleaseLabels(
      helmTemplate("cocoon-system").find((object) => object.kind === "ClusterRole") as Json,
    );
    expect(role).toEqual(fromEndpointTable("manifests/base/cluster-role.yaml"));
  });

  test("in every variant, the registrations name the endpoints the table has, and no other", () => {
    const rendered = helmTemplate(
      "platform",
      "webhook.matchConditions=false",
      "fullnameOverride=gate",
    );
    const paths = webhooksOf(rendered).map(
      (webhook) => ((webhook.clientConfig as Json).service as Json).path,
    );
    expect(paths.sort()).toEqual(ENDPOINT_KEYS.map((endpoint) => ENDPOINTS[endpoint].path).sort());
  });

  test("passes helm lint --strict, with defaults and with every switch flipped", () => {
    runTool("helm", ["lint", "--strict", CHART_DIR]);
    runTool("helm", [
      "lint",
      "--strict",
      CHART_DIR,
      "--set",
      "monitoring.serviceMonitor.enabled=true,monitoring.prometheusRule.enabled=true,monitoring.dashboard.enabled=true",
      "--set",
      "certificate.source=secret,webhook.caBundle=Q0E=,webhook.matchConditions=false,priorityClassName=",
      "--set",
      "autoscaling.enabled=true,networkPolicy.enabled=true,webhook.failurePolicy=Ignore",
      "--set",
      "audit.rbac.enabled=true,audit.cronJob.enabled=true",
    ]);
    runTool("helm", ["lint", "--strict", CHART_DIR, "--set", "certificate.source=generate"]);
    runTool("helm", [
      "lint",
      "--strict",
      CHART_DIR,
      "--set",
      "replicaCount=0,webhook.url=https://192.0.2.1,certificate.source=secret,webhook.caBundle=Q0E=",
    ]);
  });

  test("labels every object, and the pods, with the release's standard labels", () => {
    const rendered = helmTemplate(
      "cocoon-system",
      "monitoring.serviceMonitor.enabled=true",
      "audit.cronJob.enabled=true",
    );
    const deployment = rendered.find((object) => object.kind === "Deployment") as Json;
    const pod = (deployment.spec as { template: Json }).template;
    const cronJob = rendered.find((object) => object.kind === "CronJob") as Json;
    const jobPod = (cronJob.spec as { jobTemplate: { spec: { template: Json } } }).jobTemplate.spec
      .template;
    for (const metadata of [
      ...rendered.map((object) => object.metadata),
      pod.metadata,
      jobPod.metadata,
    ]) {
      expect(Object.keys((metadata as { labels: Json }).labels)).toEqual(
        expect.arrayContaining(RELEASE_LABELS),
      );
    }
    const labels = (deployment.metadata as { labels: Json }).labels;
    expect(labels["app.kubernetes.io/instance"]).toBe("cocoon-webhook");
    expect(labels["helm.sh/chart"]).toMatch(/^cocoon-webhook-\d+\.\d+\.\d+/);
    // The selector is immutable: the release's labels stay out of it.
    expect((deployment.spec as { selector: Json }).selector).toEqual({
      matchLabels: { "app.kubernetes.io/name": "cocoon-webhook" },
    });
  });

  test("renders manifests/default, object by object, with the default values", () => {
    expect(byIdentity(helmTemplate("cocoon-system"))).toEqual(
      byIdentity(kustomize("manifests/default")),
    );
  });

  test("renders manifests/monitoring too with the monitoring switches on", () => {
    const rendered = helmTemplate(
      "cocoon-system",
      "monitoring.serviceMonitor.enabled=true",
      "monitoring.prometheusRule.enabled=true",
      "monitoring.dashboard.enabled=true",
    );
    expect(byIdentity(rendered)).toEqual(
      byIdentity([...kustomize("manifests/default"), ...kustomize("manifests/monitoring")]),
    );
  });

  test("renders manifests/audit too with audit.rbac on, and manifests/audit-cronjob with audit.cronJob", () => {
    const defaults = kustomize("manifests/default");
    expect(byIdentity(helmTemplate("cocoon-system", "audit.rbac.enabled=true"))).toEqual(
      byIdentity([...defaults, ...kustomize("manifests/audit")]),
    );
    // The CronJob brings the RBAC it runs with, whether audit.rbac is on or not.
    for (const rbac of ["false", "true"]) {
      const rendered = helmTemplate(
        "cocoon-system",
        "audit.cronJob.enabled=true",
        `audit.rbac.enabled=${rbac}`,
      );
      expect(byIdentity(rendered)).toEqual(
        byIdentity([...defaults, ...kustomize("manifests/audit-cronjob")]),
      );
    }
  });

  test("renders manifests/default-no-match-conditions with matchConditions off", () => {
    expect(byIdentity(helmTemplate("cocoon-system", "webhook.matchConditions=false"))).toEqual(
      byIdentity(kustomize("manifests/default-no-match-conditions")),
    );
  });

  test("in another namespace, names it wherever the manifests name cocoon-system", () => {
    const rendered = helmTemplate(
      "platform",
      "monitoring.serviceMonitor.enabled=true",
      "audit.cronJob.enabled=true",
    );
    const text = JSON.stringify(rendered);
    const namespaces = rendered.map((object) => (object.metadata as Json).namespace);
    expect(new Set(namespaces)).toEqual(new Set(["platform", undefined]));
    expect(text).not.toContain("cocoon-system/");
    expect(text).not.toContain(".cocoon-system.");
    expect(text).toContain("cocoon-webhook.platform.svc");
    expect(text).toContain('"cert-manager.io/inject-ca-from":"platform/cocoon-webhook-tls"');
    const guarded = webhooksOf(rendered).filter((webhook) => webhook.namespaceSelector);
    expect(guarded.length).toBe(2);
    for (const webhook of guarded) {
      const [excluded] = (webhook.namespaceSelector as { matchExpressions: Json[] })
        .matchExpressions;
      expect(excluded?.values).toContain("platform");
      expect(excluded?.values).toContain("cocoon-system");
    }
    // The operator's identity is not the release's namespace.
    expect(text).toContain("system:serviceaccount:cocoon-system:cocoon-operator");
  });

  test("a URL and CA bundle replace the Service and cert-manager (out-of-cluster development)", () => {
    const rendered = helmTemplate(
      "dev",
      "webhook.url=https://192.0.2.1:8443/",
      "webhook.caBundle=Q0E=",
      "certificate.source=secret",
      "certificate.secretName=my-tls",
    );
    expect(rendered.map((object) => object.kind)).not.toContain("Certificate");
    expect(rendered.map((object) => object.kind)).not.toContain("Issuer");
    const webhooks = webhooksOf(rendered);
    expect(webhooks.map((webhook) => webhook.clientConfig)).toEqual(
      (["mutating", "validating"] as const)
        .flatMap((kind) =>
          ENDPOINT_KEYS.filter((endpoint) => ENDPOINTS[endpoint].registration.kind === kind),
        )
        .map((endpoint) => ({
          url: `https://192.0.2.1:8443${ENDPOINTS[endpoint].path}`,
          caBundle: "Q0E=",
        })),
    );
    expect(JSON.stringify(rendered)).not.toContain("inject-ca-from");
    expect(JSON.stringify(rendered)).toContain('"secretName":"my-tls"');
  });

  test("refuses a provided certificate without a CA bundle, naming the value", () => {
    expect(helmError("certificate.source=secret")).toContain("webhook.caBundle is required");
  });

  test("values.schema.json refuses misspelt and mistyped values, naming them", () => {
    const refused = helmError("replicaCount=two", "env.POD_CREATOR=x", "image.digest=latest");
    expect(refused).toContain("/replicaCount");
    expect(refused).toContain("POD_CREATOR");
    expect(refused).toContain("/image/digest");
  });

  test("env sets the webhook's variables, valid as the binary reads them; extraEnv appends", () => {
    const values = yamlObjects(readFileSync(join(CHART, "values.yaml"), "utf8"))[0] as Json;
    expect(() => loadConfig(values.env as Record<string, string>)).not.toThrow();
    expect(Object.keys(values.env as Json)).not.toContain("ENFORCEMENT");
    const rendered = helmTemplate(
      "cocoon-system",
      "env.MAX_REQUEST_BYTES=1048576",
      "env.WEBHOOK_LOG_LEVEL=debug",
      "extraEnv[0].name=EXTRA,extraEnv[0].value=on",
      `image.digest=sha256:${"a".repeat(64)}`,
    );
    const container = containerOf(rendered);
    const env = environmentOf(rendered);
    expect(env).toMatchObject({
      MAX_REQUEST_BYTES: "1048576",
      WEBHOOK_LOG_LEVEL: "debug",
      EXTRA: "on",
    });
    expect(() => loadConfig(env)).not.toThrow();
    expect(container.image).toBe(`ghcr.io/cocoonstack/cocoon-webhook@sha256:${"a".repeat(64)}`);
  });
});
