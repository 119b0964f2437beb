import { Hono } from "hono";
import { ENDPOINT_KEYS, ENDPOINTS, endpointAt } from "../admission/endpoints";
import { mountReviewRoutes, type ReviewRouteOptions } from "../admission/review-route";
import type { Handlers } from "../admission/verdict";
import { measureRequests, type RequestMeasures, warnOnRejection } from "../http/observe";
import {
  answerErrors,
  type RejectionEnv,
  refuseOtherMethods,
  refuseUnknownPath,
} from "../http/rejection";
import type { Observer } from "../observability/cells";
import type { Logger } from "../observability/logger";
import {
  admissionDuration,
  cachedExposition,
  childrenOf,
  exposition,
  httpResponses,
  registry,
  requestsInFlight,
} from "../observability/metrics";
import { mountProbes, type Readiness } from "./probes";

/** The `path` label: one of the endpoints' paths, or `other`, so a scanner cannot grow the label set. */
function pathLabel(path: string): string {
  return endpointAt(path) === undefined ? "other" : path;
}

/** The request metrics of the admission listener, bound to their cells. */
function admissionRequestMeasures(): RequestMeasures {
  const responsesOf = childrenOf((label: string, status: number) =>
    httpResponses.cell({ path: label, code: String(status) }),
  );
  const durations = new Map<string, Observer>(
    ENDPOINT_KEYS.map((endpoint) => [
      ENDPOINTS[endpoint].path,
      admissionDuration.series({ handler: ENDPOINTS[endpoint].label }),
    ]),
  );
  return {
    inFlight: {
      inc: () => requestsInFlight.count++,
      dec: () => requestsInFlight.count--,
    },
    countResponse: (path, status) => responsesOf(pathLabel(path), status).count++,
    reviewDuration: (path) => durations.get(path),
  };
}

/**
 * The HTTPS admission app: the request metrics and the 4xx warn line for
 * every request; one review route per endpoint of the table, the probes,
 * and a 404 for anything else.
 */
export function createAdmissionApp(
  handlers: Handlers,
  readiness: Readiness,
  log: Logger,
  options: ReviewRouteOptions & { readonly requestMeasures?: RequestMeasures },
): Hono<RejectionEnv> {
  const app = new Hono<RejectionEnv>();
  app.onError(answerErrors(log));
  app.notFound(refuseUnknownPath);
  app.use(
    measureRequests(options.requestMeasures ?? admissionRequestMeasures(), warnOnRejection(log)),
  );
  app.use(refuseOtherMethods(app));
  mountReviewRoutes(app, handlers, log, options);
  mountProbes(app, readiness);
  return app;
}

/** The plain-HTTP ops app: Prometheus metrics plus probes. */
export function createOpsApp(
  readiness: Readiness,
  log: Logger,
  options: { readonly metricsRenderIntervalMs: number },
): Hono<RejectionEnv> {
  const app = new Hono<RejectionEnv>();
  app.onError(answerErrors(log));
  app.notFound(refuseUnknownPath);
  app.use(refuseOtherMethods(app));
  const scrape = cachedExposition(exposition, options.metricsRenderIntervalMs);
  app.get("/metrics", async (c) =>
    c.body(await scrape(), 200, { "Content-Type": registry.contentType }),
  );
  mountProbes(app, readiness);
  return app;
}
