import { zValidator } from "@hono/zod-validator";
import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { cutShort } from "../bounded-text";
import { Rejection } from "./rejection";
import { admissionReviewSchema } from "../contract/admission-request";

/*
 * The middleware between an admission route and its handler besides the
 * body's reading (request-body.ts): the Content-Type (415) and the
 * AdmissionReview envelope (400). Each refusal is a Rejection, answered and
 * counted by the app's one error path.
 */

/** `application/json`, optionally with parameters such as `charset=utf-8`. */
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

export const requireJson: MiddlewareHandler = async (c, next) => {
  const contentType = c.req.raw.headers.get("content-type") ?? "";
  if (!JSON_MEDIA_TYPE.test(contentType)) {
    throw new Rejection(
      415,
      `Content-Type must be application/json, got "${cutShort(contentType)}"`,
    );
  }
  await next();
};

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
