import type { Env, Hono } from "hono";

/** What the probes report. */
export interface Readiness {
  /** Flipped once, when shutdown begins. */
  ready: boolean;
  /** Set while the certificate being served is expired or not yet valid. */
  certificateProblem?: string;
  /** ENFORCEMENT's names of the endpoints in warn mode, said by /readyz so nobody forgets one. */
  readonly warnMode?: readonly string[];
}

const PROBE_METHODS = ["GET", "HEAD"];

/** /readyz is 503 once shutdown began or while the served certificate is outside its validity. */
export function mountProbes<E extends Env>(app: Hono<E>, readiness: Readiness): void {
  app.on(PROBE_METHODS, "/healthz", (c) => c.text("ok"));
  app.on(PROBE_METHODS, "/readyz", (c) => {
    if (!readiness.ready) return c.text("shutting down", 503);
    if (readiness.certificateProblem) {
      return c.text(`not ready: ${readiness.certificateProblem}`, 503);
    }
    if (readiness.warnMode?.length) {
      return c.text(
        `ready; in warn mode, allowing what they would refuse: ${readiness.warnMode.join(", ")}`,
      );
    }
    return c.text("ready");
  });
}
