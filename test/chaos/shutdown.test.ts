import { afterAll, describe, expect, test } from "bun:test";
import { holdRequest, type WebhookProcess } from "../e2e/harness";
import { eventually, waitUntil } from "../support/eventually";
import {
  CHAOS_ENABLED,
  type Outcome,
  plainPodReview,
  recordFigures,
  startKeepAliveLoad,
} from "./support";

const DRAIN_DELAY_MS = 3000;
const SHUTDOWN_TIMEOUT_MS = 5000;
/** Requests sent this close to the end of DRAIN_DELAY race the listener's close; not judged. */
const CLOSE_RACE_MS = 250;

/** A review held in flight until `finish()`, with the uid it must be answered with. */
function heldRequest(webhook: WebhookProcess) {
  const uid = crypto.randomUUID();
  const held = holdRequest(webhook, plainPodReview(uid));
  const answered = held.answered.then(({ status, body }) => ({ status, uid: answeredUid(body) }));
  return { uid, answered, finish: held.finish };
}

function answeredUid(body: string): unknown {
  try {
    return (JSON.parse(body) as { response?: { uid?: unknown } }).response?.uid;
  } catch {
    return undefined;
  }
}

describe.skipIf(!CHAOS_ENABLED)("chaos: graceful shutdown under load", () => {
  let webhook: WebhookProcess | undefined;
  afterAll(async () => {
    if (webhook && webhook.process.exitCode === null) webhook.process.kill("SIGKILL");
  });

  test("SIGTERM with requests in flight: all answered, /readyz 503 at once, exit 0 in time", async () => {
    const { startWebhook } = await import("../e2e/harness");
    const started = await startWebhook({
      env: {
        DRAIN_DELAY: `${DRAIN_DELAY_MS}ms`,
        SHUTDOWN_TIMEOUT: `${SHUTDOWN_TIMEOUT_MS}ms`,
        // The held requests stand for reviews still in flight at the signal; they hold their
        // bodies back for longer than the default 2 s body-read deadline, which would answer 408.
        BODY_READ_TIMEOUT: "30s",
        WEBHOOK_LOG_LEVEL: "info",
      },
    });
    webhook = started;
    const target = { url: started.admissionUrl, ca: started.ca.cert };
    // Held requests: accepted before the signal, finished during the drain and after it.
    const heldEarly = Array.from({ length: 5 }, () => heldRequest(started));
    const heldLate = Array.from({ length: 5 }, () => heldRequest(started));
    const inFlight = () => started.metric("cocoon_webhook_http_requests_in_flight");
    expect(await eventually(inFlight, (count) => count === 10)).toBe(10);
    const load = startKeepAliveLoad(target, {
      fetchClients: 3,
      agentClients: 3,
      maxMs: 30_000,
      pauseMs: 2,
    });
    // The load is running before the signal.
    await waitUntil(() => load.outcomes.length >= 100, 10_000);

    const signalledAt = Date.now();
    started.process.kill("SIGTERM");
    const readyz: { at: number; status: number }[] = [];
    const readyzLoop = (async () => {
      while (Date.now() - signalledAt < DRAIN_DELAY_MS - CLOSE_RACE_MS) {
        const status = await fetch(`${started.opsUrl}/readyz`)
          .then((response) => response.status)
          .catch(() => 0);
        readyz.push({ at: Date.now() - signalledAt, status });
        await Bun.sleep(25); // deliberate: the probe rate
      }
    })();
    await Bun.sleep(DRAIN_DELAY_MS / 2); // deliberate: finished halfway through the drain
    for (const held of heldEarly) held.finish();
    // Past DRAIN_DELAY: no longer accepting.
    expect(await started.logLine("shutdown: finishing in-flight requests", 10_000)).toBeDefined();
    for (const held of heldLate) held.finish();
    const exitCode = await started.process.exited;
    const exitedAfterMs = Date.now() - signalledAt;
    await load.stop();
    await readyzLoop;

    const held = await Promise.all([...heldEarly, ...heldLate].map((each) => each.answered));
    const heldOk = held.filter(
      (answer, i) => answer.status === 200 && answer.uid === [...heldEarly, ...heldLate][i]?.uid,
    ).length;
    const drainEnd = signalledAt + DRAIN_DELAY_MS;
    const beforeSignal = load.outcomes.filter((o) => o.startedAt < signalledAt);
    const duringDrain = load.outcomes.filter(
      (o) => o.startedAt >= signalledAt && o.startedAt < drainEnd - CLOSE_RACE_MS,
    );
    const afterDrain = load.outcomes.filter((o) => o.startedAt >= drainEnd);
    const failed = (outcomes: Outcome[]) => outcomes.filter((o) => !o.ok);
    // The first probe may race the signal's delivery; from the first 503 on, none may be 200.
    const first503 = readyz.findIndex((probe) => probe.status === 503);
    const readyAfter503 = readyz.slice(Math.max(0, first503)).filter((p) => p.status !== 503);

    recordFigures("graceful shutdown", {
      "DRAIN_DELAY / SHUTDOWN_TIMEOUT ms": `${DRAIN_DELAY_MS} / ${SHUTDOWN_TIMEOUT_MS}`,
      "requests before SIGTERM (failed)": `${beforeSignal.length} (${failed(beforeSignal).length})`,
      "requests during DRAIN_DELAY (failed)": `${duringDrain.length} (${failed(duringDrain).length})`,
      "held in-flight requests answered": `${heldOk} / ${held.length}`,
      "requests after DRAIN_DELAY refused (expected)": failed(afterDrain).length,
      "/readyz 503 first seen after ms": readyz[first503]?.at ?? -1,
      "/readyz 200 after first 503": readyAfter503.length,
      "exit code": exitCode,
      "exited after SIGTERM ms": exitedAfterMs,
    });
    if (failed(beforeSignal).length + failed(duringDrain).length > 0) {
      console.log([...failed(beforeSignal), ...failed(duringDrain)].slice(0, 20));
    }

    expect(failed(beforeSignal)).toEqual([]);
    expect(failed(duringDrain)).toEqual([]);
    expect(duringDrain.length).toBeGreaterThan(100);
    expect(heldOk).toBe(held.length);
    expect(first503).toBeGreaterThanOrEqual(0);
    expect(readyz[first503]?.at ?? Number.POSITIVE_INFINITY).toBeLessThan(200);
    expect(readyAfter503).toEqual([]);
    expect(exitCode).toBe(0);
    expect(exitedAfterMs).toBeLessThan(DRAIN_DELAY_MS + SHUTDOWN_TIMEOUT_MS);
  }, 60_000);
});
