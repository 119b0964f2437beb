import { Hono } from "hono";
import { endpointAt } from "../admission/endpoints";
import { mountReviewRoutes, type ReviewRouteOptions } from "../admission/review-route";
import type { Handlers } from "../admission/verdict";
import { countInFlight, countResponses, type ListenerEnv, warnOnRejections } from "../http/observe";
import { allowOnly, answerErrors, refuseUnknownPaths } from "../http/rejection";
import type { Logger } from "../observability/logger";
import {
  cachedExposition,
  childrenOf,
  httpRequestsInFlight,
  httpResponsesTotal,
  registry,
} from "../observability/metrics";
import { mountProbes, type Readiness } from "./probes";

/** The `path` label: one of the endpoints' paths, or `other`, so a scanner cannot grow the label set. */
function pathLabel(path: string): string {
  return endpointAt(path) === undefined ? "other" : path;
}

/** Counts a response in the series of its path label and status code. */
function responseCounter(): (path: string, status: number) => void {
  const countOf = childrenOf((label: string, status: number) =>
    httpResponsesTotal.labels(label, String(status)),
  );
  return (path, status) => countOf(pathLabel(path), status).inc();
}

/**
 * The HTTPS admission app: requests in flight, responses by path and status
 * and the 4xx warn line for every request; one review route per endpoint of
 * the table, the probes, and a 404 for anything else.
 */
export function createAdmissionApp(
  handlers: Handlers,
  readiness: Readiness,
  log: Logger,
  options: ReviewRouteOptions,
): Hono<ListenerEnv> {
  const app = new Hono<ListenerEnv>();
  app.onError(answerErrors(log));
  app.use(countInFlight(httpRequestsInFlight), countResponses(responseCounter()));
  app.use(warnOnRejections(log));
  mountReviewRoutes(app, handlers, log, options);
  mountProbes(app, readiness);
  refuseUnknownPaths(app);
  return app;
}

/** The plain-HTTP ops app: Prometheus metrics plus probes. */
export function createOpsApp(
  readiness: Readiness,
  log: Logger,
  options: { readonly metricsRenderIntervalMs: number },
): Hono {
  const app = new Hono();
  app.onError(answerErrors(log));
  const exposition = cachedExposition(registry, options.metricsRenderIntervalMs);
  app.get("/metrics", async (c) =>
    c.body(await exposition(), 200, { "Content-Type": registry.contentType }),
  );
  allowOnly(app, "/metrics", ["GET"]);
  mountProbes(app, readiness);
  refuseUnknownPaths(app);
  return app;
}
