/**
 * The design floor: the least a webhook built the way this one is can do per
 * request — a Hono app on Bun.serve whose routes run exactly the middleware
 * the product's review routes run (body limit, Content-Type, the envelope
 * through @hono/zod-validator: reviewValidation in
 * src/admission/review-route.ts) and then answer a fixed allow (uid echoed).
 * No observing middleware, no handler, no metrics, no logs: what the product
 * costs above this is what it adds on top of the framework.
 *
 * Run by bench/run.ts as its own process: `bun bench/design-floor.ts`, with
 * TLS_CERT, TLS_KEY and LISTEN_PORT in the environment.
 */
import { readFileSync } from "node:fs";
import { Hono } from "hono";
import { ENDPOINTS, HANDLER_LABELS } from "../src/admission/endpoints";
import { reviewValidation } from "../src/admission/review-route";
import { answerErrors } from "../src/http/rejection";
import { createLogger } from "../src/observability/logger";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`design floor: ${name} is not set`);
  return value;
}

const MAX_REQUEST_BYTES = 7 * 1024 * 1024;

const app = new Hono();
app.onError(answerErrors(createLogger("error")));
for (const endpoint of HANDLER_LABELS) {
  app.post(ENDPOINTS[endpoint].path, ...reviewValidation(MAX_REQUEST_BYTES), (c) => {
    const { apiVersion, request } = c.req.valid("json");
    return Response.json({
      apiVersion,
      kind: "AdmissionReview",
      response: { uid: request.uid, allowed: true },
    });
  });
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(required("LISTEN_PORT")),
  idleTimeout: 120,
  maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  tls: {
    cert: readFileSync(required("TLS_CERT"), "utf8"),
    key: readFileSync(required("TLS_KEY"), "utf8"),
  },
  fetch: (request) => app.fetch(request),
});

process.on("SIGTERM", () => {
  void server.stop(true).then(() => process.exit(0));
});
