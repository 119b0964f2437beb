import type { Context, MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/bun";
import { ENDPOINT_KEYS, ENDPOINTS, resultReasons } from "../endpoints";
import type { Logger } from "../observability/logger";
import {
  admissionDecisions,
  admissionDuration,
  httpResponses,
  requestsInFlight,
} from "../observability/metrics";
import { createRejectionLog } from "../observability/rejection-log";
import type { Observer, Tally } from "../observability/tallied-metrics";
import { type CountedDecision, type ListenerEnv, REJECTION_STATUSES } from "./rejection";

// Registered with `app.use` ahead of the routes: Hono runs the error path, the 404 and the 405
// before it resumes, so every answer is seen, 4xx included.

/** What `measureRequests` records, bound to the metrics by the app that uses it. */
export interface RequestMeasures {
  readonly inFlight: { inc(): void; dec(): void };
  countResponse(path: string, status: number): void;
  /** The duration histogram of the reviews served at `path`; undefined for any other path. */
  reviewDuration(path: string): { observe(seconds: number): void } | undefined;
  countDecision(path: string, decision: CountedDecision): void;
}

/** In flight, response by path and status, the review's decision and duration, the warn line of a 4xx. */
export function measureRequests(
  measures: RequestMeasures,
  warn: (c: Context<ListenerEnv>) => void = () => {},
): MiddlewareHandler<ListenerEnv> {
  return async (c, next) => {
    const receivedAt = performance.now();
    measures.inFlight.inc();
    try {
      await next();
    } finally {
      measures.inFlight.dec();
    }
    const { path } = c.req;
    const { status } = c.res;
    measures.countResponse(path, status);
    if (status >= 400 && status < 500) warn(c);
    const decision = c.get("reviewDecision");
    if (decision !== undefined) measures.countDecision(path, decision);
    if (status === 200)
      measures.reviewDuration(path)?.observe((performance.now() - receivedAt) / 1000);
  };
}

/** Every 4xx at warn (rate-limited), with what was wrong and who sent it: a misconfigured apiserver shows up. */
export function warnOnRejection(log: Logger): (c: Context<ListenerEnv>) => void {
  const logRejection = createRejectionLog(log);
  return (c) => {
    const rejection = c.get("rejection");
    if (rejection === undefined) return;
    // The Bun server is the app's environment when it serves a listener; a test may call the app without one.
    const { address, port } = c.env ? getConnInfo(c).remote : {};
    logRejection({
      method: c.req.method,
      path: c.req.path,
      status: rejection.status,
      reason: rejection.reason,
      client: address === undefined ? undefined : `${address}:${port}`,
    });
  };
}

/**
 * Tallies and histogram series bound once, every series the table can
 * produce at 0 from the start: `increase()` ignores a series' first sample,
 * so a series born at 1 would hide its first count from the alerts.
 */
export function admissionMeasures(): RequestMeasures {
  const responsesOf = childrenOf((label: string, status: number) =>
    httpResponses.tally({ path: label, code: String(status) }),
  );
  const durations = new Map<string, Observer>();
  const decisions = new Map<string, (result: string, reason: string) => Tally>();
  for (const endpoint of ENDPOINT_KEYS) {
    const { path, label } = ENDPOINTS[endpoint];
    durations.set(path, admissionDuration.series({ handler: label }));
    const decisionOf = childrenOf((result: string, reason: string) =>
      admissionDecisions.tally({ handler: label, result, reason }),
    );
    for (const { result, reason } of resultReasons(endpoint)) decisionOf(result, reason);
    decisions.set(path, decisionOf);
  }
  for (const label of [...ENDPOINT_KEYS.map((endpoint) => ENDPOINTS[endpoint].path), OTHER_PATH])
    for (const status of REJECTION_STATUSES) responsesOf(label, status);
  return {
    inFlight: {
      inc: () => requestsInFlight.count++,
      dec: () => requestsInFlight.count--,
    },
    // An endpoint's path, or `other`, so a scanner cannot grow the label set.
    countResponse: (path, status) => {
      responsesOf(durations.has(path) ? path : OTHER_PATH, status).count++;
    },
    reviewDuration: (path) => durations.get(path),
    countDecision: (path, { result, reason }) => {
      const tallyOf = decisions.get(path);
      if (tallyOf) tallyOf(result, reason).count++;
    },
  };
}

const OTHER_PATH = "other";

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
