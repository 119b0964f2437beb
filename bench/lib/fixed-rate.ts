/**
 * The tail-latency phase: the webhook and both floors under a fixed request
 * rate well below saturation, taking turns, and the garbage collector seen
 * by a probe host (bench/gc-host.ts) under the same load.
 *
 * The rate comes from wrk's `delay()` hook: each connection waits a fixed
 * time after each response, so `connections / delay` bounds the rate. The
 * achieved rate is reported beside the asked one (it falls short by the
 * response time); wrk measures each request from its send, so this is an
 * open-loop rate only as long as the server keeps up, which it does far
 * below saturation.
 */
import { join } from "node:path";
import { freePort } from "../../test/support/free-port";
import { machineCpu, stolenShare } from "../../test/support/procfs";
import { mergeHistograms, percentile, responsesIn, slowest } from "./latency-histogram";
import type { RunningServer, ServerEnvironment, ServerId } from "./servers";
import { median } from "./statistics";
import { runWrk, type WrkRun } from "./wrk";

/** The line bench/gc-host.ts prints its figures on. */
export const GC_RESULT_MARKER = "GC_RESULT ";

/** One turn of a server at a fixed rate. */
export interface FixedRateTurn {
  readonly requestsPerSecond: number;
  readonly p999Us: number;
  /** Share of the machine's CPU time the hypervisor took meanwhile (0 … 1). */
  readonly stolenShare: number;
}

/** One server at one fixed rate: its turns, and all of their responses together. */
export interface FixedRateResult {
  readonly server: ServerId;
  readonly askedRequestsPerSecond: number;
  readonly connections: number;
  readonly delayMs: number;
  readonly seconds: number;
  readonly responses: number;
  readonly requestsPerSecond: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly p999Us: number;
  readonly maxUs: number;
  readonly errors: number;
  /** Share of the machine's CPU time the hypervisor took during this server's turns. */
  readonly stolenShare: number;
  readonly turns: readonly FixedRateTurn[];
  /**
   * The median of the p99.9 of its quiet turns (see QUIET_TURN_STOLEN_SHARE),
   * what the tail goal is judged on; undefined with fewer than
   * MIN_QUIET_TURNS of them.
   */
  readonly quietTurnsP999Us: number | undefined;
}

export interface GcProbeResult {
  readonly server: "cocoon" | "floor";
  readonly requestsPerSecond: number;
  readonly requests: number;
  readonly ticks: number;
  readonly worstLatenessMs: number;
  readonly ticksLateOver1Ms: number;
  readonly heapSizeBeforeBytes: number;
  readonly heapSizeAfterBytes: number;
  readonly objectCountAfter: number;
  readonly edenCollectionMs: number;
  readonly fullCollectionMs: number;
  readonly heapSizeAfterFullBytes: number;
}

export interface FixedRate {
  readonly requestsPerSecond: number;
  readonly connections: number;
  /** Of BENCH_FIXED_RATE_S, the seconds each server gets at this rate. */
  readonly shareOfSeconds: number;
}

/**
 * Asked rates, the connection count that carries each with a whole-millisecond
 * delay, and how much of the fixed-rate time each gets: the tail goal is set
 * at 2 000 req/s, so that rate gets all of it.
 */
export const TAIL_GOAL_RATE: FixedRate = {
  requestsPerSecond: 2000,
  connections: 20,
  shareOfSeconds: 1,
};
export const FIXED_RATES: readonly FixedRate[] = [
  TAIL_GOAL_RATE,
  { requestsPerSecond: 10_000, connections: 20, shareOfSeconds: 1 / 7 },
];

/**
 * A turn is quiet when the hypervisor took at most this share of the
 * machine's CPU during it. On the shared machines the bench runs on, the
 * bare floor's p99.9 at 2 000 req/s read 2.9–4.4 ms in turns with at most
 * 0.3 % stolen and 4.0–20.8 ms in turns with 0.4–6.8 %: a tail goal of half
 * a millisecond can only be judged on quiet turns.
 */
export const QUIET_TURN_STOLEN_SHARE = 0.003;
/** Quiet turns each server needs before the tail goal is judged. */
export const MIN_QUIET_TURNS = 3;

/** Length of one turn of a server at a fixed rate. */
export const FIXED_RATE_TURN_SECONDS = 10;

export function delayFor(rate: { requestsPerSecond: number; connections: number }): number {
  return Math.round((rate.connections * 1000) / rate.requestsPerSecond);
}

/**
 * The servers take turns at `rate`, FIXED_RATE_TURN_SECONDS each, each going
 * first in turn, until each has had `secondsPerServer`. At this rate a
 * turn's p99.9 is decided by its worst dozen or so responses, and on a
 * shared machine a burst of stolen CPU lands on whichever server runs at the
 * time: one run each would hand every such burst to one server. So each
 * server is judged on the median p99.9 of its quiet turns; its percentiles
 * over all of its turns' responses together are reported beside it.
 */
export async function fixedRatePhase(
  script: string,
  servers: readonly RunningServer[],
  bodyFile: string,
  rate: FixedRate,
  secondsPerServer: number,
): Promise<FixedRateResult[]> {
  const delayMs = delayFor(rate);
  const turnCount = Math.max(1, Math.round(secondsPerServer / FIXED_RATE_TURN_SECONDS));
  const runs = new Map<ServerId, { wrk: WrkRun; stolenShare: number }[]>();
  for (let turn = 0; turn < turnCount; turn++) {
    const first = turn % servers.length;
    for (const server of [...servers.slice(first), ...servers.slice(0, first)]) {
      const before = machineCpu();
      const wrk = await runWrk(script, {
        url: `${server.baseUrl}/mutate?timeout=5s`,
        bodyFile,
        connections: rate.connections,
        durationSeconds: FIXED_RATE_TURN_SECONDS,
        delayMs,
        histogram: true,
      });
      const stolen = stolenShare(before, machineCpu());
      runs.set(server.id, [...(runs.get(server.id) ?? []), { wrk, stolenShare: stolen }]);
    }
  }
  return servers.map((server) => {
    const runsOfServer = runs.get(server.id) ?? [];
    const histogram = mergeHistograms(runsOfServer.map(({ wrk }) => wrk.histogram ?? new Map()));
    const seconds = runsOfServer.reduce((sum, { wrk }) => sum + wrk.durationUs / 1e6, 0);
    const responses = responsesIn(histogram);
    const turns = runsOfServer.map(({ wrk, stolenShare }) => ({
      requestsPerSecond: wrk.requestsPerSecond,
      p999Us: wrk.p999Us,
      stolenShare,
    }));
    return {
      server: server.id,
      askedRequestsPerSecond: rate.requestsPerSecond,
      connections: rate.connections,
      delayMs,
      seconds,
      responses,
      requestsPerSecond: responses / seconds,
      p50Us: percentile(histogram, 50),
      p99Us: percentile(histogram, 99),
      p999Us: percentile(histogram, 99.9),
      maxUs: slowest(histogram),
      errors: runsOfServer.reduce((sum, { wrk }) => sum + wrk.errors, 0),
      stolenShare: turns.reduce((sum, turn) => sum + turn.stolenShare, 0) / turns.length,
      turns,
      quietTurnsP999Us: quietTurnsP999(turns),
    };
  });
}

/** The turns of `turns` during which the hypervisor took little enough to judge a tail. */
export function quietTurns(turns: readonly FixedRateTurn[]): FixedRateTurn[] {
  return turns.filter((turn) => turn.stolenShare <= QUIET_TURN_STOLEN_SHARE);
}

/** The median p99.9 of the quiet turns; undefined with fewer than MIN_QUIET_TURNS. */
export function quietTurnsP999(turns: readonly FixedRateTurn[]): number | undefined {
  const quiet = quietTurns(turns);
  return quiet.length < MIN_QUIET_TURNS ? undefined : median(quiet.map((turn) => turn.p999Us));
}

/** How far over the design floor's p99.9 the webhook's may be. */
export const TAIL_GOAL_MARGIN_US = 500;

/** The tail goal of one run, or why it was not judged. */
export type TailVerdict =
  | {
      readonly judged: false;
      readonly quietTurns: { readonly cocoon: number; readonly design: number };
    }
  | {
      readonly judged: true;
      readonly met: boolean;
      /** The webhook's median quiet-turn p99.9 minus the design floor's. */
      readonly overDesignUs: number;
      /** The same against the bare floor: the limit any Bun webhook meets, reported beside. */
      readonly overBareUs: number | undefined;
    };

/**
 * The paced tail is judged against the design floor, as throughput is: the
 * bare floor's tail is out of reach of anything built on the framework (the
 * design floor alone is over it by a millisecond and more, the collector's
 * pauses over the heap its libraries occupy), so it stays in every table as
 * the limit, not the goal. Judged on the median p99.9 of each server's quiet
 * turns; not judged when either has fewer than MIN_QUIET_TURNS.
 */
export function judgeTail(
  cocoon: FixedRateResult,
  design: FixedRateResult,
  bare?: FixedRateResult,
): TailVerdict {
  const cocoonP999 = cocoon.quietTurnsP999Us;
  const designP999 = design.quietTurnsP999Us;
  if (cocoonP999 === undefined || designP999 === undefined) {
    return {
      judged: false,
      quietTurns: {
        cocoon: quietTurns(cocoon.turns).length,
        design: quietTurns(design.turns).length,
      },
    };
  }
  const bareP999 = bare?.quietTurnsP999Us;
  return {
    judged: true,
    met: cocoonP999 - designP999 <= TAIL_GOAL_MARGIN_US,
    overDesignUs: cocoonP999 - designP999,
    overBareUs: bareP999 === undefined ? undefined : cocoonP999 - bareP999,
  };
}

async function answers(url: string, bodyFile: string, caPem: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/mutate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: Bun.file(bodyFile),
      tls: { ca: caPem },
      keepalive: false,
    });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Starts bench/gc-host.ts for `which`, drives it at `rate` and returns what it saw. */
export async function gcProbe(
  which: "cocoon" | "floor",
  env: ServerEnvironment,
  script: string,
  bodyFile: string,
  rate: FixedRate,
  durationSeconds: number,
): Promise<GcProbeResult> {
  const port = freePort();
  const url = `https://127.0.0.1:${port}`;
  const child = Bun.spawn([env.bun, join(env.repo, "bench/gc-host.ts"), which], {
    env: {
      PATH: process.env.PATH ?? "",
      TLS_CERT: env.serving.certFile,
      TLS_KEY: env.serving.keyFile,
      LISTEN_PORT: String(port),
      NODE_ENV: "production",
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    const deadline = performance.now() + 15_000;
    while (!(await answers(url, bodyFile, env.ca.cert))) {
      if (child.exitCode !== null || performance.now() > deadline)
        throw new Error(
          `gc-host ${which} did not start: ${await new Response(child.stderr).text()}`,
        );
      await Bun.sleep(20);
    }
    const wrk = await runWrk(script, {
      url: `${url}/mutate?timeout=5s`,
      bodyFile,
      connections: rate.connections,
      durationSeconds,
      delayMs: delayFor(rate),
    });
    child.kill("SIGTERM");
    const stdout = await new Response(child.stdout).text();
    const line = stdout.split("\n").find((each) => each.startsWith(GC_RESULT_MARKER));
    if (!line) throw new Error(`gc-host ${which} printed no result: ${stdout}`);
    const seen = JSON.parse(line.slice(GC_RESULT_MARKER.length)) as Omit<
      GcProbeResult,
      "requestsPerSecond" | "requests"
    >;
    return {
      ...seen,
      server: which,
      requestsPerSecond: wrk.requestsPerSecond,
      requests: wrk.requests,
    };
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    await child.exited;
  }
}
