import { Hono } from "hono";
import { mountProbes, type Readiness } from "../http/probes";
import {
  answerErrors,
  type ListenerEnv,
  refuseOtherMethods,
  refuseUnknownPath,
} from "../http/rejection";
import type { Logger } from "../observability/logger";
import { cachedExposition, exposition, registry } from "../observability/metrics";

export function createOpsApp(
  readiness: Readiness,
  log: Logger,
  metricsRenderIntervalMs: number,
): Hono<ListenerEnv> {
  const app = new Hono<ListenerEnv>();
  app.onError(answerErrors(log));
  app.notFound(refuseUnknownPath);
  app.use(refuseOtherMethods(app));
  const scrape = cachedExposition(exposition, metricsRenderIntervalMs);
  app.get("/metrics", async (c) =>
    c.body(await scrape(), 200, { "Content-Type": registry.contentType }),
  );
  mountProbes(app, readiness);
  return app;
}
