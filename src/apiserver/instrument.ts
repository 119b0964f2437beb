import { errorText } from "../bounded-text";
import { type ApiserverRead, KubeApiError } from "../contract/reads";
import type { Logger } from "../observability/logger";
import { apiserverRequestDuration, apiserverRequestsTotal } from "../observability/metrics";
import { KubeApiTimeoutError } from "./transport";

type ApiserverOutcome = "success" | "not_found" | "error" | "timeout";

interface CallLabels {
  readonly verb: ApiserverRead["verb"];
  /** The resource's plural: `deployments`, `cocoonhibernations`. */
  readonly resource: string;
  /** `GET deployments default/web`: the prefix of every error message. */
  readonly operation: string;
}

/**
 * Runs one apiserver call and records it exactly once in both metrics. Any
 * error leaves as a KubeApiError, so the rules can rely on the port's contract.
 */
export async function instrumented<T>(
  { verb, resource, operation }: CallLabels,
  call: () => Promise<T>,
  outcomeOf: (result: T) => ApiserverOutcome = () => "success",
  log?: Logger,
): Promise<T> {
  const startedAt = performance.now();
  let outcome: ApiserverOutcome = "error";
  try {
    const result = await call();
    outcome = outcomeOf(result);
    return result;
  } catch (error) {
    outcome = error instanceof KubeApiTimeoutError ? "timeout" : "error";
    throw error instanceof KubeApiError
      ? error
      : new KubeApiError(`${operation}: ${errorText(error)}`);
  } finally {
    const seconds = (performance.now() - startedAt) / 1000;
    apiserverRequestDuration.observe({ verb, resource }, seconds);
    apiserverRequestsTotal.inc({ verb, resource, outcome });
    log?.debug({ operation, outcome, durationMs: seconds * 1000 }, "apiserver call");
  }
}
