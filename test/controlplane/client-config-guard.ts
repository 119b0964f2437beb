import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

/*
 * The control-plane tier runs on this machine only. A webhook configuration
 * (or a CRD's conversion webhook) in Service mode would make the apiserver
 * dial a ClusterIP from its service range, an address off this machine, so
 * the harness refuses to send one: every write the tier makes, through its
 * REST client, kubectl or helm, is checked first. Local runs name the webhook
 * by `clientConfig.url` on 127.0.0.1. A dry run stores nothing, so it may
 * carry the manifests as they are (the tier dry-runs manifests/default).
 */

/** Whether a kubectl command line or a REST path only dry-runs its write. */
export const isDryRun = (argsOrPath: readonly string[] | string): boolean =>
  typeof argsOrPath === "string"
    ? /[?&]dryRun=All(&|$)/.test(argsOrPath)
    : argsOrPath.some((arg) => /^--dry-run(=(server|client))?$/.test(arg));

export class ServiceClientConfigRefused extends Error {
  override readonly name = "ServiceClientConfigRefused";
}

/** Every path inside `value` at which a clientConfig names a Service. */
export function serviceClientConfigPaths(value: unknown, at = "$"): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((item, index) => serviceClientConfigPaths(item, `${at}[${index}]`));
  }
  if (typeof value !== "object" || value === null) return [];
  const record = value as Record<string, unknown>;
  const found: string[] = [];
  // A JSON patch operation that writes a Service into a clientConfig.
  if (typeof record.op === "string" && typeof record.path === "string") {
    const target = record.path;
    const patched = record.value;
    if (
      /\/clientConfig\/service$/.test(target) ||
      (/\/clientConfig$/.test(target) && hasService(patched))
    ) {
      found.push(`${at} (${record.op} ${target})`);
    }
  }
  for (const [key, child] of Object.entries(record)) {
    if (key === "clientConfig" && hasService(child)) found.push(`${at}.clientConfig.service`);
    found.push(...serviceClientConfigPaths(child, `${at}.${key}`));
  }
  return found;
}

function hasService(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    (value as Record<string, unknown>).service !== undefined &&
    (value as Record<string, unknown>).service !== null
  );
}

/** Throws when `value` would register anything in Service mode; `what` names where it came from. */
export function refuseServiceClientConfig(value: unknown, what: string): void {
  const paths = serviceClientConfigPaths(value);
  if (paths.length === 0) return;
  throw new ServiceClientConfigRefused(
    `refusing to send ${what}: a clientConfig names a Service at ${paths.join(", ")}; the ` +
      "apiserver would dial a ClusterIP off this machine. Use clientConfig.url on 127.0.0.1.",
  );
}

/** The same check for YAML or JSON text (one or more documents). */
export function refuseServiceClientConfigText(text: string, what: string): void {
  const documents = parseAllDocuments(text).map((document) => document.toJS() as unknown);
  refuseServiceClientConfig(documents, what);
}

/**
 * The objects a kubectl command line would send, for the check: stdin, the
 * files of -f/--filename, the -p/--patch of `kubectl patch`. `render` turns
 * a -k directory into YAML (kubectl's own kustomize).
 */
export async function refuseServiceClientConfigInKubectl(
  args: readonly string[],
  stdin: string | undefined,
  render: (directory: string) => Promise<string>,
): Promise<void> {
  if (isDryRun(args)) return;
  const what = `kubectl ${args.join(" ")}`;
  if (stdin !== undefined) refuseServiceClientConfigText(stdin, what);
  for (let index = 0; index < args.length; index++) {
    const [flag = "", inline] = (args[index] ?? "").split(/=(.*)/s, 2);
    const value = () => inline ?? args[++index] ?? "";
    if (flag === "-f" || flag === "--filename") {
      const file = value();
      if (file !== "-") refuseServiceClientConfigText(readFileSync(file, "utf8"), what);
    } else if (flag === "-k" || flag === "--kustomize") {
      refuseServiceClientConfigText(await render(value()), what);
    } else if (flag === "-p" || flag === "--patch") {
      refuseServiceClientConfigText(value(), what);
    }
  }
}
