/**
 * The in-process A/B behind the handlers' signature (docs/performance.md):
 * the admission app as shipped, whose handlers answer a verdict without a
 * promise when they need no apiserver call, against the same app whose
 * handlers are all `async` (each verdict through a promise), on common-case
 * pod reviews, in alternating rounds.
 *
 *   node_modules/.bin/bun bench/handler-signature-ab.ts [rounds, 60]
 */
import { DENY_EVERYWHERE } from "../src/admission/enforcement";
import type { Handlers } from "../src/admission/verdict";
import { createLogger } from "../src/observability/logger";
import { buildHandlers } from "../src/policies";
import { createAdmissionApp } from "../src/server/apps";
import { FakeKube } from "../test/support/fake-kube";
import { alternatingRounds, pairedRatio } from "./lib/in-process-ab";
import { median } from "./lib/statistics";

const REVIEWS_PER_ROUND = 1500;

function app(handlers: Handlers) {
  return createAdmissionApp(handlers, { ready: true }, createLogger("info"), {
    maxRequestBytes: 5 * 1024 * 1024,
    bodyReadTimeoutMs: 2000,
    enforcement: DENY_EVERYWHERE,
  });
}

const shipped = buildHandlers({ podCreators: new Map(), kube: new FakeKube() });
const allAsync = Object.fromEntries(
  Object.entries(shipped).map(([endpoint, handler]) => [
    endpoint,
    async (request: Parameters<typeof handler>[0]) => handler(request),
  ]),
) as unknown as Handlers;

const rounds = Number(process.argv[2] ?? 60);
for (const scenario of ["pod-common", "pod-1mb"]) {
  const reviews = scenario === "pod-common" ? REVIEWS_PER_ROUND : 20;
  const cpu = await alternatingRounds(
    { "sync when it can": app(shipped), "async always": app(allAsync) },
    { scenario, rounds, reviews },
  );
  console.log(`\n${scenario}: ${rounds} rounds of ${reviews} reviews per variant, alternating\n`);
  console.log("| handlers | CPU per review (median) |");
  console.log("|---|---:|");
  for (const [name, values] of Object.entries(cpu)) {
    console.log(`| ${name} | ${median(values).toFixed(1)} µs |`);
  }
  const ratio = pairedRatio(cpu["async always"], cpu["sync when it can"]);
  console.log(`\nasync always ÷ sync when it can (median of pairs): ${ratio.toFixed(3)}×`);
}
