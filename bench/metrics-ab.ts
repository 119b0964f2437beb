/**
 * The in-process A/B behind the admission metrics' cells
 * (src/observability/cells.ts). Three apps answer common-case reviews through
 * `app.fetch` in one process, in alternating rounds:
 *
 * - **cells**: the admission app as shipped (its measures bound to the cells);
 * - **prom-client**: the same app, composed from the same pieces, with its metrics counted through
 *   prom-client directly, on a registry of its own: `Counter.inc`,
 *   `Gauge.inc`/`dec` and `Histogram.observe` on children made once with
 *   `labels()`;
 * - **design floor**: the review routes' middleware and a fixed allow
 *   (bench/lib/design-floor-app.ts).
 *
 * CPU per review is compared in pairs of adjacent rounds, so drift on the
 * machine cancels out; the medians are printed as a markdown table.
 *
 *   node_modules/.bin/bun bench/metrics-ab.ts [rounds, 100]
 */

import { Hono } from "hono";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { ENDPOINT_KEYS, ENDPOINTS, endpointAt } from "../src/endpoints/index";
import { DENY_EVERYWHERE } from "../src/endpoints/enforcement";
import { admissionMeasures } from "../src/http/review-metrics";
import { mountReviewRoutes } from "../src/http/review-chain";
import { measureRequests, type RequestMeasures, warnOnRejection } from "../src/http/observe";
import {
  answerErrors,
  type RejectionEnv,
  refuseOtherMethods,
  refuseUnknownPath,
} from "../src/http/rejection";
import { createLogger } from "../src/observability/logger";
import { childrenOf, LATENCY_BUCKETS } from "../src/observability/metrics";
import { buildHandlers } from "../src/endpoints/handlers";
import { REFUSAL_REMEDIES } from "../src/endpoints/remedies";
import { mountProbes } from "../src/server/probes";
import { FakeKube } from "../test/support/fake-kube";
import { designFloorApp } from "./lib/design-floor-app";
import { type App, alternatingRounds, pairedRatio } from "./lib/in-process-ab";
import { median } from "./lib/statistics";

const REVIEWS_PER_ROUND = 1500;

/** The admission app's metrics through prom-client directly, as before the cells. */
function promClientMetrics() {
  const registry = new Registry();
  const responses = new Counter({
    name: "responses_total",
    help: "h",
    labelNames: ["path", "code"] as const,
    registers: [registry],
  });
  const inFlight = new Gauge({ name: "in_flight", help: "h", registers: [registry] });
  const decisions = new Counter({
    name: "decisions_total",
    help: "h",
    labelNames: ["handler", "result", "reason"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "duration_seconds",
    help: "h",
    labelNames: ["handler"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const responsesOf = childrenOf((path: string, status: number) =>
    responses.labels(path, String(status)),
  );
  const durations = new Map<string, Histogram.Internal<"handler">>(
    ENDPOINT_KEYS.map((key) => [ENDPOINTS[key].path, duration.labels(ENDPOINTS[key].label)]),
  );
  const decisionsOf = new Map<string, (result: string, reason: string) => { inc(): void }>(
    ENDPOINT_KEYS.map((key) => [
      ENDPOINTS[key].path,
      childrenOf((result: string, reason: string) =>
        decisions.labels(ENDPOINTS[key].label, result, reason),
      ),
    ]),
  );
  const measures: RequestMeasures = {
    inFlight,
    countResponse: (path, status) =>
      responsesOf(endpointAt(path) === undefined ? "other" : path, status).inc(),
    reviewDuration: (path) => durations.get(path),
    countDecision: (path, { result, reason }) => decisionsOf.get(path)?.(result, reason).inc(),
  };
  return measures;
}

/** The admission app as createAdmissionApp composes it, with `measures` for its metrics. */
function admissionApp(measures: RequestMeasures): App {
  const log = createLogger("info");
  const app = new Hono<RejectionEnv>();
  app.onError(answerErrors(log));
  app.notFound(refuseUnknownPath);
  app.use(measureRequests(measures, warnOnRejection(log)));
  app.use(refuseOtherMethods(app));
  mountReviewRoutes(
    app,
    buildHandlers({
      podCreators: new Map(),
      runtimeIdentities: { usernames: new Set(), boundNodes: false },
      kube: new FakeKube(),
    }),
    log,
    {
      maxRequestBytes: 5 * 1024 * 1024,
      bodyReadTimeoutMs: 2000,
      enforcement: DENY_EVERYWHERE,
      remedies: REFUSAL_REMEDIES,
    },
  );
  mountProbes(app, { ready: true });
  return app;
}

const variants = {
  cells: admissionApp(admissionMeasures()),
  "prom-client": admissionApp(promClientMetrics()),
  "design floor": designFloorApp(),
} satisfies Record<string, App>;
type Variant = keyof typeof variants;
const names = Object.keys(variants) as Variant[];

const rounds = Number(process.argv[2] ?? 100);
const cpu = await alternatingRounds(variants, {
  scenario: "pod-common",
  rounds,
  reviews: REVIEWS_PER_ROUND,
});
const ratio = (a: Variant, b: Variant) => pairedRatio(cpu[a], cpu[b]);

console.log(
  `${rounds} rounds of ${REVIEWS_PER_ROUND} common-case reviews per variant, alternating\n`,
);
console.log("| variant | CPU per review (median) | ÷ design floor's (median of pairs) |");
console.log("|---|---:|---:|");
for (const name of names) {
  console.log(
    `| ${name} | ${median(cpu[name]).toFixed(1)} µs | ${ratio(name, "design floor").toFixed(3)}× |`,
  );
}
const saved = 1 - ratio("cells", "prom-client");
console.log(
  `\ncells ÷ prom-client (median of pairs): ${ratio("cells", "prom-client").toFixed(3)}×, ` +
    `so the cells save ${(saved * 100).toFixed(1)} % of the CPU per review`,
);
