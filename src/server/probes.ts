import type { Env, Hono } from "hono";
import { methodNotAllowed } from "../http-errors";

/** What the probes report; flipped once when shutdown begins. */
export interface Readiness {
  ready: boolean;
}

const PROBE_METHODS = ["GET", "HEAD"];

/** /healthz (alive while the process runs) and /readyz (503 once shutdown began). */
export function mountProbes<E extends Env>(app: Hono<E>, readiness: Readiness): void {
  app.on(PROBE_METHODS, "/healthz", (c) => c.text("ok"));
  app.on(PROBE_METHODS, "/readyz", (c) =>
    readiness.ready ? c.text("ready") : c.text("shutting down", 503),
  );
  for (const path of ["/healthz", "/readyz"]) {
    app.all(path, (c) => methodNotAllowed(c, PROBE_METHODS));
  }
}
