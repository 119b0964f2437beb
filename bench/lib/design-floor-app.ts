import { Hono } from "hono";
import { ENDPOINT_KEYS, ENDPOINTS } from "../../src/endpoints";
import { answerErrors, type ListenerEnv } from "../../src/http/rejection";
import { reviewValidation } from "../../src/http/review-chain";
import { createLogger } from "../../src/observability/logger";

const LIMITS = { maxRequestBytes: 5 * 1024 * 1024, bodyReadTimeoutMs: 2000 };

/**
 * The design floor's app: every review route runs exactly the middleware of
 * the product's review routes (reviewValidation of
 * src/http/review-chain.ts), then answers a fixed allow (uid echoed).
 */
export function designFloorApp(): Hono<ListenerEnv> {
  const app = new Hono<ListenerEnv>();
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
