import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { admit } from "../admission/admit";
import { ADMISSION_ROUTES } from "../admission/routes";
import type { HandlerName, Rule } from "../admission/rule";
import { jsonError, methodNotAllowed, notFound } from "../http-errors";
import type { Logger } from "../observability/logger";
import { registry } from "../observability/metrics";
import { mountProbes, type Readiness } from "./probes";

function withErrorHandling(app: Hono, log: Logger): Hono {
  app.notFound(notFound);
  app.onError((error, c) => {
    // The JSON validator raises HTTPException(400) for a body that is not JSON.
    if (error instanceof HTTPException && error.status === 400) {
      return jsonError(c, 400, `request body is not valid JSON: ${error.message}`);
    }
    log.error({ err: error, path: c.req.path }, "unhandled error");
    return jsonError(c, 500, "internal error");
  });
  return app;
}

/** The HTTPS admission app: the four review routes plus probes. */
export function createAdmissionApp(
  rules: Readonly<Record<HandlerName, Rule>>,
  readiness: Readiness,
  log: Logger,
): Hono {
  const app = withErrorHandling(new Hono(), log);
  for (const [path, handler] of Object.entries(ADMISSION_ROUTES)) {
    app.post(path, ...admit(handler, rules[handler], log));
    app.all(path, (c) => methodNotAllowed(c, ["POST"]));
  }
  mountProbes(app, readiness);
  return app;
}

/** The plain-HTTP ops app: Prometheus metrics plus probes. */
export function createOpsApp(readiness: Readiness, log: Logger): Hono {
  const app = withErrorHandling(new Hono(), log);
  app.get("/metrics", async (c) =>
    c.body(await registry.metrics(), 200, { "Content-Type": registry.contentType }),
  );
  app.all("/metrics", (c) => methodNotAllowed(c, ["GET"]));
  mountProbes(app, readiness);
  return app;
}
