import type { Context, MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/bun";
import type { Logger } from "../observability/logger";
import { createRejectionLog } from "../observability/rejection-log";
import type { CountedDecision, ListenerEnv } from "./rejection";

/*
 * What the admission listener observes of every request: its metrics, as
 * middleware registered with `app.use` ahead of the routes (Hono runs the
 * error path, the 404 and the 405 before it resumes, so it sees every
 * answer, 4xx included), and the warn line of each 4xx, from the Rejection
 * the answer was made of.
 */

/** What `measureRequests` records, bound to the metrics by the app that uses it. */
export interface RequestMeasures {
  /** Requests being worked on. */
  readonly inFlight: { inc(): void; dec(): void };
  /** Counts one response to `path` with `status`. */
  countResponse(path: string, status: number): void;
  /** The duration histogram of the reviews served at `path`; undefined for any other path. */
  reviewDuration(path: string): { observe(seconds: number): void } | undefined;
  /** Counts the decision a review at `path` answered with. */
  countDecision(path: string, decision: CountedDecision): void;
}

/**
 * The one instrumenting wrapper of an app: in flight while a request is
 * worked on, then its response by path and status, the decision a review
 * answered with (which the review keeps on the context), for an answered
 * review (200 on a review path) its duration from the first byte read to the
 * encoded answer, and the warn line of a 4xx. One middleware for all of it,
 * as it is one concern (what the metrics and logs say about requests): as
 * three middlewares and a per-route timer they cost a tenth to a fifth of the
 * design floor's CPU per review more (an in-process A/B, docs/performance.md).
 */
export function measureRequests(
  measures: RequestMeasures,
  warn: (c: Context<ListenerEnv>) => void = () => {},
): MiddlewareHandler<ListenerEnv> {
  return async (c, next) => {
    const receivedAt = performance.now();
    measures.inFlight.inc();
    try {
      await next();
    } finally {
      measures.inFlight.dec();
    }
    const { path } = c.req;
    const { status } = c.res;
    measures.countResponse(path, status);
    if (status >= 400 && status < 500) warn(c);
    const decision = c.get("reviewDecision");
    if (decision !== undefined) measures.countDecision(path, decision);
    if (status === 200)
      measures.reviewDuration(path)?.observe((performance.now() - receivedAt) / 1000);
  };
}

/**
 * Every 4xx at warn, with what was wrong and who sent it (rate-limited and
 * bounded, see createRejectionLog): a misconfigured or version-skewed
 * apiserver then shows up in the logs. Every 4xx is a Rejection answered by
 * the app's error path, its 404 or its 405, which keep it on the context.
 */
export function warnOnRejection(log: Logger): (c: Context<ListenerEnv>) => void {
  const logRejection = createRejectionLog(log);
  return (c) => {
    const rejection = c.get("rejection");
    if (rejection === undefined) return;
    // The Bun server is the app's environment when it serves a listener; a test may call the app without one.
    const { address, port } = c.env ? getConnInfo(c).remote : {};
    logRejection({
      method: c.req.method,
      path: c.req.path,
      status: rejection.status,
      reason: rejection.reason,
      client: address === undefined ? undefined : `${address}:${port}`,
    });
  };
}
