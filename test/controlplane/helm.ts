import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { goTool, helm3 } from "../../scripts/tools";
import { refuseServiceClientConfigText } from "./client-config-guard";
import { type CommandResult, type ControlPlane, runCommand } from "./cluster";
import { WEBHOOK_NAMESPACE } from "./install";
import { controlPlaneTier } from "./setup";

/*
 * Helm against the tier's control plane: Helm 4 (test/tools) and Helm 3
 * (test/tools/helm3), the chart of this checkout, and the docs' shell blocks
 * run as written with `helm` and `kubectl` on PATH.
 */

export const CHART = join(import.meta.dir, "../../charts/cocoon-webhook");
export const RELEASE = "cocoon-webhook";
/** How the docs name the published chart; a block run here installs this checkout's instead. */
const PUBLISHED_CHART = 'oci://ghcr.io/cocoonstack/charts/cocoon-webhook --version "$v"';

export interface HelmVersion {
  readonly name: "Helm 4" | "Helm 3";
  readonly binary: () => string;
  /** The flags that undo a release that does not come up, as docs/installation.md gives them. */
  readonly rollbackOnFailure: readonly string[];
}

export const HELM_VERSIONS: readonly HelmVersion[] = [
  {
    name: "Helm 4",
    binary: () => goTool("helm"),
    rollbackOnFailure: ["--rollback-on-failure", "--wait"],
  },
  { name: "Helm 3", binary: helm3, rollbackOnFailure: ["--atomic", "--wait"] },
];

/** HOME and Helm's folders inside the control plane's scratch space, one set per Helm. */
function helmEnvironment(cluster: ControlPlane, helm: HelmVersion): Record<string, string> {
  const home = join(cluster.dir, helm.name.replace(" ", "").toLowerCase());
  const bin = join(home, "bin");
  mkdirSync(bin, { recursive: true });
  for (const [name, target] of [
    ["helm", helm.binary()],
    ["kubectl", Bun.which(controlPlaneTier().kubectl) ?? controlPlaneTier().kubectl],
  ] as const) {
    try {
      symlinkSync(target, join(bin, name));
    } catch {
      // Already linked by an earlier call.
    }
  }
  return {
    PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    KUBECONFIG: cluster.adminKubeconfig,
    // The kube client inside helm keeps its discovery cache under $HOME/.kube.
    HOME: home,
    HELM_CACHE_HOME: join(home, "cache"),
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_DATA_HOME: join(home, "data"),
  };
}

/**
 * Runs helm; the result, whatever the exit code. An install or upgrade is
 * rendered first and refused if it would register a Service in a clientConfig.
 */
export async function runHelm(helm: HelmVersion, args: readonly string[]): Promise<CommandResult> {
  const cluster = controlPlaneTier().cluster;
  const environment = helmEnvironment(cluster, helm);
  const [command, ...rest] = args;
  if (command === "install" || command === "upgrade") {
    // helm template knows no cluster: with cert-manager's API given, the chart's check that the
    // cluster serves it (made again by the install itself) cannot hide the clientConfig check.
    const rendered = await runCommand(
      [helm.binary(), "template", "--api-versions=cert-manager.io/v1", ...rest],
      environment,
    );
    // A render that fails (a value the schema refuses) installs nothing either.
    if (rendered.exitCode === 0) {
      refuseServiceClientConfigText(rendered.stdout, `helm ${args.join(" ")}`);
    }
  }
  return runCommand([helm.binary(), ...args], environment);
}

/** Runs helm; its output, or an error with what it printed. */
export async function helmOrThrow(helm: HelmVersion, args: readonly string[]): Promise<string> {
  const result = await runHelm(helm, args);
  if (result.exitCode !== 0) throw new Error(`helm ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/** The values that point the release at the tier's webhook process and its CA. */
export function localValues(): string[] {
  const { url, caBundle } = controlPlaneTier().webhook.localClientConfig;
  return [
    `--set=webhook.url=${url}`,
    `--set=webhook.caBundle=${caBundle}`,
    "--set=certificate.source=secret",
  ];
}

/** Whether a release of that name exists, in any state. */
export async function releaseExists(helm: HelmVersion): Promise<boolean> {
  const status = await runHelm(helm, ["status", RELEASE, `--namespace=${WEBHOOK_NAMESPACE}`]);
  if (status.exitCode === 0) return true;
  if (status.stderr.includes("release: not found")) return false;
  throw new Error(`helm status ${RELEASE}: ${status.stderr}`);
}

/** The shell block of a docs page whose first line is `# <title>`. */
export function docsBlock(page: string, title: string): string {
  const markdown = readFileSync(join(import.meta.dir, "../..", page), "utf8");
  const block = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? "")
    .find((text) => text.startsWith(`# ${title}\n`) || text.includes(title));
  if (block === undefined) throw new Error(`${page} has no shell block with ${title}`);
  return block;
}

/** Runs a docs block with bash, `helm` and `kubectl` on PATH; the published chart is this checkout's. */
export function runDocsBlock(helm: HelmVersion, block: string): Promise<CommandResult> {
  const cluster = controlPlaneTier().cluster;
  const script = block.replaceAll(PUBLISHED_CHART, CHART);
  return runCommand(["bash", "-euo", "pipefail", "-c", script], helmEnvironment(cluster, helm));
}
