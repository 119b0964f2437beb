import type { SocketAddress } from "bun";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { admit } from "../admission/admit";
import { ENDPOINT_LABELS, ENDPOINTS, endpointAt } from "../admission/endpoints";
import type { Handler, Handlers } from "../admission/handler";
import { jsonError, methodNotAllowed, notFound } from "../errors";
import type { Logger } from "../observability/logger";
import {
  cachedExposition,
  httpResponseCell,
  registry,
  requestsInFlight,
} from "../observability/metrics";
import { mountProbes, type Readiness } from "./probes";

/** What the listener passes as the app's environment: the Bun server, for the client address. */
type ListenerEnv = { Bindings: { requestIP?(request: Request): SocketAddress | null } };

function withErrorHandling(app: Hono<ListenerEnv>, log: Logger): Hono<ListenerEnv> {
  app.notFound(notFound);
  app.onError((error, c) => {
    // The JSON validator raises HTTPException(400) for a body that is not JSON.
    if (error instanceof HTTPException && error.status === 400) {
      return jsonError(c, 400, `request body is not valid JSON: ${error.message}`);
    }
    log.error({ err: error, path: c.req.path }, "unhandled error");
    return jsonError(c, 500, "internal error");
  });
  return app;
}

/** The `path` label: one of the endpoints' paths, or `other`, so a scanner cannot grow the label set. */
function pathLabel(path: string): string {
  return endpointAt(path) === undefined ? "other" : path;
}

/**
 * Counts every response by path and status, tracks requests in flight, and
 * logs each 4xx at warn with what was wrong and who sent it: a misconfigured
 * or version-skewed apiserver then shows up in the metrics and the logs.
 */
function observeResponses(log: Logger): MiddlewareHandler<ListenerEnv> {
  return async (c, next) => {
    requestsInFlight.count++;
    try {
      await next();
    } finally {
      requestsInFlight.count--;
      const { status } = c.res;
      httpResponseCell(pathLabel(c.req.path), status).pending++;
      if (status >= 400 && status < 500) {
        const client = c.env?.requestIP?.(c.req.raw);
        log.warn(
          {
            method: c.req.method,
            path: c.req.path,
            status,
            reason: c.get("rejection"),
            client: client ? `${client.address}:${client.port}` : undefined,
          },
          "request rejected",
        );
      }
    }
  };
}

/**
 * MAX_REQUEST_BYTES enforced by the app, so a 413 is a JSON answer that is
 * counted and logged like every other 4xx: a declared Content-Length is
 * refused before any byte is read, a chunked body as soon as it passes the
 * limit. The connection is closed, as the rest of the body is never read.
 * A declared length is checked from the header alone: touching
 * `request.body` makes Bun build a stream for a body it has already read.
 */
function limitBody(maxBytes: number): MiddlewareHandler {
  const tooLarge = (c: Context) => {
    c.header("Connection", "close");
    return jsonError(
      c,
      413,
      `request body is larger than MAX_REQUEST_BYTES (${maxBytes} bytes); an AdmissionReview is far smaller`,
    );
  };
  const streamed = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return (c, next) => {
    const headers = c.req.raw.headers;
    const declared = headers.get("content-length");
    if (declared === null || headers.has("transfer-encoding")) return streamed(c, next);
    return Number.parseInt(declared, 10) > maxBytes ? Promise.resolve(tooLarge(c)) : next();
  };
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
): Hono<ListenerEnv> {
  const app = new Hono<ListenerEnv>();
  app.use(observeResponses(log));
  withErrorHandling(app, log);
  for (const endpoint of ENDPOINT_LABELS) {
    const { path } = ENDPOINTS[endpoint];
    const handler: Handler = handlers[endpoint];
    app.post(path, limitBody(options.maxRequestBytes), ...admit(endpoint, handler, log));
    app.all(path, (c) => methodNotAllowed(c, ["POST"]));
  }
  mountProbes(app, readiness);
  return app;
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
