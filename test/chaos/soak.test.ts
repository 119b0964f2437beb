import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import tls from "node:tls";
import { readReview, type WebhookProcess } from "../e2e/harness";
import { type AdmissionReviewBody, scaleReview } from "../support/admission-review";
import { eventually } from "../support/eventually";
import type { FakeApiserver } from "../support/fake-apiserver";
import {
  cocoonSetReview,
  cocoonWorkload,
  gatedPodReview,
  handMadeGatedPodReview,
  hibernationObject,
  hibernationReview,
} from "./bodies";
import { CHAOS_ENABLED, percentile, recordFigures, round, rssKib } from "./support";

const SOAK_SECONDS = Number(process.env.CHAOS_SOAK_SECONDS ?? "600");
const RATE_PER_SECOND = Number(process.env.CHAOS_SOAK_RATE ?? "200");
const TICK_MS = 50;
const WARMUP_SECONDS = Math.min(30, Math.max(5, SOAK_SECONDS / 10));
/** At most this many requests outstanding; beyond it a tick's sends are counted as skipped. */
const MAX_OUTSTANDING = 200;

/** [path, body, expected `allowed`] — the mix cycles through every handler. */
const MIX: readonly (() => [string, AdmissionReviewBody, boolean])[] = [
  () => ["/mutate", gatedPodReview(), true],
  () => ["/mutate", handMadeGatedPodReview(), false],
  () => ["/validate", scaleReview(1, 3), true],
  () => ["/validate", scaleReview(3, 1), false],
  () => ["/validate-cocoonset", cocoonSetReview(), true],
  () => ["/validate-cocoonhibernation", hibernationReview("demo-0"), false],
  () => ["/validate-cocoonhibernation", hibernationReview("demo-1"), true],
];

interface Trickler {
  readonly name: string;
  openedAt: number;
  closedAfterMs: number | undefined;
  stop(): void;
}

/**
 * A TLS connection that sends the first bytes of a request, then one more
 * byte every `nextByteEveryMs` (0: never). `headers` trickles the request
 * headers; `body` sends complete headers and trickles the body; `nothing`
 * never sends a byte after the handshake; `keep-alive` sends one whole
 * request (a probe) and then idles, as a pooled connection between requests.
 */
function trickler(
  webhook: WebhookProcess,
  name: string,
  part: "headers" | "body" | "nothing" | "keep-alive",
  nextByteEveryMs: number,
): Trickler {
  const { hostname, port } = new URL(webhook.admissionUrl);
  const body = JSON.stringify(gatedPodReview());
  const head = `POST /mutate HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  const parts: Record<typeof part, readonly [prefix: string, rest: string]> = {
    headers: ["", head],
    body: [head, body],
    nothing: ["", ""],
    // A probe, not a review: the admission samples stay those of the load.
    "keep-alive": [`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`, ""],
  };
  const [prefix, rest] = parts[part];
  let sent = 0;
  let timer: Timer | undefined;
  const state: Trickler = {
    name,
    openedAt: Date.now(),
    closedAfterMs: undefined,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
  const socket = tls.connect(
    { host: hostname, port: Number(port), ca: webhook.ca.cert, servername: hostname },
    () => {
      sent = 10;
      socket.write(prefix + rest.slice(0, sent));
      if (nextByteEveryMs > 0) {
        timer = setInterval(() => {
          if (sent < rest.length - 1) socket.write(rest.slice(sent, ++sent));
        }, nextByteEveryMs);
      }
    },
  );
  socket.on("error", () => {});
  // Read (and drop) what the server answers: a paused socket never sees the server's close.
  socket.resume();
  socket.on("close", () => {
    clearInterval(timer);
    state.closedAfterMs ??= Date.now() - state.openedAt;
  });
  return state;
}

describe.skipIf(!CHAOS_ENABLED)("chaos: soak", () => {
  let apiserver: FakeApiserver;
  let webhook: WebhookProcess;
  const tricklers: Trickler[] = [];

  beforeAll(async () => {
    const { startFakeApiserver } = await import("../support/fake-apiserver");
    const harness = await import("../e2e/harness");
    apiserver = await startFakeApiserver();
    apiserver.setWorkload("deployments", "team-a", "agents", cocoonWorkload(3));
    apiserver.setHibernations("team-a", [hibernationObject("demo-0")]);
    webhook = await harness.startWebhook({
      env: {
        KUBECONFIG: apiserver.kubeconfigPath,
        APISERVER_TIMEOUT: "3s",
        WEBHOOK_LOG_LEVEL: "info",
      },
    });
  });
  afterAll(async () => {
    for (const each of tricklers) each.stop();
    await webhook?.stop("SIGKILL");
    await apiserver?.stop();
  });

  const admissionSamples = async () => {
    const text = await webhook.metrics();
    let total = 0;
    for (const line of text.split("\n")) {
      if (line.startsWith("cocoon_webhook_admission_total{"))
        total += Number(line.split(" ").pop());
    }
    return total;
  };

  test(
    `${SOAK_SECONDS} s of mixed traffic at ${RATE_PER_SECOND} req/s: no errors, memory flat`,
    async () => {
      const pid = webhook.process.pid;
      tricklers.push(trickler(webhook, "headers: silent after 10 bytes", "headers", 0));
      tricklers.push(trickler(webhook, "headers: 1 byte every 2 s", "headers", 2000));
      tricklers.push(trickler(webhook, "body: silent after 10 bytes", "body", 0));
      tricklers.push(trickler(webhook, "body: 1 byte every 30 s", "body", 30_000));
      const silent = trickler(webhook, "TLS handshake, then nothing", "nothing", 0);
      const pooled = trickler(webhook, "keep-alive, idle after one answer", "keep-alive", 0);
      tricklers.push(silent, pooled);
      const samplesBefore = await admissionSamples();

      const latencies: number[] = [];
      const failures: string[] = [];
      const rss: { atS: number; kib: number }[] = [{ atS: 0, kib: rssKib(pid) }];
      let sent = 0;
      let skipped = 0;
      let outstanding = 0;
      const inFlight = new Set<Promise<void>>();
      const startedAt = Date.now();
      const endsAt = startedAt + SOAK_SECONDS * 1000;
      const perTick = (RATE_PER_SECOND * TICK_MS) / 1000;
      let nextRssAt = startedAt + 10_000;
      let warmRss: number | undefined;

      const sendOne = async (index: number) => {
        const make = MIX[index % MIX.length];
        if (!make) return;
        const [path, body, expected] = make();
        const t0 = performance.now();
        try {
          const response = await webhook.post(`${path}?timeout=5s`, body);
          const answer = await readReview(response);
          latencies.push(performance.now() - t0);
          if (response.status !== 200) failures.push(`${path}: HTTP ${response.status}`);
          else if (answer.response?.uid !== body.request.uid) failures.push(`${path}: uid`);
          else if (answer.response?.allowed !== expected) failures.push(`${path}: verdict`);
        } catch (error) {
          failures.push(`${path}: ${(error as Error).message.slice(0, 80)}`);
        }
      };

      let tick = 0;
      while (Date.now() < endsAt) {
        const due = Math.floor((tick + 1) * perTick) - Math.floor(tick * perTick);
        for (let i = 0; i < due; i++) {
          if (outstanding >= MAX_OUTSTANDING) {
            skipped++;
            continue;
          }
          outstanding++;
          const request = sendOne(sent++).finally(() => {
            outstanding--;
            inFlight.delete(request);
          });
          inFlight.add(request);
        }
        tick++;
        if (Date.now() >= nextRssAt) {
          const atS = Math.round((Date.now() - startedAt) / 1000);
          rss.push({ atS, kib: rssKib(pid) });
          if (warmRss === undefined && atS >= WARMUP_SECONDS) warmRss = rss.at(-1)?.kib;
          nextRssAt += 10_000;
        }
        const wait = startedAt + tick * TICK_MS - Date.now();
        if (wait > 0) await Bun.sleep(wait); // deliberate: the offered rate
      }
      await Promise.all(inFlight);
      const elapsedS = (Date.now() - startedAt) / 1000;
      const endRss = rssKib(pid);
      rss.push({ atS: Math.round(elapsedS), kib: endRss });
      const samplesDelta =
        (await eventually(admissionSamples, (total) => total - samplesBefore >= sent)) -
        samplesBefore;
      const healthz = await fetch(`${webhook.opsUrl}/healthz`).then((r) => r.status);
      const warm = warmRss ?? rss[1]?.kib ?? endRss;
      const maxRss = Math.max(...rss.map((sample) => sample.kib));

      recordFigures("soak", {
        duration: `${round(elapsedS)} s (CHAOS_SOAK_SECONDS=${SOAK_SECONDS})`,
        "offered rate req/s": RATE_PER_SECOND,
        "achieved rate req/s": round(sent / elapsedS),
        "requests sent": sent,
        "requests skipped (client backlog)": skipped,
        "requests failed": failures.length,
        "admission samples recorded": samplesDelta,
        "latency p50 / p99 / max ms": `${round(percentile(latencies, 50))} / ${round(percentile(latencies, 99))} / ${round(Math.max(...latencies))}`,
        "RSS start (0 s) MiB": round((rss[0]?.kib ?? 0) / 1024),
        [`RSS after warm-up (${WARMUP_SECONDS} s) MiB`]: round(warm / 1024),
        "RSS end MiB": round(endRss / 1024),
        "RSS max MiB": round(maxRss / 1024),
        "RSS growth warm-up→end MiB": round((endRss - warm) / 1024),
        ...Object.fromEntries(
          tricklers.map((each) => [
            `trickler "${each.name}": closed by the server after s`,
            each.closedAfterMs === undefined
              ? `still open at ${round(elapsedS)} s`
              : round(each.closedAfterMs / 1000),
          ]),
        ),
        "/healthz after": healthz,
      });
      console.log(
        `RSS samples (s: MiB): ${rss.map((s) => `${s.atS}: ${round(s.kib / 1024)}`).join(", ")}`,
      );
      if (failures.length) console.log(failures.slice(0, 20).join("\n"));

      expect(failures).toEqual([]);
      expect(skipped).toBe(0);
      expect(samplesDelta).toBe(sent);
      expect(healthz).toBe(200);
      // A connection that never sends a request, or never finishes its headers, is closed by the
      // header timeout (about 10 s); one that never finishes its body by the 408 at
      // BODY_READ_TIMEOUT; a pooled one outlives the apiserver client's own 90 s idle timeout.
      expect(silent.closedAfterMs ?? Number.POSITIVE_INFINITY).toBeLessThan(30_000);
      const closedWithin = (name: string, ms: number) => {
        const slow = tricklers.filter((each) => each.name.startsWith(name));
        expect(slow.length).toBeGreaterThan(0);
        for (const each of slow) {
          expect({ name: each.name, closed: (each.closedAfterMs ?? Infinity) < ms }).toEqual({
            name: each.name,
            closed: true,
          });
        }
      };
      closedWithin("headers:", 30_000);
      // The default 2 s deadline, well before the header timeout would close them.
      closedWithin("body:", 5_000);
      if (elapsedS > 95)
        expect(pooled.closedAfterMs ?? Number.POSITIVE_INFINITY).toBeGreaterThan(90_000);
      // Flat: after warm-up, growth stays under 64 MiB and under 50 % of the warm footprint.
      expect(endRss - warm).toBeLessThan(Math.min(64 * 1024, warm / 2));
      expect(webhook.process.exitCode).toBeNull();
    },
    (SOAK_SECONDS + 180) * 1000,
  );
});
