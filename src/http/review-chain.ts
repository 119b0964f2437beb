import { zValidator } from "@hono/zod-validator";
import { type Context, type Env, Hono, type MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { cutShort } from "../bounded-text";
import { type AdmissionRequest, admissionReviewSchema } from "../contract/admission-request";
import { errored, skipped, type Verdict } from "../contract/verdict";
import {
  type Decisions,
  ENDPOINT_KEYS,
  ENDPOINTS,
  type EndpointKey,
  operationsOf,
  type VerdictOf,
} from "../endpoints";
import type { Enforcement } from "../endpoints/enforcement";
import type { Logger } from "../observability/logger";
import { createLargeReviewGate, type LargeReviewGate } from "./body-budget";
import { admissionMeasures, measureRequests, warnOnRejection } from "./observe";
import { mountProbes, type Readiness } from "./probes";
import {
  answerErrors,
  type ListenerEnv,
  Rejection,
  refuseOtherMethods,
  refuseUnknownPath,
} from "./rejection";
import { readReviewBody, refuseDeclaredOversize } from "./request-body";
import { encodeResponse, enforce, logDecision, remediesOf } from "./review-answer";

/*
 * The admission listener's request chain, in the order a request meets it:
 *
 *   listener (server/admission-listener.ts) → app.fetch
 *   → count and time every answer, warn on every 4xx          measureRequests
 *   → 405 for a method a path is not routed for               refuseOtherMethods
 *   → POST <endpoint path>:
 *       413 declared size → 415 type → body within its budget  reviewValidation
 *       → 400 envelope (@hono/zod-validator)
 *     → operation gate → the endpoint's decision → enforcement  review
 *       → one log line → the AdmissionReview answer
 *   → anything else: the probes, or 404
 *
 * Every refusal before the decision is a Rejection, answered by one error
 * path (rejection.ts); a decision that throws fails closed as `internal`.
 */

export interface ReviewChainOptions {
  /** MAX_REQUEST_BYTES. */
  readonly maxRequestBytes: number;
  /** BODY_READ_TIMEOUT in milliseconds. */
  readonly bodyReadTimeoutMs: number;
  /** ENFORCEMENT: what each endpoint does with what it would refuse. */
  readonly enforcement: Enforcement;
}

/** The HTTPS admission app: one review route per endpoint of the table, the probes, a 404 for anything else. */
export function admissionApp(
  decisions: Decisions,
  readiness: Readiness,
  log: Logger,
  options: ReviewChainOptions,
): Hono<ListenerEnv> {
  const app = new Hono<ListenerEnv>();
  app.onError(answerErrors(log));
  app.notFound(refuseUnknownPath);
  app.use(measureRequests(admissionMeasures(), warnOnRejection(log)));
  app.use(refuseOtherMethods(app));
  const validation = reviewValidation(options);
  for (const endpoint of ENDPOINT_KEYS) {
    const reviewed = review(endpoint, decisions[endpoint], log, options.enforcement[endpoint]);
    app.post(ENDPOINTS[endpoint].path, ...validation, reviewed);
  }
  mountProbes(app, readiness);
  return app;
}

/** Declared size, type, the body read in its turn (one gate, so one memory budget for all routes), envelope. */
export function reviewValidation(
  options: Pick<ReviewChainOptions, "maxRequestBytes" | "bodyReadTimeoutMs">,
  bodies: LargeReviewGate = createLargeReviewGate(),
) {
  return [
    refuseDeclaredOversize(options.maxRequestBytes),
    requireJson,
    readReviewBody(bodies, {
      maxBytes: options.maxRequestBytes,
      readTimeoutMs: options.bodyReadTimeoutMs,
    }),
    validEnvelope,
  ] as const;
}

/** `application/json`, optionally with parameters such as `charset=utf-8`. */
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

const requireJson: MiddlewareHandler = async (c, next) => {
  const contentType = c.req.header("content-type") ?? "";
  if (!JSON_MEDIA_TYPE.test(contentType)) {
    throw new Rejection(
      415,
      `Content-Type must be application/json, got "${cutShort(contentType)}"`,
    );
  }
  await next();
};

/** zod parses synchronously: the validator's default `safeParseAsync` cannot use zod's compiled object parser. */
const envelopeValidator = zValidator(
  "json",
  admissionReviewSchema,
  (result) => {
    if (result.success) return;
    const details = result.error.issues.map(
      (issue) => `${issue.path.length ? issue.path.join(".") : "(body)"}: ${issue.message}`,
    );
    throw new Rejection(400, "request body is not a valid AdmissionReview", { details });
  },
  { validationFunction: (schema, value) => schema.safeParse(value) },
);

/** The envelope; a body that is not JSON at all (Hono's own 400) is refused in the same words. */
const validEnvelope: typeof envelopeValidator = (c, next) =>
  envelopeValidator(c, next).catch((error: unknown) => {
    if (error instanceof HTTPException && !(error instanceof Rejection)) {
      throw new Rejection(400, `request body is not valid JSON: ${error.message}`);
    }
    throw error;
  });

/** The envelope as the validator hands it on: its own input type. */
type ValidatedReview = Context<
  ListenerEnv,
  string,
  typeof validEnvelope extends MiddlewareHandler<Env, string, infer I> ? I : never
>;

const SKIPPED_OPERATION = Object.freeze(skipped("operation"));

/**
 * The operation gate: `decide` sees only the operations `endpoint` is
 * registered for; any other passes as skipped/operation.
 */
export function examinedOnly<E extends EndpointKey>(
  endpoint: E,
  decide: Decisions[E],
): (request: AdmissionRequest) => Promise<VerdictOf<E>> {
  const examined: ReadonlySet<string | undefined> = new Set(operationsOf(endpoint));
  return async (request) => (examined.has(request.operation) ? decide(request) : SKIPPED_OPERATION);
}

const INTERNAL_ERROR = errored(
  "internal",
  "internal error while evaluating the request; retry, and report it if it persists",
);

/**
 * An endpoint's review: the operation gate, the decision, enforcement, the
 * count, one log line, the answer. A decision that throws fails closed, and
 * what it threw goes into the log line.
 */
function review<E extends EndpointKey>(
  endpoint: E,
  decide: Decisions[E],
  log: Logger,
  action: Enforcement[E],
) {
  const examine = examinedOnly(endpoint, decide);
  const remedies = remediesOf(endpoint);
  return async (c: ValidatedReview): Promise<Response> => {
    const { apiVersion, request } = c.req.valid("json");
    let verdict: Verdict;
    let thrown: unknown;
    try {
      verdict = await examine(request);
    } catch (error) {
      verdict = INTERNAL_ERROR;
      thrown = error;
    }
    const decision = enforce(verdict, action, remedies);
    c.set("reviewDecision", decision);
    logDecision(log, endpoint, request, decision, thrown);
    // Response.json, not c.json(): Hono's would make a Headers object per answer.
    return Response.json(encodeResponse(apiVersion, request.uid, endpoint, decision));
  };
}
