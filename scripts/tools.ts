import { join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";

const REPO_ROOT = resolve(import.meta.dir, "..");

/** Binaries built from the Go module in test/tools, in this order of names. */
export type GoTool = "helm" | "kustomize" | "actionlint";

let toolsDirectory: string | undefined;

/**
 * The path of a tool from test/tools: the folder `make tools` passes in
 * COCOON_TOOLS_DIR, or else whatever scripts/go-build-cached.sh prints
 * (building on first use). A machine without Go fails here, loudly.
 */
export function goTool(name: GoTool): string {
  toolsDirectory ??= process.env.COCOON_TOOLS_DIR || buildTools();
  return join(toolsDirectory, name);
}

function buildTools(): string {
  return buildCached("test/tools", "tools");
}

function buildCached(module: string, cacheName: string, env: Record<string, string> = {}): string {
  const build = Bun.spawnSync(["scripts/go-build-cached.sh", module, cacheName], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  if (build.exitCode !== 0) {
    throw new Error(
      `scripts/go-build-cached.sh ${module} ${cacheName} failed (exit ${build.exitCode})`,
    );
  }
  return build.stdout.toString().trim();
}

let helm3Directory: string | undefined;

/**
 * Helm 3, from its own module (test/tools/helm3) beside test/tools' Helm 4,
 * for the scenarios the docs give for both; built on first use like goTool.
 */
export function helm3(): string {
  helm3Directory ??= buildCached("test/tools/helm3", "tools-helm3", {
    GO_BINARY_NAMES: "helm.sh/helm/v3/cmd/helm=helm3",
  });
  return join(helm3Directory, "helm3");
}

let promtoolDirectory: string | undefined;

/**
 * promtool, from its own module (test/tools/promtool), without Prometheus's
 * service-discovery plugins (the build tag remove_all_sd): checking and
 * unit-testing rule files needs none of them. Built on first use like goTool.
 */
export function promtool(): string {
  promtoolDirectory ??= buildCached("test/tools/promtool", "promtool", {
    GO_BUILD_TAGS: "remove_all_sd",
  });
  return join(promtoolDirectory, "promtool");
}

/** Runs a tool from test/tools in the repository root; throws with its stderr when it fails. */
export function runTool(name: GoTool, args: readonly string[]): string {
  const result = Bun.spawnSync([goTool(name), ...args], {
    cwd: REPO_ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (result.exitCode !== 0) {
    throw new Error(`${name} ${args.join(" ")}: ${result.stderr.toString().trim()}`);
  }
  return result.stdout.toString();
}

/** Every non-empty document of a YAML stream, as plain values. */
export function yamlObjects(text: string): Record<string, unknown>[] {
  return parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(document.errors[0]?.message);
      return document.toJS() as unknown;
    })
    .filter(
      (value): value is Record<string, unknown> => typeof value === "object" && value !== null,
    );
}

/** `kustomize build` of a folder of the repository. */
export function kustomize(directory: string): Record<string, unknown>[] {
  return yamlObjects(runTool("kustomize", ["build", directory]));
}
