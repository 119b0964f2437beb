export { eventually } from "../support/eventually";

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { WebhookProcess } from "../e2e/harness";
import { type AdmissionReviewBody, admissionReview } from "../support/admission-review";
import { createMemoryCgroup, type MemoryCgroup, uncachedCopy } from "../support/memory-cgroup";
import { anonymousRssBytes, rssBytes } from "../support/procfs";

/**
 * The chaos suite takes minutes, so it runs only when asked for by path
 * (`make chaos` runs `bun test … test/chaos`) or with CHAOS=1; a bare
 * `bun test` (as `make unit` runs it) skips it.
 */
export const CHAOS_ENABLED: boolean = (() => {
  if (process.env.CHAOS === "1") return true;
  try {
    const args = readFileSync("/proc/self/cmdline", "utf8").split("\0");
    return args.some((arg) => arg.includes("test/chaos"));
  } catch {
    return false;
  }
})();

export type Figure = string | number | boolean;

interface Section {
  readonly title: string;
  readonly rows: Record<string, Figure>;
}

const sections: Section[] = [];
const RESULTS_FILE = join(import.meta.dir, "results", "latest.json");
const startedAt = new Date().toISOString();

/** Records one section of figures, rewrites results/latest.json and prints the summary so far. */
export function recordFigures(title: string, figures: Record<string, Figure>): void {
  const rows = Object.fromEntries(
    Object.entries(figures).map(([name, value]) => [
      name,
      typeof value === "number" ? round(value) : value,
    ]),
  );
  sections.push({ title, rows });
  mkdirSync(join(import.meta.dir, "results"), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    `${JSON.stringify({ startedAt, updatedAt: new Date().toISOString(), sections }, null, 2)}\n`,
  );
  console.log(summaryTable());
}

export function summaryTable(): string {
  const lines = ["", "| Scenario | Figure | Value |", "|---|---|---|"];
  for (const { title, rows } of sections) {
    for (const [name, value] of Object.entries(rows)) {
      lines.push(`| ${title} | ${name} | ${typeof value === "number" ? round(value) : value} |`);
    }
  }
  return lines.join("\n");
}

export const round = (value: number): number => Math.round(value * 100) / 100;

/** Percentile of `values` (milliseconds), 0 when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? 0;
}

/** VmRSS of a process in KiB, from /proc. */
export function rssKib(pid: number): number {
  return rssBytes(pid) / 1024;
}

export interface Outcome {
  readonly ok: boolean;
  readonly status: number;
  readonly latencyMs: number;
  readonly startedAt: number;
  readonly error?: string;
  readonly connectionClose: boolean;
}

export interface Target {
  readonly url: string;
  readonly ca: string;
}

/** One POST through Bun's fetch (pooled keep-alive connections). */
export async function postWithFetch(
  target: Target,
  path: string,
  body: string,
  uid: string,
): Promise<Outcome> {
  const startedAt = Date.now();
  const t0 = performance.now();
  try {
    const response = await fetch(`${target.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      tls: { ca: target.ca },
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return judge(response.status, text, uid, t0, startedAt, response.headers.get("connection"));
  } catch (error) {
    return failure(error, t0, startedAt);
  }
}

/** One POST through node:https with a keep-alive Agent (Go-like pooling, no silent retry). */
export function postWithAgent(
  target: Target,
  agent: https.Agent | false,
  path: string,
  body: string,
  uid: string,
): Promise<Outcome> {
  const startedAt = Date.now();
  const t0 = performance.now();
  const { hostname, port } = new URL(target.url);
  return new Promise((resolve) => {
    const request = https.request(
      {
        host: hostname,
        port,
        path,
        method: "POST",
        agent,
        ca: target.ca,
        timeout: 10_000,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve(
            judge(
              response.statusCode ?? 0,
              Buffer.concat(chunks).toString("utf8"),
              uid,
              t0,
              startedAt,
              headerText(response.headers.connection),
            ),
          ),
        );
        response.on("error", (error) => resolve(failure(error, t0, startedAt)));
      },
    );
    request.on("timeout", () => request.destroy(new Error("client timeout")));
    request.on("error", (error) => resolve(failure(error, t0, startedAt)));
    request.end(body);
  });
}

function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(",") : value;
}

function judge(
  status: number,
  text: string,
  uid: string,
  t0: number,
  startedAt: number,
  connection: string | null,
): Outcome {
  const latencyMs = performance.now() - t0;
  const connectionClose = connection?.toLowerCase() === "close";
  if (status !== 200) {
    return { ok: false, status, latencyMs, startedAt, connectionClose, error: `HTTP ${status}` };
  }
  try {
    const answer = JSON.parse(text) as { response?: { uid?: unknown; allowed?: unknown } };
    if (answer.response?.uid !== uid || typeof answer.response.allowed !== "boolean") {
      return { ok: false, status, latencyMs, startedAt, connectionClose, error: "bad review" };
    }
  } catch {
    return { ok: false, status, latencyMs, startedAt, connectionClose, error: "not JSON" };
  }
  return { ok: true, status, latencyMs, startedAt, connectionClose };
}

function failure(error: unknown, t0: number, startedAt: number): Outcome {
  const code =
    typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  const message = error instanceof Error ? error.message : String(error);
  return {
    ok: false,
    status: 0,
    latencyMs: performance.now() - t0,
    startedAt,
    connectionClose: false,
    error: `${code} ${message}`.trim().slice(0, 120),
  };
}

/** A pod the gate lets through without looking further (no marker). */
export function plainPodReview(uid: string): string {
  return JSON.stringify(
    admissionReview({
      uid,
      name: "plain",
      username: "alice",
      object: {
        metadata: { name: "plain", namespace: "default" },
        spec: { containers: [{ name: "c", image: "nginx" }] },
      },
    }),
  );
}

export interface LoadRun {
  readonly outcomes: Outcome[];
  stop(): Promise<void>;
}

/**
 * Keep-alive clients posting plain-pod reviews to /mutate back to back until
 * stop() (or `maxMs`): `fetchClients` through Bun's fetch, `agentClients`
 * through node:https Agents with keepAlive (one Agent each, one socket).
 */
export function startKeepAliveLoad(
  target: Target,
  options: { fetchClients: number; agentClients: number; maxMs: number; pauseMs?: number },
): LoadRun {
  const outcomes: Outcome[] = [];
  let stopping = false;
  const deadline = Date.now() + options.maxMs;
  const agents: https.Agent[] = [];
  const loop = async (send: (uid: string, body: string) => Promise<Outcome>) => {
    while (!stopping && Date.now() < deadline) {
      const uid = crypto.randomUUID();
      outcomes.push(await send(uid, plainPodReview(uid)));
      if (options.pauseMs) await Bun.sleep(options.pauseMs); // deliberate: a pausing client
    }
  };
  const loops = [
    ...Array.from({ length: options.fetchClients }, () =>
      loop((uid, body) => postWithFetch(target, "/mutate", body, uid)),
    ),
    ...Array.from({ length: options.agentClients }, () => {
      const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      return loop((uid, body) => postWithAgent(target, agent, "/mutate", body, uid));
    }),
  ];
  return {
    outcomes,
    async stop() {
      stopping = true;
      await Promise.all(loops);
      for (const agent of agents) agent.destroy();
    },
  };
}

/** One POST on a brand-new TLS connection, closed afterwards (a client whose pool is busy). */
export const postOnFreshConnection = (target: Target, path: string, body: string, uid: string) =>
  postWithAgent(target, false, path, body, uid);

export interface MixedLoadOptions {
  /** Clients opening a new TLS connection per request, back to back. */
  readonly freshClients: number;
  /** Keep-alive clients posting back to back (half Bun fetch, half node:https agents). */
  readonly keepAliveClients: number;
  /** Keep-alive node:https clients pausing between requests. */
  readonly pausingClients: number;
  /** Longest pause of a pausing client; each pause is uniform in [0, pauseMaxMs]. */
  readonly pauseMaxMs: number;
  readonly maxMs: number;
}

/** The three kinds of clients a rotation must not fail, until stop() or `maxMs`. */
export function startMixedLoad(
  target: Target,
  options: MixedLoadOptions,
): LoadRun & {
  readonly kindOf: WeakMap<Outcome, string>;
} {
  const outcomes: Outcome[] = [];
  const kindOf = new WeakMap<Outcome, string>();
  let stopping = false;
  const deadline = Date.now() + options.maxMs;
  const agents: https.Agent[] = [];
  const loop = async (
    kind: string,
    send: (uid: string, body: string) => Promise<Outcome>,
    pauseMaxMs = 0,
  ) => {
    while (!stopping && Date.now() < deadline) {
      const uid = crypto.randomUUID();
      const outcome = await send(uid, plainPodReview(uid));
      kindOf.set(outcome, kind);
      outcomes.push(outcome);
      if (pauseMaxMs > 0) await Bun.sleep(Math.random() * pauseMaxMs); // deliberate: a pausing client
    }
  };
  const keepAliveAgent = () => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    return agent;
  };
  const loops = [
    ...Array.from({ length: options.freshClients }, () =>
      loop("fresh", (uid, body) => postOnFreshConnection(target, "/mutate", body, uid)),
    ),
    ...Array.from({ length: options.keepAliveClients }, (_, i) => {
      if (i % 2 === 0) {
        return loop("keep-alive", (uid, body) => postWithFetch(target, "/mutate", body, uid));
      }
      const agent = keepAliveAgent();
      return loop("keep-alive", (uid, body) => postWithAgent(target, agent, "/mutate", body, uid));
    }),
    ...Array.from({ length: options.pausingClients }, () => {
      const agent = keepAliveAgent();
      return loop(
        "pausing",
        (uid, body) => postWithAgent(target, agent, "/mutate", body, uid),
        options.pauseMaxMs,
      );
    }),
  ];
  return {
    outcomes,
    kindOf,
    async stop() {
      stopping = true;
      await Promise.all(loops);
      for (const agent of agents) agent.destroy();
    },
  };
}

export function describeFailures(outcomes: readonly Outcome[]): string[] {
  return outcomes
    .filter((outcome) => !outcome.ok)
    .map((outcome) => `${new Date(outcome.startedAt).toISOString()} ${outcome.error}`);
}

/** What maxSizeBurst saw: the large reviews' outcomes, the pod reviews' beside them, the heap's peak. */
export interface MaxSizeBurst {
  readonly big: Outcome[];
  readonly pods: Outcome[];
  readonly peakAnonymousBytes: number;
}

/** Plain pod reviews are sent this often beside the large ones. */
const POD_REVIEW_EVERY_MS = 20;

/**
 * `parallel` copies of a large CocoonSet review at once, with a plain pod
 * review posted every 20 ms until they are all answered; the process's
 * anonymous memory is sampled every 5 ms meanwhile.
 */
export async function maxSizeBurst(
  webhook: WebhookProcess,
  review: AdmissionReviewBody,
  parallel: number,
): Promise<MaxSizeBurst> {
  const target = { url: webhook.admissionUrl, ca: webhook.ca.cert };
  const body = JSON.stringify(review);
  const pods: Promise<Outcome>[] = [];
  let peakAnonymousBytes = 0;
  const sampler = setInterval(() => {
    peakAnonymousBytes = Math.max(peakAnonymousBytes, anonymousRssBytes(webhook.process.pid));
  }, 5);
  let sending = true;
  const podLoop = (async () => {
    while (sending) {
      const uid = crypto.randomUUID();
      pods.push(postWithFetch(target, "/mutate", plainPodReview(uid), uid));
      await Bun.sleep(POD_REVIEW_EVERY_MS); // deliberate: the offered rate of pod reviews
    }
  })();
  const big = await Promise.all(
    Array.from({ length: parallel }, () =>
      postWithFetch(target, "/validate-cocoonset?timeout=5s", body, review.request.uid),
    ),
  );
  sending = false;
  clearInterval(sampler);
  await podLoop;
  return { big, pods: await Promise.all(pods), peakAnonymousBytes };
}

/**
 * The binary inside a memory cgroup of `limitBytes`, run from a copy that is
 * not in the page cache (so the pages it reads are charged to it, as in a
 * container); `cleanups` gets what kills it and removes the cgroup.
 */
export async function startWebhookInMemoryCgroup(
  name: string,
  limitBytes: number,
  cleanups: (() => Promise<void> | void)[],
): Promise<{ webhook: WebhookProcess; cgroup: MemoryCgroup }> {
  const { BINARY, startWebhook } = await import("../e2e/harness");
  const cgroup = createMemoryCgroup(name, limitBytes);
  const dir = mkdtempSync(join(tmpdir(), "cocoon-chaos-binary-"));
  const binary = uncachedCopy(BINARY, join(dir, "cocoon-webhook"));
  const webhook = await startWebhook({
    wrap: cgroup.wrap,
    binary,
    env: { WEBHOOK_LOG_LEVEL: "info" },
  });
  cleanups.push(async () => {
    await webhook.stop("SIGKILL");
    cgroup.remove();
    rmSync(dir, { recursive: true, force: true });
  });
  return { webhook, cgroup };
}
