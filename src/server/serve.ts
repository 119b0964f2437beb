import type { HandlerName, Rule } from "../admission/rule";
import type { Config } from "../config";
import type { Logger } from "../observability/logger";
import {
  tlsCertificateExpiry,
  tlsReloadsTotal,
  tlsRotationSteering,
  tlsRotationSteeringFallbacksTotal,
} from "../observability/metrics";
import { AdmissionListener } from "./admission-listener";
import { createAdmissionApp, createOpsApp } from "./apps";
import type { Readiness } from "./probes";
import { SteeringUnavailable } from "./reuseport-steering";
import { loadTlsPair, type TlsPair } from "./tls-pair";
import { tlsFilesFingerprint, watchTlsFiles } from "./tls-watcher";

/** A burst of rewrites becomes one rotation: applied once the files stayed the same 500 ms. */
export const TLS_WATCH_TIMING = { intervalMs: 250, settleMs: 500, maxDelayMs: 10_000 } as const;

export interface RunningServer {
  readonly admissionPort: number;
  readonly opsPort: number;
  /** Resolves once shutdown is complete; true when in-flight requests all finished in time. */
  shutdown(): Promise<boolean>;
}

function recordCertificate(pair: TlsPair): void {
  tlsCertificateExpiry.set(Math.floor(pair.notAfter.getTime() / 1000));
}

/** Starts both listeners and the certificate watcher. Throws if the first TLS pair is unusable. */
export function startServer(
  config: Config,
  rules: Readonly<Record<HandlerName, Rule>>,
  log: Logger,
): RunningServer {
  const readiness: Readiness = { ready: true };
  const tlsFiles = [config.TLS_CERT, config.TLS_KEY];
  const loaded = tlsFilesFingerprint(tlsFiles);
  const pair = loadTlsPair(config.TLS_CERT, config.TLS_KEY);
  const admissionApp = createAdmissionApp(rules, readiness, log);
  const listener = new AdmissionListener(
    {
      address: config.LISTEN_ADDR,
      maxRequestBodySize: config.MAX_REQUEST_BYTES,
      fetch: (request) => admissionApp.fetch(request),
      socketCalls:
        config.TLS_ROTATION_STEERING === "off"
          ? () => {
              throw new SteeringUnavailable("disabled", "TLS_ROTATION_STEERING=off");
            }
          : undefined,
      onSteeringUnavailable: (problem) => {
        tlsRotationSteering.set(0);
        tlsRotationSteeringFallbacksTotal.labels(problem.reason).inc();
        log.warn(
          { reason: problem.reason, err: problem },
          "certificate rotation without listener steering: a retired listener closes 1 s after a rotation, which can reset a connection queued on it at that instant",
        );
      },
      onDeferredRotationFailed: (error) => {
        tlsReloadsTotal.labels("failure").inc();
        log.error(
          { err: error },
          "TLS certificate change not applied; still serving the previous certificate",
        );
      },
    },
    pair,
  );
  if (listener.steering) tlsRotationSteering.set(1);
  recordCertificate(pair);

  const opsApp = createOpsApp(readiness, log);
  const ops = Bun.serve({
    hostname: config.METRICS_ADDR.hostname,
    port: config.METRICS_ADDR.port,
    fetch: (request) => opsApp.fetch(request),
  });

  const stopWatching = watchTlsFiles(tlsFiles, loaded, TLS_WATCH_TIMING, () => {
    try {
      const next = loadTlsPair(config.TLS_CERT, config.TLS_KEY);
      listener.rotate(next);
      recordCertificate(next);
      tlsReloadsTotal.labels("success").inc();
      log.info({ notAfter: next.notAfter.toISOString() }, "serving rotated TLS certificate");
    } catch (error) {
      tlsReloadsTotal.labels("failure").inc();
      log.error(
        { err: error },
        "TLS certificate change not applied; still serving the previous certificate, will retry on the next change",
      );
    }
  });

  log.info(
    { admission: listener.port, ops: ops.port, notAfter: pair.notAfter.toISOString() },
    "cocoon-webhook serving",
  );

  return {
    admissionPort: listener.port,
    opsPort: ops.port ?? config.METRICS_ADDR.port,
    async shutdown() {
      readiness.ready = false;
      stopWatching();
      listener.beginDrain();
      log.info({ drainDelayMs: config.DRAIN_DELAY }, "shutdown: not ready, draining");
      await Bun.sleep(config.DRAIN_DELAY);
      log.info({ timeoutMs: config.SHUTDOWN_TIMEOUT }, "shutdown: finishing in-flight requests");
      const finished = await listener.stop(config.SHUTDOWN_TIMEOUT);
      await ops.stop(true);
      return finished;
    },
  };
}
