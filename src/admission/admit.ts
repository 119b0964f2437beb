import type { Context, Env } from "hono";
import { bodyLimit } from "hono/body-limit";
import { echo } from "../echo";
import { jsonError, methodNotAllowed } from "../errors";
import type { Logger } from "../observability/logger";
import { admissionCells, admissionDuration } from "../observability/metrics";
import type { CollectedViolations } from "../rules/violation";
import type { EndpointLabel } from "./endpoints";
import { gateOperations, type Handler } from "./handler";
import type { LargeReviewGate } from "./large-reviews";
import { encodeResponse } from "./response";
import { type AdmissionRequest, admissionReviewSchema } from "./review";
import { errored, type Verdict } from "./verdict";

const REVIEW_RESPONSE_INIT: ResponseInit = { headers: { "Content-Type": "application/json" } };

/** `application/json`, optionally with parameters such as `charset=utf-8`. */
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

const INTERNAL_ERROR = errored(
  "internal",
  "internal error while evaluating the request; retry, and report it if it persists",
);

const ALLOWED_METHODS = ["POST"];

export interface AdmitOptions {
  /** MAX_REQUEST_BYTES: a larger body is a 413 before it is read, or as soon as it passes this. */
  readonly maxRequestBytes: number;
  /** Shared by every endpoint: large reviews are decoded within one memory budget. */
  readonly largeReviews: LargeReviewGate;
}

/**
 * The one admission pipeline, as the single Hono handler of an endpoint's
 * path (one handler per route lets Hono skip composing a middleware chain):
 * the method, the body size, the Content-Type, the JSON, the envelope in
 * one synchronous zod pass (which lets zod use its compiled object parser),
 * the operation gate and the handler, then exactly one metric sample, one
 * log line and the encoded review. A handler that throws fails closed, and
 * what it threw goes into the log line. A synchronous verdict is answered
 * without a detour through a promise.
 */
export function admit<E extends EndpointLabel, V extends Env>(
  endpoint: E,
  handler: Handler<E>,
  log: Logger,
  options: AdmitOptions,
): (c: Context<V>) => Response | Promise<Response> {
  const examine = gateOperations(endpoint, handler);
  const decisions = admissionCells(endpoint);
  const duration = admissionDuration.labels(endpoint);
  const limit = limitBody(options.maxRequestBytes);

  const review = async (c: Context<V>, receivedAt: number): Promise<Response> => {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.raw.text());
    } catch {
      return jsonError(c, 400, "request body is not valid JSON: Malformed JSON in request body");
    }
    const parsed = admissionReviewSchema.safeParse(body);
    if (!parsed.success) {
      const details = parsed.error.issues.map(
        (issue) => `${issue.path.length ? issue.path.join(".") : "(body)"}: ${issue.message}`,
      );
      return jsonError(c, 400, "request body is not a valid AdmissionReview", details);
    }
    const { apiVersion, request } = parsed.data;
    const answer = (verdict: Verdict, thrown?: unknown): Response => {
      const encoded = encodeResponse(apiVersion, request.uid, verdict);
      decisions(verdict.result, verdict.reason).pending++;
      duration.observe((performance.now() - receivedAt) / 1000);
      logVerdict(log, endpoint, request, verdict, thrown);
      // A Response built directly: c.json() would make a Headers object per answer.
      return new Response(JSON.stringify(encoded), REVIEW_RESPONSE_INIT);
    };
    let verdict: Verdict | Promise<Verdict>;
    try {
      verdict = examine(request);
    } catch (thrown) {
      return answer(INTERNAL_ERROR, thrown);
    }
    if (verdict instanceof Promise) {
      return verdict.then(answer, (thrown: unknown) => answer(INTERNAL_ERROR, thrown));
    }
    return answer(verdict);
  };

  const typedReview = (c: Context<V>, receivedAt: number): Response | Promise<Response> => {
    const contentType = c.req.raw.headers.get("content-type") ?? "";
    if (!JSON_MEDIA_TYPE.test(contentType)) {
      return jsonError(c, 415, `Content-Type must be application/json, got "${echo(contentType)}"`);
    }
    return options.largeReviews.run(declaredLength(c), () => review(c, receivedAt));
  };

  return (c) => {
    if (c.req.method !== "POST") return methodNotAllowed(c, ALLOWED_METHODS);
    const receivedAt = performance.now();
    const size = limit(c);
    if (size === "fits") return typedReview(c, receivedAt);
    if (size === "unknown") return limit.streamed(c, async () => typedReview(c, receivedAt));
    return size;
  };
}

/** The body's Content-Length; undefined for a chunked body, whose length only reading tells. */
function declaredLength(c: Context): number | undefined {
  const headers = c.req.raw.headers;
  const declared = headers.get("content-length");
  if (declared === null || headers.has("transfer-encoding")) return undefined;
  return Number.parseInt(declared, 10);
}

/**
 * MAX_REQUEST_BYTES enforced by the app, so a 413 is a JSON answer that is
 * counted and logged like every other 4xx: a declared Content-Length is
 * refused before any byte is read, a chunked body as soon as it passes the
 * limit. The connection is closed, as the rest of the body is never read.
 * A declared length is checked from the header alone: touching
 * `request.body` makes Bun build a stream for a body it has already read.
 */
function limitBody(maxBytes: number) {
  const tooLarge = (c: Context) => {
    c.header("Connection", "close");
    return jsonError(
      c,
      413,
      `request body is larger than MAX_REQUEST_BYTES (${maxBytes} bytes); an AdmissionReview is far smaller`,
    );
  };
  const streamedLimit = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  /** A 413 for a declared length past the limit; "unknown" when only reading the body can tell. */
  const check = (c: Context): Response | "fits" | "unknown" => {
    const declared = declaredLength(c);
    if (declared === undefined) return "unknown";
    return declared > maxBytes ? tooLarge(c) : "fits";
  };
  /** Reads a body of unknown length up to the limit, then goes on with `next`. */
  const streamed = async (c: Context, next: () => Promise<Response>): Promise<Response> => {
    let answer: Response | undefined;
    const limited = await streamedLimit(c, async () => {
      answer = await next();
    });
    return limited ?? (answer as Response);
  };
  return Object.assign(check, { streamed });
}

function logVerdict(
  log: Logger,
  endpoint: EndpointLabel,
  request: AdmissionRequest,
  verdict: Verdict,
  thrown: unknown,
) {
  // Allows log at debug only; skip building the line on the hot path when it would be dropped.
  if (verdict.allowed && !log.isLevelEnabled("debug")) return;
  const fields = {
    handler: endpoint,
    uid: echo(request.uid),
    operation: request.operation && echo(request.operation),
    kind: request.kind && echo(request.kind.kind),
    resource: request.namespace
      ? `${echo(request.namespace)}/${echo(request.name ?? "")}`
      : echo(request.name ?? ""),
    user: request.userInfo?.username && echo(request.userInfo.username),
    result: verdict.result,
    reason: verdict.reason,
  };
  if (verdict.result === "error")
    log.error({ ...fields, message: verdict.message, err: thrown }, "admission error");
  else if (verdict.result === "deny")
    log.warn(
      { ...fields, message: verdict.message, ...violationFields(verdict.violations) },
      "admission denied",
    );
  else log.debug(fields, "admission allowed");
}

/**
 * The broken rules of a denial as log fields, so the logs can tell which rule
 * denies most: each listed violation's rule id and JSON path, and how many
 * more each rule had past the listing cap.
 */
function violationFields({ listed, unlistedByRule, total }: CollectedViolations) {
  if (total === 0) return {};
  return {
    violations: listed.map(({ rule, path }) => ({ rule, path })),
    ...(total > listed.length ? { unlisted: Object.fromEntries(unlistedByRule) } : {}),
  };
}
