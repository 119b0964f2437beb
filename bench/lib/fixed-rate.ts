/**
 * The tail-latency phase: the webhook and the floor under a fixed request
 * rate well below saturation, side by side, and the garbage collector seen
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
import type { RunningServer, ServerEnvironment, ServerId } from "./servers";
import { runWrk, type WrkRun } from "./wrk";

/** The line bench/gc-host.ts prints its figures on. */
export const GC_RESULT_MARKER = "GC_RESULT ";

export interface FixedRateResult {
  readonly server: ServerId;
  readonly askedRequestsPerSecond: number;
  readonly connections: number;
  readonly delayMs: number;
  readonly wrk: WrkRun;
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

/** Asked rates, and the connection count that carries them with a whole-millisecond delay. */
export const FIXED_RATES = [
  { requestsPerSecond: 2000, connections: 20 },
  { requestsPerSecond: 10_000, connections: 20 },
] as const;

export function delayFor(rate: { requestsPerSecond: number; connections: number }): number {
  return Math.round((rate.connections * 1000) / rate.requestsPerSecond);
}

export async function fixedRateRun(
  script: string,
  server: RunningServer,
  bodyFile: string,
  rate: { requestsPerSecond: number; connections: number },
  durationSeconds: number,
): Promise<FixedRateResult> {
  const delayMs = delayFor(rate);
  const wrk = await runWrk(script, {
    url: `${server.baseUrl}/mutate?timeout=5s`,
    bodyFile,
    connections: rate.connections,
    durationSeconds,
    delayMs,
  });
  return {
    server: server.id,
    askedRequestsPerSecond: rate.requestsPerSecond,
    connections: rate.connections,
    delayMs,
    wrk,
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
  rate: { requestsPerSecond: number; connections: number },
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
