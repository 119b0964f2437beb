import { zValidator } from "@hono/zod-validator";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { echo } from "../echo";
import { Rejection } from "../http/rejection";
import type { LargeReviewGate } from "./large-reviews";
import { admissionReviewSchema } from "./review";

/*
 * The middleware between an admission route and its handler: the body size
 * (413), the Content-Type (415), a turn to decode a large review, and the
 * AdmissionReview envelope (400). Each refusal is a Rejection, answered and
 * counted by the app's one error path.
 */

/**
 * MAX_REQUEST_BYTES: a declared Content-Length past it is refused before any
 * byte of the body is read, a chunked body as soon as it grows past it. The
 * connection is closed, as the rest of the body is never read.
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new Rejection(
        413,
        `request body is larger than MAX_REQUEST_BYTES (${maxBytes} bytes); an AdmissionReview is far smaller`,
        { headers: { Connection: "close" } },
      );
    },
  });
}

/** `application/json`, optionally with parameters such as `charset=utf-8`. */
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

export const requireJson: MiddlewareHandler = async (c, next) => {
  const contentType = c.req.raw.headers.get("content-type") ?? "";
  if (!JSON_MEDIA_TYPE.test(contentType)) {
    throw new Rejection(415, `Content-Type must be application/json, got "${echo(contentType)}"`);
  }
  await next();
};

/**
 * Large reviews wait for room in the gate's memory budget before their body
 * is read and decoded; small ones pass at once.
 */
export function awaitLargeReviewTurn(gate: LargeReviewGate): MiddlewareHandler {
  return (c, next) => gate.run(declaredLength(c), next);
}

/** The body's Content-Length; undefined for a chunked body, whose length only reading tells. */
function declaredLength(c: Context): number | undefined {
  const headers = c.req.raw.headers;
  const declared = headers.get("content-length");
  if (declared === null || headers.has("transfer-encoding")) return undefined;
  return Number.parseInt(declared, 10);
}

/**
 * The envelope through Hono's validator. zod parses synchronously: the
 * validator's default `safeParseAsync` cannot use zod's compiled object
 * parser, and the envelope is checked on every review.
 */
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
export const validEnvelope: typeof envelopeValidator = (c, next) =>
  envelopeValidator(c, next).catch((error: unknown) => {
    if (error instanceof HTTPException && !(error instanceof Rejection)) {
      throw new Rejection(400, `request body is not valid JSON: ${error.message}`);
    }
    throw error;
  });
