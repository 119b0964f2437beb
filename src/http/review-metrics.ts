import { ENDPOINT_KEYS, ENDPOINTS, endpointAt, resultReasons } from "../endpoints";
import type { CountCell, Observer } from "../observability/cells";
import {
  admissionDecisions,
  admissionDuration,
  childrenOf,
  httpResponses,
  requestsInFlight,
} from "../observability/metrics";
import type { RequestMeasures } from "./observe";
import { REJECTION_STATUSES } from "./rejection";

/**
 * Every metric the admission listener keeps per request, bound once to its
 * cells (observability/cells.ts): in flight; responses by path label and
 * status; for an answered review its duration and its decision by result and
 * reason, in the endpoint's `handler` label. Every (result, reason) the
 * table lists for an endpoint has its cell from the start, so each series
 * exists, and `increase()` sees its first decision, from the first scrape;
 * so does every path label's response series for each status a Rejection
 * answers with (the rejecting-requests alert reads them).
 * The admission app hands these to its one observing middleware
 * (`measureRequests`, http/observe.ts).
 */
export function admissionMeasures(): RequestMeasures {
  const responsesOf = childrenOf((label: string, status: number) =>
    httpResponses.cell({ path: label, code: String(status) }),
  );
  const durations = new Map<string, Observer>();
  const decisions = new Map<string, (result: string, reason: string) => CountCell>();
  for (const endpoint of ENDPOINT_KEYS) {
    const { path, label } = ENDPOINTS[endpoint];
    durations.set(path, admissionDuration.series({ handler: label }));
    const cellOf = childrenOf((result: string, reason: string) =>
      admissionDecisions.cell({ handler: label, result, reason }),
    );
    for (const { result, reason } of resultReasons(endpoint)) cellOf(result, reason);
    decisions.set(path, cellOf);
  }
  for (const label of [...ENDPOINT_KEYS.map((endpoint) => ENDPOINTS[endpoint].path), OTHER_PATH])
    for (const status of REJECTION_STATUSES) responsesOf(label, status);
  return {
    inFlight: {
      inc: () => requestsInFlight.count++,
      dec: () => requestsInFlight.count--,
    },
    countResponse: (path, status) => responsesOf(pathLabel(path), status).count++,
    reviewDuration: (path) => durations.get(path),
    countDecision: (path, { result, reason }) => {
      const cellOf = decisions.get(path);
      if (cellOf) cellOf(result, reason).count++;
    },
  };
}

const OTHER_PATH = "other";

/** The `path` label: one of the endpoints' paths, or `other`, so a scanner cannot grow the label set. */
function pathLabel(path: string): string {
  return endpointAt(path) === undefined ? OTHER_PATH : path;
}
