import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry, register } from "prom-client";
import { type Clock, systemClock } from "../clock";
import { VERSION_INFO } from "../version";
import { BucketHistogram, TalliedCounter, type Tally, talliedGauge } from "./tallied-metrics";

/** prom-client's global registry, where every metric below registers itself; the ops listener's /metrics. */
export const registry = register;

/** prom-client's default series that read true under Bun; docs/metrics.md says why the others read wrong. */
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

const runtimeDefaults = new Registry();
collectDefaultMetrics({ register: runtimeDefaults });
for (const name of RUNTIME_SERIES) {
  const metric = runtimeDefaults.getSingleMetric(name);
  if (metric) registry.registerMetric(metric);
}

const buildInfo = new Gauge({
  name: "cocoon_webhook_build_info",
  help: "Always 1; the version and git revision of the running binary as labels.",
  labelNames: ["version", "revision"] as const,
});
buildInfo.labels(VERSION_INFO.version, VERSION_INFO.revision).set(1);

// The series every review touches are tallied (tallied-metrics.ts); the rest are prom-client's own.

export const httpResponses = new TalliedCounter({
  name: "cocoon_webhook_http_responses_total",
  help: "Responses of the admission listener, by path (one of the review routes, or other) and HTTP status code.",
  labelNames: ["path", "code"] as const,
});

/** The admission listener's requests in flight: the request path adds and subtracts. */
export const requestsInFlight: Tally = { count: 0 };

talliedGauge(
  {
    name: "cocoon_webhook_http_requests_in_flight",
    help: "Requests the admission listener is working on right now.",
  },
  requestsInFlight,
);

/** Sub-millisecond resolution at the bottom, the apiserver's 5 s webhook timeout at the top. */
const LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

export const admissionDecisions = new TalliedCounter({
  name: "cocoon_webhook_admission_total",
  help: "Admission requests decided, by handler, result (allow, skipped, deny, error, or warn: allowed in warn mode, with the reason it would have been refused for) and reason.",
  labelNames: ["handler", "result", "reason"] as const,
});

/** Outside the registry: `exposition()` appends it to the registry's text. */
export const admissionDuration = new BucketHistogram(
  "cocoon_webhook_admission_duration_seconds",
  "Time from reading an AdmissionReview to encoding its response, by handler.",
  ["handler"] as const,
  LATENCY_BUCKETS,
);

/** The metrics text of the process: the registry's families, then the admission duration histogram. */
export async function exposition(): Promise<string> {
  return `${await registry.metrics()}\n${admissionDuration.exposition()}`;
}

export const apiserverRequestsTotal = new Counter({
  name: "cocoon_webhook_apiserver_requests_total",
  help: "Calls to the Kubernetes apiserver, by verb, resource and outcome (success, not_found, error, timeout).",
  labelNames: ["verb", "resource", "outcome"] as const,
});

export const apiserverRequestDuration = new Histogram({
  name: "cocoon_webhook_apiserver_request_duration_seconds",
  help: "Duration of calls to the Kubernetes apiserver, by verb and resource.",
  labelNames: ["verb", "resource"] as const,
  buckets: LATENCY_BUCKETS,
});

export const tlsCertificateExpiry = new Gauge({
  name: "cocoon_webhook_tls_certificate_expiry_timestamp_seconds",
  help: "Unix time (seconds) of the serving certificate's notAfter.",
});

export const TLS_RELOAD_RESULTS = ["success", "failure"] as const;

export const tlsReloadsTotal = new Counter({
  name: "cocoon_webhook_tls_reloads_total",
  help: "Serving certificate reloads after a change on disk, by result (success, failure).",
  labelNames: ["result"] as const,
});
// Both series exist at 0 from the start: `increase()` ignores a series' first sample, so a
// failure counter born at 1 would never move the reload alert.
for (const result of TLS_RELOAD_RESULTS) tlsReloadsTotal.inc({ result }, 0);

/**
 * The exposition text, rendered at most once per `intervalMs` however many
 * scrapers ask: concurrent scrapes share one render in flight, later ones
 * within the interval get the cached text.
 */
export function cachedExposition(
  render: () => Promise<string>,
  intervalMs: number,
  clock: Pick<Clock, "now"> = systemClock,
) {
  let rendered: { at: number; text: Promise<string> } | undefined;
  return (): Promise<string> => {
    const now = clock.now();
    if (rendered && now - rendered.at < intervalMs) return rendered.text;
    const text = render();
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
});

export const tlsRotationSteeringFallbacksTotal = new Counter({
  name: "cocoon_webhook_tls_rotation_steering_fallbacks_total",
  help: "Times listener steering could not be used, by reason (unsupported, socket_not_found, refused, disabled).",
  labelNames: ["reason"] as const,
});

export const warnMode = new Gauge({
  name: "cocoon_webhook_warn_mode",
  help: "1 for an endpoint in warn mode (ENFORCEMENT: it allows what it would refuse, with warnings), 0 for one that denies, by handler.",
  labelNames: ["handler"] as const,
});

export const apiserverFileReloadFailuresTotal = new Counter({
  name: "cocoon_webhook_apiserver_file_reload_failures_total",
  help: "Changes to a file of the apiserver client that could not be used (unreadable, or a CA that is empty or not PEM certificates), by file (cluster_ca, client_certificate, client_key, bearer_token); the last good content stays in use.",
  labelNames: ["file"] as const,
});
