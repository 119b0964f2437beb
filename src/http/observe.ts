import type { SocketAddress } from "bun";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "../observability/logger";
import { createRejectionLog } from "../observability/rejection-log";
import { Rejection } from "./rejection";

/*
 * What a listener observes of every request, one concern per middleware,
 * each registered with `app.use` ahead of the routes. Hono runs the error
 * path before they resume, so they see every answer, 4xx included.
 */

/** What the listener passes as the app's environment: the Bun server, for the client address. */
export type ListenerEnv = { Bindings: { requestIP?(request: Request): SocketAddress | null } };

/** Requests being worked on: up when one arrives, down once it is answered. */
export function countInFlight(gauge: { inc(): void; dec(): void }): MiddlewareHandler {
  return async (_c, next) => {
    gauge.inc();
    try {
      await next();
    } finally {
      gauge.dec();
    }
  };
}

/** Every response, by the label of its path and its status code. */
export function countResponses(count: (path: string, status: number) => void): MiddlewareHandler {
  return async (c, next) => {
    await next();
    count(c.req.path, c.res.status);
  };
}

/**
 * Every 4xx at warn, with what was wrong and who sent it (rate-limited and
 * bounded, see createRejectionLog): a misconfigured or version-skewed
 * apiserver then shows up in the logs.
 */
export function warnOnRejections(log: Logger): MiddlewareHandler<ListenerEnv> {
  const logRejection = createRejectionLog(log);
  return async (c, next) => {
    await next();
    const { status } = c.res;
    if (status < 400 || status >= 500) return;
    const client = c.env?.requestIP?.(c.req.raw);
    logRejection({
      method: c.req.method,
      path: c.req.path,
      status,
      reason: c.error instanceof Rejection ? c.error.reason : undefined,
      client: client ? `${client.address}:${client.port}` : undefined,
    });
  };
}
