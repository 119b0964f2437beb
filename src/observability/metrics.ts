import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** One registry for the whole process, exposed on the ops listener's /metrics. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** Sub-millisecond resolution at the bottom, the apiserver's 5 s webhook timeout at the top. */
const LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

export const admissionTotal = new Counter({
  name: "cocoon_webhook_admission_total",
  help: "Admission requests decided, by handler, result (allow, deny, error, skipped) and reason.",
  labelNames: ["handler", "result", "reason"] as const,
  registers: [registry],
});

export const admissionDuration = new Histogram({
  name: "cocoon_webhook_admission_duration_seconds",
  help: "Time from reading an AdmissionReview to encoding its response, by handler.",
  labelNames: ["handler"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

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
