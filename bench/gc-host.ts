/**
 * The GC probe of the fixed-rate phase: serves either cocoon-webhook's
 * admission app (the same admissionApp the binary runs, with the pod
 * gate's rule) or the floor's handler on Bun.serve over TLS, and watches
 * the JavaScript heap while bench/run.ts drives it at a fixed rate. The
 * compiled binary has no hook for this, hence a host process of its own.
 *
 * Reported on SIGTERM, as one JSON line on stdout: the event loop's worst
 * lateness (a 2 ms timer: how long the process was unable to run
 * JavaScript, garbage collection included), heap size and object count
 * before and after, and how long a full and an eden collection of the heap
 * as it stands take (what a stop-the-world pause of each kind costs now).
 *
 *   bun bench/gc-host.ts cocoon|floor   with TLS_CERT, TLS_KEY, LISTEN_PORT
 */

import { heapStats } from "bun:jsc";
import { readFileSync } from "node:fs";
import { bindDecisions } from "../src/endpoints";
import { DENY_EVERYWHERE } from "../src/endpoints/enforcement";
import { admissionApp } from "../src/http/review-chain";
import { createLogger } from "../src/observability/logger";
import { FakeKube } from "../test/support/fake-kube";
import { GC_RESULT_MARKER } from "./lib/fixed-rate";

const TICK_MS = 2;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`gc-host: ${name} is not set`);
  return value;
}

async function floorAnswer(request: Request): Promise<Response> {
  const review = JSON.parse(await request.text()) as { request?: { uid?: unknown } };
  const uid = typeof review.request?.uid === "string" ? review.request.uid : "";
  return Response.json({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: { uid, allowed: true },
  });
}

function cocoonApp(): (request: Request) => Response | Promise<Response> {
  const app = admissionApp(
    bindDecisions({
      podCreators: new Map(),
      runtimeIdentities: { usernames: new Set(), boundNodes: false },
      kube: new FakeKube(),
    }),
    { ready: true },
    createLogger("info"),
    {
      maxRequestBytes: 3 * 1024 * 1024,
      bodyReadTimeoutMs: 2000,
      enforcement: DENY_EVERYWHERE,
    },
  );
  return (request) => app.fetch(request);
}

const which = process.argv[2];
if (which !== "cocoon" && which !== "floor") throw new Error("gc-host: cocoon or floor");
const answer = which === "cocoon" ? cocoonApp() : floorAnswer;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(required("LISTEN_PORT")),
  idleTimeout: 120,
  tls: {
    cert: readFileSync(required("TLS_CERT"), "utf8"),
    key: readFileSync(required("TLS_KEY"), "utf8"),
  },
  fetch: answer,
});

const heapBefore = heapStats();
let worstLatenessMs = 0;
let latenessOver1Ms = 0;
let ticks = 0;
let expected = performance.now() + TICK_MS;
const ticker = setInterval(() => {
  const now = performance.now();
  const late = now - expected;
  if (late > worstLatenessMs) worstLatenessMs = late;
  if (late > 1) latenessOver1Ms++;
  ticks++;
  expected = now + TICK_MS;
}, TICK_MS);

function timed(collect: () => void): number {
  const began = performance.now();
  collect();
  return performance.now() - began;
}

process.on("SIGTERM", () => {
  clearInterval(ticker);
  const heapAfter = heapStats();
  const edenMs = timed(() => Bun.gc(false));
  const fullMs = timed(() => Bun.gc(true));
  const result = {
    server: which,
    ticks,
    worstLatenessMs,
    ticksLateOver1Ms: latenessOver1Ms,
    heapSizeBeforeBytes: heapBefore.heapSize,
    heapSizeAfterBytes: heapAfter.heapSize,
    objectCountAfter: heapAfter.objectCount,
    edenCollectionMs: edenMs,
    fullCollectionMs: fullMs,
    heapSizeAfterFullBytes: heapStats().heapSize,
  };
  process.stdout.write(`${GC_RESULT_MARKER}${JSON.stringify(result)}\n`);
  void server.stop(true).then(() => process.exit(0));
});
