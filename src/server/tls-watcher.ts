import { type Clock, systemClock } from "../clock";
import type { Readiness } from "../http/probes";
import type { Logger } from "../observability/logger";
import { fileFingerprint } from "../safe-file";
import { type TlsPair, validityProblem } from "./tls-pair";

/** What the certificate and key files are right now; taken before loading them. */
export const tlsFilesFingerprint = (paths: readonly string[]): string =>
  paths.map(fingerprintOrMissing).join("|");

function fingerprintOrMissing(path: string): string {
  try {
    return fileFingerprint(path);
  } catch {
    return "missing"; // mid-rotation; the next poll sees the file again
  }
}

/** `stat` every `intervalMs`; a change applies once settled for `settleMs`, or after `maxDelayMs`. */
interface WatchTiming {
  readonly intervalMs: number;
  readonly settleMs: number;
  readonly maxDelayMs: number;
}

/**
 * A burst of rewrites is one rotation, applied once settled. Polling, as
 * inotify on the file misses a Secret volume's symlink swap.
 */
export function watchTlsFiles(
  paths: readonly string[],
  loaded: string,
  timing: WatchTiming,
  onChange: () => void,
  clock: Clock = systemClock,
): () => void {
  let applied = loaded;
  let seen = loaded;
  let seenSince = 0;
  let pendingSince: number | undefined;
  return clock.every(timing.intervalMs, () => {
    const now = clock.now();
    const current = tlsFilesFingerprint(paths);
    if (current !== seen) {
      seen = current;
      seenSince = now;
    }
    if (current === applied) {
      pendingSince = undefined;
      return;
    }
    pendingSince ??= now;
    const settled = now - seenSince >= timing.settleMs;
    const overdue = now - pendingSince >= timing.maxDelayMs;
    if (!settled && !overdue) return;
    applied = current;
    pendingSince = undefined;
    onChange();
  });
}

/** An expired or not yet valid served certificate makes /readyz answer 503, logged once. */
export function watchServedCertificate(
  served: () => TlsPair,
  readiness: Readiness,
  log: Logger,
  intervalMs: number,
  clock: Clock = systemClock,
): () => void {
  const check = () => {
    const pair = served();
    const problem = validityProblem(pair, undefined, new Date(clock.now()));
    if (problem === readiness.certificateProblem) return;
    if (problem) {
      log.error(
        { notBefore: pair.notBefore.toISOString(), notAfter: pair.notAfter.toISOString() },
        `${problem}: clients reject it; /readyz answers 503 until a valid certificate is written`,
      );
    } else {
      log.info({ notAfter: pair.notAfter.toISOString() }, "the serving certificate is valid again");
    }
    readiness.certificateProblem = problem;
  };
  check();
  return clock.every(intervalMs, check);
}
