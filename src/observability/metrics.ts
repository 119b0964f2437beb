import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { type EndpointLabel, resultReasons, type VerdictResult } from "../admission/endpoints";
import { VERSION_INFO } from "../version";
import type { CountCell } from "./deferred";
import { cellTree, DeferredCounts, DeferredHistogram } from "./deferred";

/** One registry for the whole process, exposed on the ops listener's /metrics. */
export const registry = new Registry();

/**
 * prom-client's default series that read true under Bun (checked against
 * /proc/self/stat, /proc/self/status, /proc/self/limits and /proc/self/fd).
 * Left out: nodejs_version_info (Bun reports the Node.js version it mimics,
 * not itself), process_heap_bytes (reads gigabytes of reserved address
 * space), the event-loop lag gauges (never sampled: min 9.2e9 s, mean NaN),
 * active handles/requests/resources (always 0), per-space heap sizes (mostly
 * 0, and the slowest collector) and GC durations (never observed).
 */
export const RUNTIME_SERIES = [
  "process_cpu_user_seconds_total",
  "process_cpu_system_seconds_total",
  "process_cpu_seconds_total",
  "process_start_time_seconds",
  "process_resident_memory_bytes",
  "process_virtual_memory_bytes",
  "process_open_fds",
  "process_max_fds",
  "nodejs_heap_size_total_bytes",
  "nodejs_heap_size_used_bytes",
  "nodejs_external_memory_bytes",
] as const;

function registerRuntimeSeries(target: Registry): void {
  const defaults = new Registry();
  collectDefaultMetrics({ register: defaults });
  for (const name of RUNTIME_SERIES) {
    const metric = defaults.getSingleMetric(name);
    if (metric) target.registerMetric(metric);
  }
}
registerRuntimeSeries(registry);

export const buildInfo = new Gauge({
  name: "cocoon_webhook_build_info",
  help: "Always 1; the version and git revision of the running binary as labels.",
  labelNames: ["version", "revision"] as const,
  registers: [registry],
});
buildInfo.labels(VERSION_INFO.version, VERSION_INFO.revision).set(1);

const httpResponseCounts = new DeferredCounts();

export const httpResponsesTotal = new Counter({
  name: "cocoon_webhook_http_responses_total",
  help: "Responses of the admission listener, by path (the four review routes, or other) and HTTP status code.",
  labelNames: ["path", "code"] as const,
  registers: [registry],
  collect() {
    httpResponseCounts.flush();
  },
});

/** The cell counting responses on `path` (already reduced to a label value) with `status`. */
export const httpResponseCell = cellTree<string, number>(httpResponseCounts, (path, status, by) =>
  httpResponsesTotal.labels(path, String(status)).inc(by),
);

/** Requests the admission listener is working on; read into the gauge when it is collected. */
export const requestsInFlight = { count: 0 };

// Registered for its side effect: the gauge reads requestsInFlight when scraped.
new Gauge({
  name: "cocoon_webhook_http_requests_in_flight",
  help: "Requests the admission listener is working on right now.",
  registers: [registry],
  collect() {
    this.set(requestsInFlight.count);
  },
});

/** Sub-millisecond resolution at the bottom, the apiserver's 5 s webhook timeout at the top. */
const LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

const admissionCounts = new DeferredCounts();

export const admissionTotal = new Counter({
  name: "cocoon_webhook_admission_total",
  help: "Admission requests decided, by handler, result (allow, deny, error, skipped) and reason.",
  labelNames: ["handler", "result", "reason"] as const,
  registers: [registry],
  collect() {
    admissionCounts.flush();
  },
});

/**
 * The cell counting `endpoint`'s decisions, by result and reason. Every
 * (result, reason) the endpoint table lists for it starts at 0, so each
 * series exists, and `increase()` sees its first decision, from the start.
 */
export function admissionCells(
  endpoint: EndpointLabel,
): (result: VerdictResult, reason: string) => CountCell {
  const cells = cellTree<string, string>(admissionCounts, (result, reason, by) =>
    admissionTotal.labels(endpoint, result, reason).inc(by),
  );
  for (const { result, reason } of resultReasons(endpoint)) {
    admissionTotal.labels(endpoint, result, reason).inc(0);
    cells(result, reason);
  }
  return cells;
}

export const admissionDuration = new DeferredHistogram<EndpointLabel>(
  "cocoon_webhook_admission_duration_seconds",
  "Time from reading an AdmissionReview to encoding its response, by handler.",
  "handler",
  LATENCY_BUCKETS,
  [registry],
);

export const apiserverRequestsTotal = new Counter({
  name: "cocoon_webhook_apiserver_requests_total",
  help: "Calls to the Kubernetes apiserver, by verb, resource and outcome (success, not_found, error, timeout).",
  labelNames: ["verb", "resource", "outcome"] as const,
  registers: [registry],
});

export const apiserverRequestDuration = new Histogram({
  name: "cocoon_webhook_apiserver_request_duration_seconds",
  help: "Duration of calls to the Kubernetes apiserver, by verb and resource.",
  labelNames: ["verb", "resource"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const tlsCertificateExpiry = new Gauge({
  name: "cocoon_webhook_tls_certificate_expiry_timestamp_seconds",
  help: "Unix time (seconds) of the serving certificate's notAfter.",
  registers: [registry],
});

export const tlsReloadsTotal = new Counter({
  name: "cocoon_webhook_tls_reloads_total",
  help: "Serving certificate reloads after a change on disk, by result (success, failure).",
  labelNames: ["result"] as const,
  registers: [registry],
});

/**
 * The exposition text, rendered at most once per `intervalMs` however many
 * scrapers ask: concurrent scrapes share one render in flight, later ones
 * within the interval get the cached text.
 */
export function cachedExposition(source: Registry, intervalMs: number) {
  let rendered: { at: number; text: Promise<string> } | undefined;
  return (): Promise<string> => {
    const now = performance.now();
    if (rendered && now - rendered.at < intervalMs) return rendered.text;
    const text = source.metrics();
    rendered = { at: now, text };
    text.catch(() => {
      if (rendered?.text === text) rendered = undefined;
    });
    return text;
  };
}

export const tlsRotationSteering = new Gauge({
  name: "cocoon_webhook_tls_rotation_steering",
  help: "1 while new connections are steered to the newest listener on a certificate rotation, 0 after falling back to closing the retired listener after a short window.",
  registers: [registry],
});

export const tlsRotationSteeringFallbacksTotal = new Counter({
  name: "cocoon_webhook_tls_rotation_steering_fallbacks_total",
  help: "Times listener steering could not be used, by reason (unsupported, socket_not_found, refused, disabled).",
  labelNames: ["reason"] as const,
  registers: [registry],
});

export const apiserverFileReloadFailuresTotal = new Counter({
  name: "cocoon_webhook_apiserver_file_reload_failures_total",
  help: "Changes to a file of the apiserver client that could not be used (unreadable, or a CA that is empty or not PEM certificates), by file (cluster_ca, client_certificate, client_key, bearer_token); the last good content stays in use.",
  labelNames: ["file"] as const,
  registers: [registry],
});
