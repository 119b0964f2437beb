import { existsSync } from "node:fs";
import https from "node:https";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { createTestCa, type KeyPair, type TestCa } from "../support/certs";
import { eventually } from "../support/eventually";
import { freePort } from "../support/free-port";

/** The compiled binary; COCOON_WEBHOOK_BINARY points a run at another build (before/after figures). */
export const BINARY =
  process.env.COCOON_WEBHOOK_BINARY ?? join(import.meta.dir, "../../dist/cocoon-webhook");

if (!existsSync(BINARY)) {
  throw new Error(`${BINARY} is missing: run \`make build\` (or \`make e2e\`) first`);
}

export interface WebhookProcess {
  readonly ca: TestCa;
  readonly serving: KeyPair;
  readonly admissionUrl: string;
  readonly opsUrl: string;
  readonly process: Subprocess<"ignore", "pipe", "pipe">;
  /** Every stdout line so far (JSON log lines). */
  readonly logs: () => string[];
  /** The first log line containing `text` once it is written, undefined after `timeoutMs`. */
  logLine(text: string, timeoutMs?: number): Promise<string | undefined>;
  /** POSTs a body to an admission path over HTTPS, verifying the test CA; gives up after 10 s. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** The ops listener's /metrics text. */
  metrics(): Promise<string>;
  /** One sample's value from /metrics now, 0 when absent. */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /** Sends a signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

export interface StartOptions {
  readonly env?: Record<string, string>;
  /** Ports the env's LISTEN_ADDR/METRICS_ADDR use, when a test sets those itself. */
  readonly ports?: { readonly admission: number; readonly ops: number };
  readonly ca?: TestCa;
  readonly serving?: KeyPair;
  /** The probe that must answer 200 before the process counts as started; /readyz by default. */
  readonly startedWhen?: "/readyz" | "/healthz";
  /** A command the binary runs under, e.g. setpriv to drop privileges. */
  readonly wrap?: readonly string[];
  /** Another copy of the binary to run (BINARY by default). */
  readonly binary?: string;
}

/** Starts the compiled binary with a test CA's certificate and waits until /readyz answers. */
export async function startWebhook(options: StartOptions = {}): Promise<WebhookProcess> {
  const ca = options.ca ?? createTestCa("webhook-ca");
  const serving = options.serving ?? ca.issue(`serving-${crypto.randomUUID()}`);
  const admissionPort = options.ports?.admission ?? freePort();
  const opsPort = options.ports?.ops ?? freePort();
  const child = Bun.spawn([...(options.wrap ?? []), options.binary ?? BINARY, "serve"], {
    env: {
      PATH: process.env.PATH ?? "",
      TLS_CERT: serving.certFile,
      TLS_KEY: serving.keyFile,
      LISTEN_ADDR: `127.0.0.1:${admissionPort}`,
      METRICS_ADDR: `127.0.0.1:${opsPort}`,
      DRAIN_DELAY: "0s",
      // Tests read counters right after a request; the 1 s render cache has its own tests.
      METRICS_RENDER_INTERVAL: "0s",
      SHUTDOWN_TIMEOUT: "5s",
      WEBHOOK_LOG_LEVEL: "debug",
      ...options.env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines: string[] = [];
  const errors: string[] = [];
  collectLines(child.stdout, lines);
  const stderrRead = collectLines(child.stderr, errors);

  const admissionUrl = `https://localhost:${admissionPort}`;
  const opsUrl = `http://127.0.0.1:${opsPort}`;
  const metrics = async () => (await fetch(`${opsUrl}/metrics`)).text();
  await waitUntilReady(`${opsUrl}${options.startedWhen ?? "/readyz"}`, child, stderrRead, errors);

  return {
    ca,
    serving,
    admissionUrl,
    opsUrl,
    process: child,
    logs: () => [...lines],
    logLine: (text, timeoutMs = 5000) =>
      eventually(() => lines.find((line) => line.includes(text)), Boolean, timeoutMs),
    post: (path, body, headers = {}) =>
      fetch(`${admissionUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
        tls: { ca: ca.cert },
        signal: AbortSignal.timeout(10_000),
      }),
    metrics,
    metric: async (name, labels) => sampleValue(await metrics(), name, labels),
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null) child.kill(signal);
      return child.exited;
    },
  };
}

async function collectLines(stream: ReadableStream<Uint8Array>, into: string[]): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    const complete = pending.split("\n");
    pending = complete.pop() ?? "";
    into.push(...complete.filter(Boolean));
  }
}

async function waitUntilReady(
  probeUrl: string,
  child: Subprocess,
  stderrRead: Promise<void>,
  stderr: string[],
): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      await stderrRead;
      throw new Error(
        `cocoon-webhook exited with ${child.exitCode} before becoming ready: ${stderr.join("\n")}`,
      );
    }
    try {
      if ((await fetch(probeUrl)).status === 200) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(20); // the poll interval
  }
  throw new Error("cocoon-webhook did not become ready within 10 s");
}

/** The value of one sample in Prometheus text exposition, or 0 when absent. */
export function sampleValue(
  metricsText: string,
  name: string,
  labels: Record<string, string> = {},
): number {
  for (const line of metricsText.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = /^([^{\s]+)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => present[key] === value))
      return Number(match[3]);
  }
  return 0;
}

export interface ReviewAnswer {
  apiVersion: string;
  kind: string;
  response: {
    uid: string;
    allowed: boolean;
    patch?: string;
    status?: { code: number; reason: string; message: string };
    warnings?: string[];
    auditAnnotations?: Record<string, string>;
  };
}

export const readReview = async (response: Response) => (await response.json()) as ReviewAnswer;
export const readError = async (response: Response) =>
  (await response.json()) as { error: string; details?: string[] };

/**
 * Starts a POST whose body is held back after its first bytes until `finish()`:
 * in flight from the server's point of view. `answered` resolves with status 0
 * when the connection fails.
 */
export function holdRequest(webhook: WebhookProcess, body: string, path = "/mutate") {
  const { hostname, port } = new URL(webhook.admissionUrl);
  let finish = () => {};
  const answered = new Promise<{ status: number; body: string }>((resolve) => {
    const request = https.request(
      {
        host: hostname,
        port,
        path,
        method: "POST",
        ca: webhook.ca.cert,
        agent: false,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        let text = "";
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on("error", (error) => resolve({ status: 0, body: error.message }));
    request.write(body.slice(0, 10));
    request.flushHeaders();
    finish = () => request.end(body.slice(10));
  });
  return { answered, finish: () => finish() };
}
