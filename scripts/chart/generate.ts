/*
 * charts/cocoon-webhook, generated from the kustomize output so that the
 * manifests stay the one source: every object of manifests/default,
 * manifests/monitoring, manifests/audit and manifests/audit-cronjob becomes a
 * template whose default values render it unchanged (test/chart compares them
 * object by object; the last three only when switched on), with the settings
 * operators change turned into values.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { type Change, changesOf } from "./changes";
import { CHART_ENVIRONMENT } from "./environment";
import { HPA, helpers, NETWORK_POLICY, NOTES, TEST_POD } from "./helpers";
import { TemplateText } from "./template-text";
import { valuesSchema, valuesYaml } from "./values";

type Json = Record<string, unknown>;
type Render = (directory: string) => Json[];

export const CHART_DIR = "charts/cocoon-webhook";
const NAMESPACE = "cocoon-system";
const DASHBOARD_FILE = "files/dashboard.json";
/** The chart's README (`helm show readme`), kept beside the generator. */
const README_SOURCE = "scripts/chart/README.md";
const REPOSITORY = "https://github.com/cocoonstack/cocoon-webhook";

/** Every file of the chart, by its path inside the chart folder. */
export function generateChart(render: Render, repoRoot: string): Map<string, string> {
  const version: string = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version;
  const defaults = render("manifests/default");
  const monitoring = render("manifests/monitoring");
  const auditRbac = render("manifests/audit");
  // manifests/audit-cronjob includes manifests/audit: its own objects are the rest.
  const auditJob = render("manifests/audit-cronjob").filter(
    (object) => !auditRbac.some((rbac) => templateName(rbac) === templateName(object)),
  );
  const deployment = only(defaults, "Deployment");
  const files = new Map<string, string>();
  const [container] = (path(deployment, ["spec", "template", "spec", "containers"]) ??
    []) as Json[];
  const changes = changesOf(readFileSync(join(repoRoot, "CHANGELOG.md"), "utf8"), version);
  files.set("Chart.yaml", chartYaml(version, String(container?.image), changes));
  files.set(
    "values.yaml",
    valuesYaml(deployment, webhookDefaults(defaults), only(auditJob, "CronJob")),
  );
  files.set("values.schema.json", `${JSON.stringify(valuesSchema(), null, 2)}\n`);
  files.set("README.md", readFileSync(join(repoRoot, README_SOURCE), "utf8"));
  files.set("templates/_helpers.tpl", helpers());
  files.set("templates/NOTES.txt", NOTES);
  files.set("templates/horizontalpodautoscaler-cocoon-webhook.yaml", HPA);
  files.set("templates/networkpolicy-cocoon-webhook.yaml", NETWORK_POLICY);
  files.set("templates/tests/pod-cocoon-webhook-test.yaml", TEST_POD);
  files.set(DASHBOARD_FILE, dashboardOf(monitoring));
  for (const object of [...defaults, ...monitoring]) {
    files.set(`templates/${templateName(object)}`, templateOf(object, version));
  }
  for (const object of auditRbac) {
    files.set(`templates/${templateName(object)}`, templateOf(object, version, AUDIT_RBAC));
  }
  for (const object of auditJob) {
    files.set(`templates/${templateName(object)}`, templateOf(object, version, AUDIT_CRON_JOB));
  }
  return files;
}

/** The git ref whose docs a chart of `version` links to: its tag, or main for a -dev build (no tag). */
const docsRef = (version: string) => (version.includes("-") ? "main" : `v${version}`);

function chartYaml(version: string, image: string, changes: readonly Change[]): string {
  const docs = (page: string) => `${REPOSITORY}/blob/${docsRef(version)}/docs/${page}`;
  return `${HEADER}${stringify(
    {
      apiVersion: "v2",
      name: "cocoon-webhook",
      description: "Kubernetes admission webhook for the cocoonstack VM platform",
      type: "application",
      version,
      appVersion: version,
      // The webhook configurations' matchConditions need 1.30.
      kubeVersion: ">=1.30.0-0",
      home: REPOSITORY,
      icon: `${REPOSITORY}/raw/main/docs/images/icon.svg`,
      sources: [REPOSITORY],
      keywords: ["admission-webhook", "cocoonstack", "virtual-machines", "policy", "kubernetes"],
      maintainers: [{ name: "cocoonstack", url: "https://github.com/cocoonstack" }],
      annotations: {
        "artifacthub.io/license": "Apache-2.0",
        "artifacthub.io/category": "security",
        "artifacthub.io/prerelease": String(version.includes("-")),
        "artifacthub.io/images": stringify([{ name: "cocoon-webhook", image }]),
        "artifacthub.io/links": stringify([
          { name: "Installation", url: docs("installation.md") },
          { name: "Operations", url: docs("operations.md") },
          { name: "Changelog", url: `${REPOSITORY}/blob/${docsRef(version)}/CHANGELOG.md` },
        ]),
        ...(changes.length > 0 ? { "artifacthub.io/changes": stringify(changes) } : {}),
      },
    },
    { lineWidth: 0 },
  )}`;
}

const HEADER =
  "# Generated by scripts/generate-chart.ts from manifests/ (make chart): edit those, not this.\n";

function templateName(object: Json): string {
  const { kind, metadata } = object as { kind: string; metadata: { name: string } };
  return `${kind.toLowerCase()}-${metadata.name}.yaml`;
}

/** audit's ServiceAccount and list-only ClusterRole exist when asked for, and for its CronJob. */
const AUDIT_RBAC = "or .Values.audit.rbac.enabled .Values.audit.cronJob.enabled";
const AUDIT_CRON_JOB = ".Values.audit.cronJob.enabled";

/**
 * The one template of an object: its YAML with values in place of what
 * operators change, rendered when `switchedOn` (if given) and its kind's
 * condition (if any) hold.
 */
function templateOf(original: Json, version: string, switchedOn?: string): string {
  const template = new TemplateText();
  const object = replaceInStrings(structuredClone(original), [
    [NAMESPACE, template.expression("{{ .Release.Namespace }}")],
    // Runbook links name the release whose docs they point at.
    [`/blob/v${version}/`, template.expression("/blob/v{{ .Chart.AppVersion }}/")],
  ]);
  const metadata = object.metadata as Json;
  metadata.labels = labelsEntry(template, metadata.labels ?? {});
  const conditions = [switchedOn, TEMPLATED[String(original.kind)]?.(object, template, original)];
  const [first, second] = conditions.filter((each) => each !== undefined);
  const condition = second === undefined ? first : `and (${first}) (${second})`;
  const body = template.render([object]);
  return condition ? `{{- if ${condition} }}\n${body}{{- end }}\n` : body;
}

/**
 * What each kind turns into values; returns the condition under which the
 * object exists at all, if there is one.
 */
const TEMPLATED: Record<
  string,
  (object: Json, template: TemplateText, original: Json) => string | undefined
> = {
  Deployment: templateDeployment,
  CronJob: templateAuditCronJob,
  Certificate: (object, template) => {
    const spec = object.spec as Json;
    if (spec.secretName !== "cocoon-webhook-ca") {
      spec.secretName = template.expression("{{ .Values.certificate.secretName }}");
    }
    return CERT_MANAGER;
  },
  Issuer: () => CERT_MANAGER,
  PodDisruptionBudget: (object, template) => {
    (object.spec as Json).minAvailable = template.expression(
      "{{ .Values.podDisruptionBudget.minAvailable }}",
    );
    return `and .Values.podDisruptionBudget.enabled ${IN_CLUSTER}`;
  },
  Service: () => IN_CLUSTER,
  ResourceQuota: (object, template) => {
    const [scope] = path(object, ["spec", "scopeSelector", "matchExpressions"]) as Json[];
    if (scope) {
      scope.values = template.entry(
        (indent, key) => `${indent}${key}:\n${indent}  - {{ .Values.priorityClassName | quote }}`,
      );
    }
    return `and .Values.priorityClassName ${IN_CLUSTER}`;
  },
  MutatingWebhookConfiguration: templateWebhooks,
  ValidatingWebhookConfiguration: templateWebhooks,
  ServiceMonitor: (object, template, original) =>
    monitoringObject(object, template, original, "serviceMonitor"),
  PrometheusRule: (object, template, original) =>
    monitoringObject(object, template, original, "prometheusRule"),
  ConfigMap: (object, template, original) => {
    object.data = template.entry(
      (indent, key) =>
        `${indent}${key}:\n${indent}  cocoon-webhook.json: {{ .Files.Get "${DASHBOARD_FILE}" | toJson }}`,
    );
    return monitoringObject(object, template, original, "dashboard");
  },
};

const CERT_MANAGER = 'eq .Values.certificate.source "cert-manager"';
/** The Deployment and what serves it exist unless the release is in URL mode. */
const IN_CLUSTER = '(include "cocoon-webhook.inCluster" .)';

function templateDeployment(object: Json, template: TemplateText): string {
  const spec = object.spec as Json;
  spec.replicas = template.entry(
    (indent, key) =>
      `${indent}{{- if not .Values.autoscaling.enabled }}\n${indent}${key}: {{ include "cocoon-webhook.minReplicas" . }}\n${indent}{{- end }}`,
  );
  const podMetadata = path(spec, ["template", "metadata"]) as Json;
  podMetadata.labels = labelsEntry(template, podMetadata.labels, "podLabels");
  const pod = path(spec, ["template", "spec"]) as Json;
  podMetadata.annotations = template.entry((indent) =>
    optionalBlock(indent, ".Values.podAnnotations", "annotations"),
  );
  pod.priorityClassName = template.entry(
    (indent, key) =>
      `${indent}{{- with .Values.priorityClassName }}\n${indent}${key}: {{ . }}\n${indent}{{- end }}`,
  );
  const [container] = pod.containers as Json[];
  if (!container) throw new Error("the Deployment has no container");
  container.image = template.expression('{{ include "cocoon-webhook.image" . | quote }}');
  container.imagePullPolicy = template.expression("{{ .Values.image.pullPolicy }}");
  container.resources = resourcesFrom(template, ".Values.resources");
  container.env = templateEnvironment(template, container.env as Json[]);
  container.ports = (container.ports as Json[]).map((port) => ({
    ...port,
    containerPort: template.expression(`{{ .Values.ports.${portValue(port)} }}`),
  }));
  container.securityContext = fromValues(template, "securityContext");
  pod.securityContext = fromValues(template, "podSecurityContext");
  pod.affinity = fromValues(template, "affinity");
  pod.topologySpreadConstraints = fromValues(template, "topologySpreadConstraints");
  const [certificates] = pod.volumes as Json[];
  (certificates?.secret as Json).secretName = template.expression(
    "{{ .Values.certificate.secretName }}",
  );
  const volumes = pod.volumes;
  pod.volumes = template.entry((indent, key) =>
    [
      `${indent}${key}:`,
      template.yaml(volumes, `${indent}  `),
      optionalBlock(indent, ".Values.nodeSelector", "nodeSelector"),
      optionalBlock(indent, ".Values.tolerations", "tolerations"),
      optionalBlock(indent, ".Values.imagePullSecrets", "imagePullSecrets"),
    ].join("\n"),
  );
  return IN_CLUSTER;
}

/**
 * audit's CronJob: the chart's image and podCreators for the audit step (it
 * judges as the webhook does), the schedule, the kubectl image and both
 * steps' resources from `.Values.audit.cronJob`.
 */
function templateAuditCronJob(object: Json, template: TemplateText): undefined {
  const spec = object.spec as Json;
  spec.schedule = template.expression("{{ .Values.audit.cronJob.schedule | quote }}");
  const podTemplate = path(spec, ["jobTemplate", "spec", "template"]) as Json;
  const podMetadata = podTemplate.metadata as Json;
  podMetadata.labels = labelsEntry(template, podMetadata.labels);
  const pod = podTemplate.spec as Json;
  const [audit] = pod.initContainers as Json[];
  const [apply] = pod.containers as Json[];
  if (!audit || !apply) throw new Error("the audit CronJob needs an audit and an apply step");
  audit.image = template.expression('{{ include "cocoon-webhook.image" . | quote }}');
  audit.env = templatePodCreators(template, (audit.env ?? []) as Json[]);
  audit.resources = resourcesFrom(template, ".Values.audit.cronJob.resources");
  apply.image = template.expression("{{ .Values.audit.cronJob.kubectl.image | quote }}");
  apply.resources = resourcesFrom(template, ".Values.audit.cronJob.kubectl.resources");
  const volumes = pod.volumes;
  pod.volumes = template.entry((indent, key) =>
    [
      `${indent}${key}:`,
      template.yaml(volumes, `${indent}  `),
      optionalBlock(indent, ".Values.imagePullSecrets", "imagePullSecrets"),
    ].join("\n"),
  );
  return undefined;
}

/** The audit step's environment: POD_CREATORS from `.Values.podCreators`, as the webhook's (unset when empty). */
function templatePodCreators(template: TemplateText, env: Json[]): string {
  const others = env.filter((entry) => entry.name !== "POD_CREATORS");
  return template.entry((indent, key) => {
    const creators = [
      `${indent}  - name: POD_CREATORS`,
      `${indent}    value: {{ . | quote }}`,
      `${indent}  {{- end }}`,
    ];
    const withCreators = `{{- with include "cocoon-webhook.envValue" (dict "name" "POD_CREATORS" "root" $) }}`;
    return others.length === 0
      ? [`${indent}${withCreators}`, `${indent}${key}:`, ...creators].join("\n")
      : [
          `${indent}${key}:`,
          template.yaml(others, `${indent}  `),
          `${indent}  ${withCreators}`,
          ...creators,
        ].join("\n");
  });
}

/** A container's resources entry from a ResourceRequirements value. */
function resourcesFrom(template: TemplateText, value: string): string {
  return template.entry(
    (indent, key) =>
      `${indent}${key}:\n${indent}  {{- toYaml ${value} | nindent ${indent.length + 2} }}`,
  );
}

/** The values key of a container port: `https` is the admission listener. */
const portValue = (port: Json) => (port.name === "https" ? "admission" : String(port.name));

/** An entry whose value comes from `.Values.<value>` (its default is the manifests' own). */
function fromValues(template: TemplateText, value: string): string {
  return template.entry((indent, key) => optionalBlock(indent, `.Values.${value}`, key));
}

/** `key:` and the value's YAML, only when the value is set. */
function optionalBlock(indent: string, value: string, key: string): string {
  return [
    `${indent}{{- with ${value} }}`,
    `${indent}${key}:`,
    `${indent}  {{- toYaml . | nindent ${indent.length + 2} }}`,
    `${indent}{{- end }}`,
  ].join("\n");
}

/** A labels entry: the manifests' labels, the release's standard ones, then a map value's, if set. */
function labelsEntry(template: TemplateText, labels: unknown, extra?: string): string {
  return template.entry((indent, key) =>
    [
      `${indent}${key}:`,
      template.yaml(labels, `${indent}  `),
      `${indent}  {{- include "cocoon-webhook.labels" . | nindent ${indent.length + 2} }}`,
      ...(extra
        ? [
            `${indent}  {{- with .Values.${extra} }}`,
            `${indent}  {{- toYaml . | nindent ${indent.length + 2} }}`,
            `${indent}  {{- end }}`,
          ]
        : []),
    ].join("\n"),
  );
}

/**
 * The container's environment: the entries the chart fixes (files and ports
 * it also mounts and exposes), then every variable set through values
 * (`.Values.env`, and the structured `enforcement` and `podCreators`),
 * in the manifests' order, then `.Values.extraEnv`.
 */
function templateEnvironment(template: TemplateText, env: Json[]): string {
  const listeners: Record<string, string> = { LISTEN_ADDR: "admission", METRICS_ADDR: "metrics" };
  const fixed = env
    .filter((entry) => !CHART_ENVIRONMENT.includes(String(entry.name)))
    .map((entry) => {
      const port = listeners[String(entry.name)];
      return port
        ? { ...entry, value: template.expression(`":{{ .Values.ports.${port} }}"`) }
        : entry;
    });
  const order = [
    ...env.map((entry) => String(entry.name)).filter((name) => CHART_ENVIRONMENT.includes(name)),
    ...CHART_ENVIRONMENT.filter((name) => !env.some((entry) => entry.name === name)),
  ];
  return template.entry((indent, key) =>
    [
      `${indent}${key}:`,
      template.yaml(fixed, `${indent}  `),
      `${indent}  {{- range $name := list ${order.map((name) => `"${name}"`).join(" ")} }}`,
      `${indent}  {{- $value := include "cocoon-webhook.envValue" (dict "name" $name "root" $) }}`,
      `${indent}  {{- if $value }}`,
      `${indent}  - name: {{ $name }}`,
      `${indent}    value: {{ $value | quote }}`,
      `${indent}  {{- end }}`,
      `${indent}  {{- end }}`,
      `${indent}  {{- with .Values.extraEnv }}`,
      `${indent}  {{- toYaml . | nindent ${indent.length + 2} }}`,
      `${indent}  {{- end }}`,
    ].join("\n"),
  );
}

function templateWebhooks(object: Json, template: TemplateText): undefined {
  const metadata = object.metadata as Json;
  const annotations = metadata.annotations;
  metadata.annotations = template.entry(
    (indent, key) =>
      `${indent}{{- if ${CERT_MANAGER} }}\n${indent}${key}:\n${template.yaml(annotations, `${indent}  `)}\n${indent}{{- end }}`,
  );
  for (const webhook of object.webhooks as Json[]) {
    const service = (webhook.clientConfig as Json).service as Json;
    webhook.clientConfig = template.entry((indent, key) =>
      [
        `${indent}${key}:`,
        `${indent}  {{- if .Values.webhook.url }}`,
        `${indent}  url: {{ printf "%s${service.path}" (trimSuffix "/" .Values.webhook.url) | quote }}`,
        `${indent}  {{- else }}`,
        `${indent}  service:`,
        template.yaml(service, `${indent}    `),
        `${indent}  {{- end }}`,
        `${indent}  {{- include "cocoon-webhook.caBundle" . | nindent ${indent.length + 2} }}`,
      ].join("\n"),
    );
    webhook.failurePolicy = template.expression("{{ .Values.webhook.failurePolicy }}");
    webhook.timeoutSeconds = template.expression("{{ .Values.webhook.timeoutSeconds }}");
    const [excluded] = (path(webhook, ["namespaceSelector", "matchExpressions"]) ?? []) as Json[];
    if (excluded) {
      excluded.values = template.entry(
        (indent, key) =>
          `${indent}${key}:\n${indent}  {{- include "cocoon-webhook.excludedNamespaces" . | nindent ${indent.length + 2} }}`,
      );
    }
    if (webhook.matchConditions !== undefined) {
      const conditions = webhook.matchConditions;
      webhook.matchConditions = template.entry(
        (indent, key) =>
          `${indent}{{- if .Values.webhook.matchConditions }}\n${indent}${key}:\n${template.yaml(conditions, `${indent}  `)}\n${indent}{{- end }}`,
      );
    }
  }
  return undefined;
}

function monitoringObject(
  object: Json,
  template: TemplateText,
  original: Json,
  value: string,
): string {
  const metadata = object.metadata as Json;
  metadata.labels = labelsEntry(
    template,
    (original.metadata as Json).labels,
    `monitoring.${value}.labels`,
  );
  // The ServiceMonitor scrapes the Service, which URL mode leaves out.
  return value === "serviceMonitor"
    ? `and .Values.monitoring.${value}.enabled ${IN_CLUSTER}`
    : `.Values.monitoring.${value}.enabled`;
}

/** The excluded namespaces and the webhooks' settings, as the manifests have them. */
function webhookDefaults(objects: Json[]): { excludedNamespaces: string[] } {
  const mutating = only(objects, "MutatingWebhookConfiguration");
  const [pods] = mutating.webhooks as Json[];
  const [excluded] = path(pods ?? {}, ["namespaceSelector", "matchExpressions"]) as Json[];
  return { excludedNamespaces: (excluded?.values ?? []) as string[] };
}

function dashboardOf(objects: Json[]): string {
  const data = only(objects, "ConfigMap").data as Record<string, string>;
  const json = data["cocoon-webhook.json"];
  if (json === undefined) throw new Error("the dashboard ConfigMap has no cocoon-webhook.json");
  return json;
}

/** Every string with each `from` replaced by its token: the namespace, the release in links. */
function replaceInStrings(value: Json, replacements: readonly [from: string, to: string][]): Json {
  const replace = (node: unknown): unknown => {
    if (typeof node === "string") {
      return replacements.reduce((text, [from, to]) => text.replaceAll(from, to), node);
    }
    if (Array.isArray(node)) return node.map(replace);
    if (typeof node === "object" && node !== null) {
      return Object.fromEntries(Object.entries(node).map(([key, each]) => [key, replace(each)]));
    }
    return node;
  };
  return replace(value) as Json;
}

function only(objects: Json[], kind: string): Json {
  const found = objects.filter((object) => object.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0] as Json;
}

function path(value: unknown, keys: readonly string[]): unknown {
  let node = value;
  for (const key of keys) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Json)[key];
  }
  return node;
}
