import { Hono } from "hono";
import { endpointAt } from "../admission/endpoints";
import { mountReviewRoutes, type ReviewRouteOptions } from "../admission/review-route";
import type { Handlers } from "../admission/verdict";
import { countInFlight, countResponses, type ListenerEnv, warnOnRejections } from "../http/observe";
import { allowOnly, answerErrors, refuseUnknownPaths } from "../http/rejection";
import type { Logger } from "../observability/logger";
import {
  cachedExposition,
  httpRequestsInFlight,
  httpResponsesTotal,
  registry,
} from "../observability/metrics";
import { mountProbes, type Readiness } from "./probes";

/** The `path` label: one of the endpoints' paths, or `other`, so a scanner cannot grow the label set. */
function pathLabel(path: string): string {
  return endpointAt(path) === undefined ? "other" : path;
}

type ResponseCount = ReturnType<typeof httpResponsesTotal.labels>;

/** Counts a response in the series of its path label and status code, each series looked up once. */
function responseCounter(): (path: string, status: number) => void {
  const counts = new Map<string, Map<number, ResponseCount>>();
  return (path, status) => {
    const label = pathLabel(path);
    let byStatus = counts.get(label);
    if (!byStatus) {
      byStatus = new Map();
      counts.set(label, byStatus);
    }
    let count = byStatus.get(status);
    if (!count) {
      count = httpResponsesTotal.labels(label, String(status));
      byStatus.set(status, count);
    }
    count.inc();
  };
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
