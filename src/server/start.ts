import type { Config } from "../config";
import { type Decisions, ENDPOINT_KEYS, ENDPOINTS } from "../endpoints";
import { enforcementName, warnModeEndpoints } from "../endpoints/enforcement";
import type { Readiness } from "../http/probes";
import { admissionApp } from "../http/review-chain";
import type { Logger } from "../observability/logger";
import {
  tlsCertificateExpiry,
  tlsReloadsTotal,
  tlsRotationSteering,
  tlsRotationSteeringFallbacksTotal,
  warnMode,
} from "../observability/metrics";
import { VERSION_INFO } from "../version";
import { AdmissionListener } from "./admission-listener";
import { createOpsApp } from "./ops-app";
import { loadRotatedTlsPair, loadTlsPair, type TlsPair } from "./tls-pair";
import { tlsFilesFingerprint, watchServedCertificate, watchTlsFiles } from "./tls-watcher";

/** A burst of rewrites becomes one rotation: applied once the files stayed the same 500 ms. */
const TLS_WATCH_TIMING = { intervalMs: 250, settleMs: 500, maxDelayMs: 10_000 } as const;

const CERTIFICATE_VALIDITY_CHECK_MS = 1000;

function recordCertificate(pair: TlsPair): void {
  tlsCertificateExpiry.set(Math.floor(pair.notAfter.getTime() / 1000));
}

/** Throws if the first TLS pair is unusable; the result shuts down (true: nothing was cut off). */
export function startServer(
  config: Config,
  decisions: Decisions,
  log: Logger,
): () => Promise<boolean> {
  const inWarnMode = warnModeEndpoints(config.enforcement);
  const readiness: Readiness = { ready: true, warnMode: inWarnMode.map(enforcementName) };
  for (const endpoint of ENDPOINT_KEYS) {
    warnMode.labels(ENDPOINTS[endpoint].label).set(inWarnMode.includes(endpoint) ? 1 : 0);
  }
  const tlsFiles = [config.tlsCertPath, config.tlsKeyPath];
  const loaded = tlsFilesFingerprint(tlsFiles);
  // An expired certificate at start is served, not refused: there is nothing
  // better to serve, and /readyz reports it so `kubectl get pods` shows it.
  let served = loadTlsPair(config.tlsCertPath, config.tlsKeyPath);
  const app = admissionApp(decisions, readiness, log, config);
  const listener = new AdmissionListener(
    {
      address: config.listenAddress,
      fetch: app.fetch,
      steering: config.tlsRotationSteering,
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
    served,
  );
  if (listener.steering) tlsRotationSteering.set(1);
  recordCertificate(served);

  const ops = Bun.serve({
    ...config.metricsAddress,
    fetch: createOpsApp(readiness, log, config.metricsRenderIntervalMs).fetch,
  });

  const stopWatching = watchTlsFiles(tlsFiles, loaded, TLS_WATCH_TIMING, () => {
    try {
      const next = loadRotatedTlsPair(config.tlsCertPath, config.tlsKeyPath);
      listener.rotate(next);
      served = next;
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
    {
      admission: listener.port,
      ops: ops.port,
      notAfter: served.notAfter.toISOString(),
      version: VERSION_INFO.version,
      revision: VERSION_INFO.revision,
    },
    "cocoon-webhook serving",
  );
  if (inWarnMode.length > 0) {
    log.warn(
      { warnMode: readiness.warnMode },
      "ENFORCEMENT: these endpoints are in warn mode: they allow what they would refuse and say so in warnings; set them to deny once the warnings have drained",
    );
  }
  const stopValidityCheck = watchServedCertificate(
    () => served,
    readiness,
    log,
    CERTIFICATE_VALIDITY_CHECK_MS,
  );

  return async () => {
    readiness.ready = false;
    stopWatching();
    stopValidityCheck();
    listener.beginDrain();
    log.info({ drainDelayMs: config.drainDelayMs }, "shutdown: not ready, draining");
    await Bun.sleep(config.drainDelayMs);
    log.info({ timeoutMs: config.shutdownTimeoutMs }, "shutdown: finishing in-flight requests");
    const finished = await listener.stop(config.shutdownTimeoutMs);
    await ops.stop(true);
    return finished;
  };
}
