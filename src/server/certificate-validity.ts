import { type Clock, systemClock } from "../clock";
import type { Readiness } from "../http/probes";
import type { Logger } from "../observability/logger";
import { type TlsPair, validityProblem } from "./tls-pair";

/**
 * Keeps `readiness.certificateProblem` in step with the served certificate:
 * one that is expired or not yet valid makes /readyz answer 503, logged once.
 */
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
