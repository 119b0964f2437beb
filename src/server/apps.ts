import type { SocketAddress } from "bun";
import { Hono } from "hono";
import { admit } from "../admission/admit";
import { ENDPOINT_LABELS, ENDPOINTS, endpointAt } from "../admission/endpoints";
import type { Handler, Handlers } from "../admission/handler";
import { createLargeReviewGate } from "../admission/large-reviews";
import { echo } from "../echo";
import { jsonError, methodNotAllowed, notFound, rejectionOf } from "../errors";
import type { Logger } from "../observability/logger";
import {
  cachedExposition,
  httpResponseCell,
  registry,
  requestsInFlight,
} from "../observability/metrics";
import { createRejectionLog } from "../observability/rejection-log";
import { mountProbes, type Readiness } from "./probes";

/** What the listener passes as the app's environment: the Bun server, for the client address. */
type ListenerEnv = { Bindings: { requestIP?(request: Request): SocketAddress | null } };

function withErrorHandling(app: Hono<ListenerEnv>, log: Logger): Hono<ListenerEnv> {
  app.notFound(notFound);
  app.onError((error, c) => {
    log.error({ err: error, path: echo(c.req.path) }, "unhandled error");
    return jsonError(c, 500, "internal error");
  });
  return app;
}

/** The `path` label: one of the endpoints' paths, or `other`, so a scanner cannot grow the label set. */
function pathLabel(path: string): string {
  return endpointAt(path) === undefined ? "other" : path;
}

/** The admission app as the listener calls it. */
export interface AdmissionApp {
  fetch(request: Request, server?: ListenerEnv["Bindings"]): Response | Promise<Response>;
}

/**
 * Counts every response by path and status, tracks requests in flight, and
 * logs 4xx answers at warn (rate-limited) with what was wrong and who sent
 * it: a misconfigured or version-skewed apiserver then shows up in the
 * metrics and the logs. Wrapped around the app rather than run as Hono
 * middleware, so a review route keeps its single handler and Hono calls it
 * without composing a chain.
 */
function observeResponses(app: Hono<ListenerEnv>, log: Logger): AdmissionApp {
  const logRejection = createRejectionLog(log);
  const settle = (request: Request, response: Response, server?: ListenerEnv["Bindings"]) => {
    requestsInFlight.count--;
    const { status } = response;
    const path = pathOf(request.url);
    httpResponseCell(pathLabel(path), status).pending++;
    if (status >= 400 && status < 500) {
      const client = server?.requestIP?.(request);
      logRejection({
        method: request.method,
        path,
        status,
        reason: rejectionOf(response),
        client: client ? `${client.address}:${client.port}` : undefined,
      });
    }
    return response;
  };
  return {
    fetch(request, server) {
      requestsInFlight.count++;
      let response: Response | Promise<Response>;
      try {
        response = app.fetch(request, server);
      } catch (error) {
        requestsInFlight.count--;
        throw error;
      }
      if (response instanceof Promise) {
        return response.then(
          (answer) => settle(request, answer, server),
          (error: unknown) => {
            requestsInFlight.count--;
            throw error;
          },
        );
      }
      return settle(request, response, server);
    },
  };
}

/** The path of a request URL, without the query. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  return query === -1 ? url.slice(start) : url.slice(start, query);
}

export interface AdmissionAppOptions {
  readonly maxRequestBytes: number;
}

/** The HTTPS admission app: one review route per endpoint of the table, plus probes. */
export function createAdmissionApp(
  handlers: Handlers,
  readiness: Readiness,
  log: Logger,
  options: AdmissionAppOptions,
): AdmissionApp {
  const app = withErrorHandling(new Hono<ListenerEnv>(), log);
  const admitOptions = { ...options, largeReviews: createLargeReviewGate() };
  for (const endpoint of ENDPOINT_LABELS) {
    const handler: Handler = handlers[endpoint];
    app.all(ENDPOINTS[endpoint].path, admit(endpoint, handler, log, admitOptions));
  }
  mountProbes(app, readiness);
  return observeResponses(app, log);
}

/** The plain-HTTP ops app: Prometheus metrics plus probes. */
export function createOpsApp(
  readiness: Readiness,
  log: Logger,
  options: { readonly metricsRenderIntervalMs: number },
): Hono<ListenerEnv> {
  const app = withErrorHandling(new Hono<ListenerEnv>(), log);
  const exposition = cachedExposition(registry, options.metricsRenderIntervalMs);
  app.get("/metrics", async (c) =>
    c.body(await exposition(), 200, { "Content-Type": registry.contentType }),
  );
  app.all("/metrics", (c) => methodNotAllowed(c, ["GET"]));
  mountProbes(app, readiness);
  return app;
}
