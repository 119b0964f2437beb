import type { Context, Env, Hono, MiddlewareHandler } from "hono";
import type { RejectionEnv } from "./rejection";
import type { Logger } from "../observability/logger";
import { logDecision } from "./decision-log";
import { ENDPOINT_KEYS, ENDPOINTS, type EndpointKey } from "../endpoints/index";
import {
  type EndpointRemedies,
  type Enforcement,
  type EnforcementAction,
  enforce,
  type RefusalRemedies,
  remediesOf,
} from "../endpoints/enforcement";
import { createLargeReviewGate, type LargeReviewGate } from "./body-budget";
import { gateOperations } from "./operation-gate";
import { readReviewBody, refuseDeclaredOversize } from "./request-body";
import { encodeResponse } from "./admission-response";
import { requireJson, validEnvelope } from "./envelope";
import { errored, type Handler, type Handlers, type Verdict } from "../contract/verdict";

export interface ReviewRouteOptions {
  /** MAX_REQUEST_BYTES. */
  readonly maxRequestBytes: number;
  /** BODY_READ_TIMEOUT in milliseconds. */
  readonly bodyReadTimeoutMs: number;
  /** ENFORCEMENT: what each endpoint does with what it would refuse. */
  readonly enforcement: Enforcement;
  /** What to do first about each refusal reason: a warn-mode warning leads with it. */
  readonly remedies: RefusalRemedies;
}

/**
 * One route per endpoint of the table: POST its path through the validation
 * middleware and the endpoint's review (any other method is the app's 405). The
 * handler then only ever sees a valid envelope. (The app's observing
 * middleware times and counts each review, `http/observe.ts`.)
 */
export function mountReviewRoutes(
  app: Hono<RejectionEnv>,
  handlers: Handlers,
  log: Logger,
  options: ReviewRouteOptions,
): void {
  const validation = reviewValidation(options);
  for (const endpoint of ENDPOINT_KEYS) {
    const { path } = ENDPOINTS[endpoint];
    const handler: Handler = handlers[endpoint];
    const reviewed = review(endpoint, handler, log, {
      action: options.enforcement[endpoint],
      remedies: remediesOf(options.remedies, endpoint),
    });
    app.post(path, ...validation, reviewed);
  }
}

/**
 * The middleware every review passes before its handler, in order: declared
 * size, type, the body read in its turn (one gate for all of the app's
 * routes, so every body shares one memory budget), envelope.
 */
export function reviewValidation(
  options: Pick<ReviewRouteOptions, "maxRequestBytes" | "bodyReadTimeoutMs">,
  largeReviews: LargeReviewGate = createLargeReviewGate(),
) {
  return [
    refuseDeclaredOversize(options.maxRequestBytes),
    requireJson,
    readReviewBody(largeReviews, {
      maxBytes: options.maxRequestBytes,
      readTimeoutMs: options.bodyReadTimeoutMs,
    }),
    validEnvelope,
  ] as const;
}

/** The envelope as the validation middleware hands it to the review: the validator's own input type. */
type ReviewInput = typeof validEnvelope extends MiddlewareHandler<Env, string, infer I> ? I : never;

const INTERNAL_ERROR = errored(
  "internal",
  "internal error while evaluating the request; retry, and report it if it persists",
);

/**
 * An endpoint's review: the operation gate and the handler, the endpoint's
 * enforcement (under `warn` a refusal becomes an allowed warning), then
 * exactly one decision kept for the observing middleware to count, one log
 * line and the encoded review. A
 * handler that throws fails closed, and what it threw goes into the log
 * line.
 */
function review<E extends EndpointKey>(
  endpoint: E,
  handler: Handler<E>,
  log: Logger,
  { action, remedies }: { action: EnforcementAction; remedies: EndpointRemedies },
) {
  const examine = gateOperations(endpoint, handler);
  return async (c: Context<RejectionEnv, string, ReviewInput>): Promise<Response> => {
    const { apiVersion, request } = c.req.valid("json");
    const answer = (verdict: Verdict<E>, thrown?: unknown): Response => {
      const decision = enforce(verdict, action, remedies);
      c.set("decision", decision);
      logDecision(log, endpoint, request, decision, thrown);
      // Response.json, not c.json(): Hono's would make a Headers object per answer.
      return Response.json(encodeResponse(apiVersion, request.uid, endpoint, decision));
    };
    let verdict: Verdict<E>;
    try {
      verdict = await examine(request);
    } catch (thrown) {
      return answer(INTERNAL_ERROR, thrown);
    }
    return answer(verdict);
  };
}
