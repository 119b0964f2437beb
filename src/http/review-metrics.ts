import { ENDPOINT_KEYS, ENDPOINTS, endpointAt, resultReasons } from "../endpoints";
import {
  admissionDecisions,
  admissionDuration,
  httpResponses,
  requestsInFlight,
} from "../observability/metrics";
import type { RequestMeasures } from "./observe";
import { REJECTION_STATUSES } from "./rejection";

/**
 * Every metric the admission listener keeps per request, as prom-client
 * children bound once: in flight; responses by path label and status; for an
 * answered review its duration and its decision by result and reason, in the
 * endpoint's `handler` label. Every (result, reason) the table lists for an
 * endpoint, every path label's response for each status a Rejection answers
 * with, and every endpoint's duration exist at 0 from the start: `increase()`
 * ignores a series' first sample, so a series born at 1 would hide its first
 * count from the alerts. The admission app hands these to its one observing
 * middleware (`measureRequests`, http/observe.ts).
 */
export function admissionMeasures(): RequestMeasures {
  const responsesOf = childrenOf((label: string, status: number) =>
    startedAtZero(httpResponses.labels({ path: label, code: String(status) })),
  );
  const durations = new Map<string, { observe(seconds: number): void }>();
  const decisions = new Map<string, (result: string, reason: string) => { inc(): void }>();
  for (const endpoint of ENDPOINT_KEYS) {
    const { path, label } = ENDPOINTS[endpoint];
    durations.set(path, admissionDuration.labels({ handler: label }));
    const decisionOf = childrenOf((result: string, reason: string) =>
      startedAtZero(admissionDecisions.labels({ handler: label, result, reason })),
    );
    for (const { result, reason } of resultReasons(endpoint)) decisionOf(result, reason);
    decisions.set(path, decisionOf);
  }
  for (const label of [...ENDPOINT_KEYS.map((endpoint) => ENDPOINTS[endpoint].path), OTHER_PATH])
    for (const status of REJECTION_STATUSES) responsesOf(label, status);
  return {
    inFlight: requestsInFlight,
    countResponse: (path, status) => responsesOf(pathLabel(path), status).inc(),
    reviewDuration: (path) => durations.get(path),
    countDecision: (path, { result, reason }) => decisions.get(path)?.(result, reason).inc(),
  };
}

// Once per process: zero() empties a series that already has observations.
for (const endpoint of ENDPOINT_KEYS)
  admissionDuration.zero({ handler: ENDPOINTS[endpoint].label });

const OTHER_PATH = "other";

/** The `path` label: one of the endpoints' paths, or `other`, so a scanner cannot grow the label set. */
function pathLabel(path: string): string {
  return endpointAt(path) === undefined ? OTHER_PATH : path;
}

/** A counter's child whose series is exported at 0 before its first count. */
function startedAtZero<Child extends { inc(value?: number): void }>(child: Child): Child {
  child.inc(0);
  return child;
}

/** `child(a, b)` made once per pair of label values and kept: the request path finds it by two map lookups. */
function childrenOf<A, B, Child>(child: (a: A, b: B) => Child): (a: A, b: B) => Child {
  const rows = new Map<A, Map<B, Child>>();
  return (a, b) => {
    let row = rows.get(a);
    if (!row) {
      row = new Map();
      rows.set(a, row);
    }
    let found = row.get(b);
    if (found === undefined) {
      found = child(a, b);
      row.set(b, found);
    }
    return found;
  };
}
