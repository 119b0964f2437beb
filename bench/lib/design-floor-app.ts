import { Hono } from "hono";
import { ENDPOINT_KEYS, ENDPOINTS } from "../../src/endpoints/index";
import { reviewValidation } from "../../src/http/review-chain";
import { answerErrors, type RejectionEnv } from "../../src/http/rejection";
import { createLogger } from "../../src/observability/logger";

const LIMITS = { maxRequestBytes: 5 * 1024 * 1024, bodyReadTimeoutMs: 2000 };

/**
 * The design floor's app: every review route runs exactly the middleware of
 * the product's review routes (reviewValidation of
 * src/http/review-chain.ts), then answers a fixed allow (uid echoed).
 */
export function designFloorApp(): Hono<RejectionEnv> {
  const app = new Hono<RejectionEnv>();
  app.onError(answerErrors(createLogger("error")));
  for (const endpoint of ENDPOINT_KEYS) {
    app.post(ENDPOINTS[endpoint].path, ...reviewValidation(LIMITS), (c) => {
      const { apiVersion, request } = c.req.valid("json");
      return Response.json({
        apiVersion,
        kind: "AdmissionReview",
        response: { uid: request.uid, allowed: true },
      });
    });
  }
  return app;
}
