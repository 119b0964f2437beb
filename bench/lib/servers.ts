/**
 * The servers under test (four, and the Go original when its binary is given),
 * each started as its own process on 127.0.0.1 with the same serving
 * certificate, and timed from spawn to ready.
 */
import { realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { KeyPair, TestCa } from "../../test/support/certs";
import { freePort } from "../../test/support/free-port";

export type ServerId = "cocoon" | "floor" | "design" | "peer" | "go";

export const SERVER_LABELS: Record<ServerId, string> = {
  cocoon: "cocoon-webhook",
  floor: "floor (bare Bun.serve)",
  design: "design floor (Hono + the review routes' middleware)",
  peer: "peer (Node + Hono + zod)",
  go: "Go original (github.com/cocoonstack/cocoon-webhook)",
};

export interface RunningServer {
  readonly id: ServerId;
  readonly pid: number;
  /** https://127.0.0.1:PORT */
  readonly baseUrl: string;
  /** Milliseconds from spawn to ready (cocoon: /readyz 200; others: first admission answer). */
  readonly readyMs: number;
  /** cocoon only: milliseconds from spawn to its first admission answer. */
  readonly firstAnswerMs?: number;
  /** Where its stdout and stderr go. */
  readonly logFile: string;
  stop(): Promise<void>;
}

export interface ServerEnvironment {
  readonly repo: string;
  readonly bun: string;
  readonly workDir: string;
  readonly ca: TestCa;
  readonly serving: KeyPair;
  readonly kubeconfigPath: string;
  readonly apiserverUrl: string;
  readonly apiserverCaFile: string;
  readonly apiserverToken: string;
  /** A body the server answers with 200, for the first-answer readiness probe. */
  readonly probeBodyFile: string;
  /** The peer bundled for Node (bench/run.ts builds it once). */
  readonly peerBundle: string;
  /** The cocoon-webhook binary to run; dist/cocoon-webhook when unset. */
  readonly cocoonBinary?: string;
  /** The Go original's binary (BENCH_GO_ORIGINAL_BINARY); without it, it sits the bench out. */
  readonly goOriginalBinary?: string;
  /** The floor compiled like the webhook (lib/compile.ts), for like-for-like memory figures. */
  readonly compiledFloor?: string;
}

const READY_DEADLINE_MS = 15_000;
const POLL_INTERVAL_MS = 2;

function command(id: ServerId, env: ServerEnvironment, compiled: boolean): string[] {
  switch (id) {
    case "cocoon":
      return [env.cocoonBinary ?? join(env.repo, "dist/cocoon-webhook"), "serve"];
    case "floor":
      if (compiled && env.compiledFloor) return [env.compiledFloor];
      return [env.bun, join(env.repo, "bench/floor.ts")];
    case "design":
      return [env.bun, join(env.repo, "bench/design-floor.ts")];
    case "peer":
      return ["node", env.peerBundle];
    case "go":
      return [goOriginalBinary(env)];
  }
}

function goOriginalBinary(env: ServerEnvironment): string {
  if (!env.goOriginalBinary) throw new Error("the Go original needs BENCH_GO_ORIGINAL_BINARY");
  return env.goOriginalBinary;
}

/** Bytes of what a deployment ships: the binary, or the runtime plus the script. */
export function artefactBytes(
  id: ServerId,
  env: ServerEnvironment,
): { bytes: number; what: string } {
  const size = (path: string) => statSync(realpathSync(path)).size;
  switch (id) {
    case "cocoon":
      return { bytes: size(join(env.repo, "dist/cocoon-webhook")), what: "dist/cocoon-webhook" };
    case "floor":
      return {
        bytes: size(env.bun) + size(join(env.repo, "bench/floor.ts")),
        what: "bun runtime + floor.ts",
      };
    case "design":
      return {
        bytes: size(env.bun) + size(join(env.repo, "bench/design-floor.ts")),
        what: "bun runtime + design-floor.ts and its imports",
      };
    case "peer": {
      const node = Bun.which("node") ?? "node";
      return {
        bytes: size(node) + size(env.peerBundle),
        what: "node runtime + bundled peer.mjs",
      };
    }
    case "go":
      return { bytes: size(goOriginalBinary(env)), what: "Go binary" };
  }
}

/** Whether `url` answers 200 (its body read and dropped) on a connection of its own. */
export async function answersOk(url: string, init: BunFetchRequestInit = {}): Promise<boolean> {
  try {
    const response = await fetch(url, { keepalive: false, ...init });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

function answersProbe(url: string, env: ServerEnvironment): Promise<boolean> {
  return answersOk(`${url}/mutate?timeout=5s`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: Bun.file(env.probeBodyFile),
    tls: { ca: env.ca.cert },
  });
}

async function pollUntil(
  child: Subprocess,
  started: number,
  check: () => Promise<boolean>,
  what: string,
): Promise<number> {
  while (performance.now() - started < READY_DEADLINE_MS) {
    if (child.exitCode !== null)
      throw new Error(`${what} exited with ${child.exitCode} before ready`);
    if (await check()) return performance.now() - started;
    await Bun.sleep(POLL_INTERVAL_MS);
  }
  throw new Error(`${what} was not ready within ${READY_DEADLINE_MS} ms`);
}

let started = 0;

/**
 * `kubeconfig: false` starts cocoon-webhook the way it runs in a cluster as far as
 * modules go: client-node is loaded only for a KUBECONFIG, never in-cluster.
 * `compiled: true` runs the floor as `env.compiledFloor`, a binary like the webhook's.
 */
export async function startServer(
  id: ServerId,
  env: ServerEnvironment,
  options: { kubeconfig?: boolean; compiled?: boolean } = {},
): Promise<RunningServer> {
  const port = freePort();
  const opsPort = freePort();
  const logFile = join(env.workDir, `${id}-${++started}.log`);
  const baseUrl = `https://127.0.0.1:${port}`;
  const opsUrl = `http://127.0.0.1:${opsPort}`;
  const childEnv: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    TLS_CERT: env.serving.certFile,
    TLS_KEY: env.serving.keyFile,
    LISTEN_PORT: String(port),
    LISTEN_ADDR: `127.0.0.1:${port}`,
    METRICS_ADDR: `127.0.0.1:${opsPort}`,
    ...(options.kubeconfig === false ? {} : { KUBECONFIG: env.kubeconfigPath }),
    WEBHOOK_LOG_LEVEL: "info",
    DRAIN_DELAY: "0s",
    SHUTDOWN_TIMEOUT: "2s",
    APISERVER_URL: env.apiserverUrl,
    APISERVER_CA: env.apiserverCaFile,
    APISERVER_TOKEN: env.apiserverToken,
    NODE_ENV: "production",
  };
  const t0 = performance.now();
  const child = Bun.spawn(command(id, env, options.compiled === true), {
    env: childEnv,
    stdin: "ignore",
    stdout: Bun.file(logFile),
    stderr: Bun.file(`${logFile}.err`),
  });
  let readyMs: number;
  let firstAnswerMs: number | undefined;
  try {
    if (id === "cocoon") {
      readyMs = await pollUntil(child, t0, () => answersOk(`${opsUrl}/readyz`), SERVER_LABELS[id]);
      firstAnswerMs = await pollUntil(
        child,
        t0,
        () => answersProbe(baseUrl, env),
        SERVER_LABELS[id],
      );
    } else {
      readyMs = await pollUntil(child, t0, () => answersProbe(baseUrl, env), SERVER_LABELS[id]);
    }
  } catch (error) {
    child.kill("SIGKILL");
    const stderr = await Bun.file(`${logFile}.err`).text();
    throw new Error(`${error instanceof Error ? error.message : String(error)}: ${stderr}`);
  }
  return {
    id,
    pid: child.pid,
    baseUrl,
    readyMs,
    ...(firstAnswerMs === undefined ? {} : { firstAnswerMs }),
    logFile,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      const exited = await Promise.race([
        child.exited.then(() => true),
        Bun.sleep(5000).then(() => false),
      ]);
      if (!exited) {
        child.kill("SIGKILL");
        await child.exited;
      }
    },
  };
}
