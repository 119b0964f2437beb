import { createFactory } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { jsonError } from "../errors";
import type { Logger } from "../observability/logger";
import { admissionCells, admissionDuration } from "../observability/metrics";
import type { CollectedViolations } from "../rules/violation";
import type { EndpointLabel } from "./endpoints";
import { gateOperations, type Handler } from "./handler";
import { encodeResponse } from "./response";
import { type AdmissionRequest, type AdmissionReview, admissionReviewSchema } from "./review";
import { errored, type Verdict } from "./verdict";

type AdmissionEnv = { Variables: { receivedAt: number } };

const factory = createFactory<AdmissionEnv>();

const REVIEW_RESPONSE_INIT: ResponseInit = { headers: { "Content-Type": "application/json" } };

/** `application/json`, optionally with parameters such as `charset=utf-8`. */
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/**
 * The envelope, checked in one middleware: Content-Type, then the body Hono
 * parses (not JSON: a 400 from the app's error handler), then zod in one
 * synchronous pass, handed on as Hono's validated data (`c.req.valid`).
 * Synchronous `safeParse` lets zod use its compiled object parser, which
 * `safeParseAsync` (what @hono/zod-validator calls) never does.
 */
const validReview = factory.createMiddleware<{
  in: { json: unknown };
  out: { json: AdmissionReview };
}>(async (c, next) => {
  c.set("receivedAt", performance.now());
  const contentType = c.req.header("content-type") ?? "";
  if (!JSON_MEDIA_TYPE.test(contentType)) {
    return jsonError(c, 415, `Content-Type must be application/json, got "${contentType}"`);
  }
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new HTTPException(400, { message: "Malformed JSON in request body" });
  }
  const result = admissionReviewSchema.safeParse(body);
  if (!result.success) {
    const details = result.error.issues.map(
      (issue) => `${issue.path.length ? issue.path.join(".") : "(body)"}: ${issue.message}`,
    );
    return jsonError(c, 400, "request body is not a valid AdmissionReview", details);
  }
  c.req.addValidatedData("json", result.data);
  await next();
});

const INTERNAL_ERROR = errored(
  "internal",
  "internal error while evaluating the request; retry, and report it if it persists",
);

/**
 * The one admission pipeline: Content-Type check, envelope validation, the
 * operation gate, the handler, then exactly one metric sample, one log line
 * and the encoded review. A handler that throws fails closed, and what it
 * threw goes into the log line. A synchronous verdict is answered without a
 * detour through a promise.
 */
export function admit<E extends EndpointLabel>(endpoint: E, handler: Handler<E>, log: Logger) {
  const examine = gateOperations(endpoint, handler);
  const decisions = admissionCells(endpoint);
  const duration = admissionDuration.labels(endpoint);
  return factory.createHandlers(validReview, (c) => {
    const { apiVersion, request } = c.req.valid("json");
    const receivedAt = c.get("receivedAt");
    const answer = (verdict: Verdict, thrown?: unknown): Response => {
      const body = encodeResponse(apiVersion, request.uid, verdict);
      decisions(verdict.result, verdict.reason).pending++;
      duration.observe((performance.now() - receivedAt) / 1000);
      logVerdict(log, endpoint, request, verdict, thrown);
      // A Response built directly: c.json() would make a Headers object per answer.
      return new Response(JSON.stringify(body), REVIEW_RESPONSE_INIT);
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
  });
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
    uid: request.uid,
    operation: request.operation,
    kind: request.kind?.kind,
    resource: request.namespace
      ? `${request.namespace}/${request.name ?? ""}`
      : (request.name ?? ""),
    user: request.userInfo?.username,
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
