import { readFileSync, writeFileSync } from "node:fs";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { KubeApiError } from "../../src/contract/reads";
import { apiserverRequestDuration, apiserverRequestsTotal } from "../../src/observability/metrics";

/** Current value of cocoon_webhook_apiserver_requests_total for these labels (0 when absent). */
export async function requestCount(labels: {
  verb: string;
  resource: string;
  outcome: string;
}): Promise<number> {
  const { values } = await apiserverRequestsTotal.get();
  const sample = values.find(
    (value) =>
      value.labels.verb === labels.verb &&
      value.labels.resource === labels.resource &&
      value.labels.outcome === labels.outcome,
  );
  return sample?.value ?? 0;
}

/** Observations in cocoon_webhook_apiserver_request_duration_seconds for these labels. */
export async function durationCount(labels: { verb: string; resource: string }): Promise<number> {
  const { values } = await apiserverRequestDuration.get();
  const sample = values.find(
    (value) =>
      value.metricName === "cocoon_webhook_apiserver_request_duration_seconds_count" &&
      value.labels.verb === labels.verb &&
      value.labels.resource === labels.resource,
  );
  return sample?.value ?? 0;
}

/** Runs `action` and returns how much each apiserver metric moved for `verb`/`resource`. */
export async function metricDeltas(
  verb: string,
  resource: string,
  action: () => Promise<unknown>,
): Promise<{ outcomes: Record<string, number>; durations: number }> {
  const outcomeNames = ["success", "not_found", "error", "timeout"];
  const before = await Promise.all(
    outcomeNames.map((outcome) => requestCount({ verb, resource, outcome })),
  );
  const durationsBefore = await durationCount({ verb, resource });
  await action();
  const after = await Promise.all(
    outcomeNames.map((outcome) => requestCount({ verb, resource, outcome })),
  );
  const outcomes: Record<string, number> = {};
  outcomeNames.forEach((outcome, index) => {
    const delta = (after[index] ?? 0) - (before[index] ?? 0);
    if (delta !== 0) outcomes[outcome] = delta;
  });
  return { outcomes, durations: (await durationCount({ verb, resource })) - durationsBefore };
}

/** The KubeApiError `promise` rejects with; fails the test on success or any other error. */
export async function kubeApiErrorFrom(promise: Promise<unknown>): Promise<KubeApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof KubeApiError) return error;
    throw new Error(`expected a KubeApiError, got ${String(error)}`);
  }
  throw new Error("expected a KubeApiError, but the call succeeded");
}

/** Sets environment variables for the duration of `action`, then restores them. */
export async function withEnvironment<T>(
  variables: Record<string, string | undefined>,
  action: () => Promise<T> | T,
): Promise<T> {
  const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(variables);
  try {
    return await action();
  } finally {
    apply(saved);
  }
}

/** A copy of the kubeconfig at `path` whose cluster has `fields` besides its own, written beside it. */
export function kubeconfigWithCluster(path: string, fields: Record<string, unknown>): string {
  const config = parseYaml(readFileSync(path, "utf8")) as {
    clusters: { cluster: Record<string, unknown> }[];
  };
  for (const entry of config.clusters) entry.cluster = { ...entry.cluster, ...fields };
  const changed = `${path}.${Object.keys(fields).join("-")}-${++kubeconfigCopies}.yaml`;
  writeFileSync(changed, stringifyYaml(config));
  return changed;
}
let kubeconfigCopies = 0;
