import { Hono } from "hono";
import { admissionMeasures } from "../http/review-metrics";
import { mountReviewRoutes, type ReviewRouteOptions } from "../http/review-chain";
import type { Handlers } from "../contract/verdict";
import { measureRequests, warnOnRejection } from "../http/observe";
import {
  answerErrors,
  type RejectionEnv,
  refuseOtherMethods,
  refuseUnknownPath,
} from "../http/rejection";
import type { Logger } from "../observability/logger";
import { cachedExposition, registry } from "../observability/metrics";
import { mountProbes, type Readiness } from "./probes";

/**
 * The HTTPS admission app: the request metrics and the 4xx warn line for
 * every request; one review route per endpoint of the table, the probes,
 * and a 404 for anything else.
 */
export function createAdmissionApp(
  handlers: Handlers,
  readiness: Readiness,
  log: Logger,
  options: ReviewRouteOptions,
): Hono<RejectionEnv> {
  const app = new Hono<RejectionEnv>();
  app.onError(answerErrors(log));
  app.notFound(refuseUnknownPath);
  app.use(measureRequests(admissionMeasures(), warnOnRejection(log)));
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
  const scrape = cachedExposition(() => registry.metrics(), options.metricsRenderIntervalMs);
  app.get("/metrics", async (c) =>
    c.body(await scrape(), 200, { "Content-Type": registry.contentType }),
  );
  mountProbes(app, readiness);
  return app;
}
