import type { Context, ErrorHandler, Hono, MiddlewareHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { methodNotAllowed } from "hono/method-not-allowed";
import { cutShort } from "../bounded-text";
import type { Logger } from "../observability/logger";

export const REJECTION_STATUSES = [400, 404, 405, 408, 413, 415] as const;
type RejectionStatus = (typeof REJECTION_STATUSES)[number];

/** A request refused for what it is or how its body arrived; every 4xx is one, answered by `answerErrors`. */
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

/** What a review decided, as the observing middleware counts it (http/observe.ts). */
export interface CountedDecision {
  readonly result: string;
  readonly reason: string;
}

/** What the observing middleware reads back: the Rejection answered (its warn line), or the decision (its count). */
export type ListenerEnv = {
  Variables: { rejection?: Rejection; reviewDecision?: CountedDecision };
};

/** A Rejection's answer: its status, headers and `{error, details?}`; kept on the context. */
function answerRejection(rejection: Rejection, c: Context<ListenerEnv>): Response {
  c.set("rejection", rejection);
  const { details, headers } = rejection.extra;
  const body = details ? { error: rejection.reason, details } : { error: rejection.reason };
  return c.json(body, rejection.status, headers);
}

/** The one error path of an app (`app.onError`): anything but a Rejection is a bug, logged and answered 500. */
export function answerErrors(log: Logger): ErrorHandler<ListenerEnv> {
  return (error, c) => {
    if (error instanceof Rejection) return answerRejection(error, c);
    log.error({ err: error, path: cutShort(c.req.path) }, "unhandled error");
    return c.json({ error: "internal error" }, 500);
  };
}

/** Hono's 405, with an Allow header, answered as a Rejection; `app.use` it before the routes. */
export function refuseOtherMethods(app: Hono<ListenerEnv>): MiddlewareHandler<ListenerEnv> {
  return methodNotAllowed({
    app,
    onMethodNotAllowed: (c, methods) =>
      answerRejection(
        new Rejection(
          405,
          `method ${cutShort(c.req.method)} not allowed on ${cutShort(c.req.path)}; use ${methods.join(" or ")}`,
          { headers: { Allow: methods.join(", ") } },
        ),
        c,
      ),
  });
}

/** The 404 of a path no route took (`app.notFound`). */
export const refuseUnknownPath: NotFoundHandler<ListenerEnv> = (c) =>
  answerRejection(new Rejection(404, `no such path: ${cutShort(c.req.path)}`), c);
