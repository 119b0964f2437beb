import { cutShort } from "../bounded-text";
import { unrefTimeout } from "../clock";
import type { Logger } from "./logger";

/** At most this many `request rejected` lines per window; the rest are summed up in one line. */
export const REJECTION_LOG_LIMIT = { lines: 20, intervalMs: 10_000 } as const;

/** One 4xx answer of the admission listener, as its log line tells it. */
interface RejectedRequest {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** What the answer said was wrong. */
  readonly reason?: string;
  /** `address:port` of the client. */
  readonly client?: string;
}

interface RejectionLogTiming {
  readonly lines: number;
  readonly intervalMs: number;
  readonly now?: () => number;
  readonly after?: typeof unrefTimeout;
}

/**
 * Logs 4xx answers at warn, at most `lines` per window of `intervalMs`, each
 * line with every echoed value cut short: a scanner or a flood of junk
 * cannot fill the disk or the log pipeline. Past the limit, rejections are
 * counted by status, and one summary line at the end of the window (or when
 * the process exits) says how many were not logged and of which kinds. The
 * metrics count every response regardless.
 */
export function createRejectionLog(log: Logger, timing: RejectionLogTiming = REJECTION_LOG_LIMIT) {
  const now = timing.now ?? (() => performance.now());
  const after = timing.after ?? unrefTimeout;
  let windowStart = Number.NEGATIVE_INFINITY;
  let logged = 0;
  let suppressed = new Map<number, number>();
  let cancelSummary: (() => void) | undefined;

  const flush = () => {
    cancelSummary?.();
    cancelSummary = undefined;
    process.off("exit", flush);
    if (suppressed.size === 0) return;
    const byStatus = Object.fromEntries([...suppressed].map(([status, n]) => [String(status), n]));
    const total = [...suppressed.values()].reduce((sum, n) => sum + n, 0);
    suppressed = new Map();
    log.warn(
      { suppressed: total, byStatus, limit: `${timing.lines} lines per ${timing.intervalMs} ms` },
      `requests rejected: ${total} more 4xx answers were not logged one by one`,
    );
  };

  const record = (rejection: RejectedRequest) => {
    const at = now();
    if (at - windowStart >= timing.intervalMs) {
      flush();
      windowStart = at;
      logged = 0;
    }
    if (logged < timing.lines) {
      logged++;
      log.warn(
        {
          method: cutShort(rejection.method),
          path: cutShort(rejection.path),
          status: rejection.status,
          reason: rejection.reason && cutShort(rejection.reason, REASON_LIMIT),
          client: rejection.client && cutShort(rejection.client),
        },
        "request rejected",
      );
      return;
    }
    suppressed.set(rejection.status, (suppressed.get(rejection.status) ?? 0) + 1);
    if (!cancelSummary) {
      cancelSummary = after(windowStart + timing.intervalMs - at, flush);
      // A summary still pending when the process exits is written then, not lost.
      process.once("exit", flush);
    }
  };
  return Object.assign(record, { flush });
}

/** A reason quotes at most a couple of echoed values besides its own words. */
const REASON_LIMIT = 1024;
