import { CHART_DIR } from "../../scripts/chart-files";
import { runTool, yamlObjects } from "../../scripts/tools";
import { ConfigError, loadConfig } from "../../src/config";

/* `helm template` of charts/cocoon-webhook and what the chart tests read from it. */

/**
 * What `helm template` is told the cluster serves: cert-manager, as on a cluster the default
 * certificate source installs on (without it the chart refuses to render, naming the choices).
 */
export const CLUSTER_APIS = ["--api-versions", "cert-manager.io/v1"];

export type Json = Record<string, unknown>;

/** The chart rendered with `--set` values (and further helm arguments), the test pod left out. */
export function helmTemplate(namespace: string, ...sets: string[]): Json[] {
  return helmTemplateWith(["--namespace", namespace, ...sets.flatMap((set) => ["--set", set])]);
}

export function helmTemplateWith(args: readonly string[]): Json[] {
  const command = [
    "template",
    "cocoon-webhook",
    CHART_DIR,
    "--skip-tests",
    ...CLUSTER_APIS,
    ...args,
  ];
  return yamlObjects(runTool("helm", command));
}

/** What helm says when it refuses to render with these `--set` values. */
export function helmError(...sets: string[]): string {
  return helmErrorWith(sets.flatMap((set) => ["--set", set]));
}

export function helmErrorWith(args: readonly string[]): string {
  try {
    helmTemplateWith(args);
  } catch (error) {
    return String(error);
  }
  throw new Error(`helm template accepted ${args.join(" ")}`);
}

/** The labels every chart object carries besides the manifests' own. */
export const RELEASE_LABELS = [
  "app.kubernetes.io/instance",
  "app.kubernetes.io/managed-by",
  "app.kubernetes.io/version",
  "helm.sh/chart",
];

type PodTemplateOwner = { template?: { metadata?: Json } } | undefined;

/** An object without the release's standard labels, on it and on its pod template (a CronJob's too). */
export function withoutReleaseLabels(object: Json): Json {
  const copy = structuredClone(object);
  const spec = copy.spec as
    | (PodTemplateOwner & { jobTemplate?: { spec?: PodTemplateOwner } })
    | undefined;
  const pod = (spec?.jobTemplate?.spec ?? spec)?.template;
  for (const metadata of [copy.metadata as Json, pod?.metadata]) {
    const labels = metadata?.labels as Json | undefined;
    for (const label of RELEASE_LABELS) delete labels?.[label];
  }
  return copy;
}

export function webhooksOf(objects: Json[]): Json[] {
  return objects
    .filter((object) => String(object.kind).endsWith("WebhookConfiguration"))
    .flatMap((object) => object.webhooks as Json[]);
}

export function only(objects: Json[], kind: string): Json {
  const found = objects.filter((object) => object.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, rendered ${found.length}`);
  return found[0] as Json;
}

export function podSpecOf(objects: Json[]): Json {
  return (only(objects, "Deployment").spec as { template: { spec: Json } }).template.spec;
}

/** The webhook's container of the rendered Deployment. */
export function containerOf(objects: Json[] | Json | undefined): Json {
  const list = Array.isArray(objects) ? objects : objects ? [objects] : [];
  const [container] = podSpecOf(list).containers as Json[];
  if (!container) throw new Error("the Deployment has no container");
  return container;
}

type EnvEntry = {
  name: string;
  value?: string;
  valueFrom?: { configMapKeyRef?: { name: string; key: string } };
};

/**
 * The container's environment as a name → value map, a value from a ConfigMap read from the
 * rendered ConfigMap of that name (as the kubelet would).
 */
export function environmentOf(objects: Json[]): Record<string, string> {
  const entries = (containerOf(objects).env ?? []) as EnvEntry[];
  return Object.fromEntries(
    entries.map(({ name, value, valueFrom }) => {
      const reference = valueFrom?.configMapKeyRef;
      if (reference === undefined) return [name, value ?? ""];
      return [name, configMapValue(objects, reference.name, reference.key)];
    }),
  );
}

function configMapValue(objects: Json[], name: string, key: string): string {
  const configMap = objects.find(
    (object) => object.kind === "ConfigMap" && (object.metadata as Json).name === name,
  );
  const value = (configMap?.data as Record<string, string> | undefined)?.[key];
  if (value === undefined) throw new Error(`no ConfigMap ${name} with ${key} is rendered`);
  return value;
}

/** Whether start-up accepts `text` as the variable `name`. */
export function startupAccepts(name: string, text: string): boolean {
  try {
    loadConfig({ [name]: text });
    return true;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}
