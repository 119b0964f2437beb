import type { Context, Env, ErrorHandler, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { cutShort } from "../echo";
import type { Logger } from "../observability/logger";

/** The 4xx answers the listeners give before any handler decides anything. */
type RejectionStatus = 400 | 404 | 405 | 408 | 413 | 415;

/**
 * A request refused for what it is (path, method, size, type, envelope) or
 * for how its body arrived (too slowly, cut off).
 * Thrown by routes and middleware; `answerErrors` turns it into the small
 * JSON body every 4xx has, and the warn line of the observing middleware
 * reads `reason` from it.
 */
export class Rejection extends HTTPException {
  override readonly name = "Rejection";

  constructor(
    override readonly status: RejectionStatus,
    /** What was wrong, as the answer's `error` and the log line's `reason` say it. */
    readonly reason: string,
    readonly extra: {
      readonly details?: readonly string[];
      readonly headers?: Readonly<Record<string, string>>;
    } = {},
  ) {
    super(status, { message: reason });
  }
}

/**
 * The one error path of an app (`app.onError`): a Rejection is answered with
 * its status, headers and `{error, details?}` and told to `onRejected` (the
 * admission app's 4xx warn line); anything else is a bug, logged and
 * answered 500.
 */
export function answerErrors<E extends Env>(
  log: Logger,
  onRejected?: (rejection: Rejection, c: Context<E>) => void,
): ErrorHandler<E> {
  return (error, c) => {
    if (!(error instanceof Rejection)) {
      log.error({ err: error, path: cutShort(c.req.path) }, "unhandled error");
      return c.json({ error: "internal error" }, 500);
    }
    onRejected?.(error, c);
    for (const [name, value] of Object.entries(error.extra.headers ?? {})) c.header(name, value);
    const { details } = error.extra;
    return c.json(
      details ? { error: error.reason, details } : { error: error.reason },
      error.status,
    );
  };
}

/** Answers every method but `methods` on `path` with 405 and an Allow header; register after its routes. */
export function allowOnly<E extends Env>(app: Hono<E>, path: string, methods: readonly string[]) {
  app.all(path, (c) => {
    throw new Rejection(
      405,
      `method ${cutShort(c.req.method)} not allowed on ${cutShort(c.req.path)}; use ${methods.join(" or ")}`,
      { headers: { Allow: methods.join(", ") } },
    );
  });
}

/** Answers every path no route took with 404; register after every route. */
export function refuseUnknownPaths<E extends Env>(app: Hono<E>) {
  app.all("*", (c) => {
    throw new Rejection(404, `no such path: ${cutShort(c.req.path)}`);
  });
}
