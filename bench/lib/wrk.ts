/**
 * The load client: wrk (one thread, keep-alive, TLS without certificate
 * verification), a Lua script that POSTs a body from a file and prints its
 * figures as JSON from the `done()` hook.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type LatencyHistogram, parseHistogram } from "./latency-histogram";

const RESULT_MARKER = "BENCH_RESULT ";
const LIMIT_MARKER = "BENCH_LIMIT_REACHED";
const HISTOGRAM_MARKER = "BENCH_HISTOGRAM ";

const LUA_SCRIPT = `-- Written by bench/lib/wrk.ts.
local file = assert(io.open(os.getenv("BENCH_BODY_FILE"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"

-- Fixed rate (the tail-latency phase): each connection waits BENCH_DELAY_MS after
-- every response before its next request, so connections / delay bounds the rate
-- and the server is never saturated.
local delay_ms = tonumber(os.getenv("BENCH_DELAY_MS") or "0") or 0
if delay_ms > 0 then
  delay = function() return delay_ms end
end

-- A request budget per thread (the memory phase): after that many responses the
-- thread stops and says so; bench/lib/wrk.ts then sends SIGINT, which ends wrk's
-- main sleep early and prints the summary.
local limit = tonumber(os.getenv("BENCH_LIMIT") or "0") or 0
if limit > 0 then
  local count = 0
  response = function(status, headers, body)
    count = count + 1
    if count == limit then
      io.write("${LIMIT_MARKER}\\n")
      io.flush()
      wrk.thread:stop()
    end
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '${RESULT_MARKER}{"requests":%d,"durationUs":%d,"bytes":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"statusErrors":%d,"timeouts":%d,"p50Us":%d,"p90Us":%d,"p99Us":%d,"p999Us":%d,"maxUs":%d,"meanUs":%.1f}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.max, latency.mean))
  -- Every latency wrk recorded, as microseconds:count pairs, so runs can be merged.
  if os.getenv("BENCH_HISTOGRAM") == "1" then
    local entries = {}
    for i = 1, #latency do
      local value, count = latency(i)
      entries[#entries + 1] = string.format("%d:%d", value, count)
    end
    io.write("${HISTOGRAM_MARKER}" .. table.concat(entries, ",") .. "\\n")
  end
end
`;

export interface WrkFigures {
  readonly requests: number;
  readonly durationUs: number;
  readonly bytes: number;
  readonly connectErrors: number;
  readonly readErrors: number;
  readonly writeErrors: number;
  /** Responses with status ≥ 400. */
  readonly statusErrors: number;
  readonly timeouts: number;
  readonly p50Us: number;
  readonly p90Us: number;
  readonly p99Us: number;
  readonly p999Us: number;
  readonly maxUs: number;
  readonly meanUs: number;
}

export interface WrkRun extends WrkFigures {
  /** Every latency recorded (microseconds → responses), when asked for with `histogram`. */
  readonly histogram?: LatencyHistogram;
  readonly requestsPerSecond: number;
  readonly errors: number;
  /** CPU seconds wrk itself used (user + system). */
  readonly clientCpuSeconds: number;
}

export interface WrkOptions {
  readonly url: string;
  readonly bodyFile: string;
  readonly connections: number;
  readonly durationSeconds: number;
  /** Stop after this many responses (per thread; wrk runs one thread). */
  readonly requestLimit?: number;
  /** Each connection pauses this many milliseconds after each response (fixed-rate load). */
  readonly delayMs?: number;
  /** Return every recorded latency too, so that several runs can be merged. */
  readonly histogram?: boolean;
}

/** Installs wrk with apt-get when it is missing (we are root on the bench machines). */
export function ensureWrk(): void {
  if (Bun.which("wrk")) return;
  console.error("bench: wrk is missing, installing it with apt-get …");
  const install = () =>
    Bun.spawnSync(["apt-get", "install", "-y", "wrk"], {
      stdout: "ignore",
      stderr: "pipe",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  if (install().exitCode !== 0) {
    Bun.spawnSync(["apt-get", "update"], { stdout: "ignore", stderr: "ignore" });
    const retry = install();
    if (retry.exitCode !== 0)
      throw new Error(`apt-get install wrk failed: ${retry.stderr.toString()}`);
  }
  if (!Bun.which("wrk")) throw new Error("wrk is still missing after apt-get install");
}

export function wrkVersion(): string {
  const run = Bun.spawnSync(["wrk", "--version"], { stdout: "pipe", stderr: "pipe" });
  const first = `${run.stdout.toString()}${run.stderr.toString()}`.split("\n")[0] ?? "unknown";
  return first.replace(/\s*Copyright.*$/, "").trim();
}

export function writeLuaScript(dir: string): string {
  const path = join(dir, "post.lua");
  writeFileSync(path, LUA_SCRIPT);
  return path;
}

function microseconds(value: bigint | undefined): number {
  return value === undefined ? 0 : Number(value) / 1e6;
}

/** All of wrk's stdout; calls `onLimit` as soon as the request-budget marker appears. */
async function readStdout(
  stream: ReadableStream<Uint8Array>,
  onLimit: () => void,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let signalled = false;
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    if (!signalled && text.includes(LIMIT_MARKER)) {
      signalled = true;
      onLimit();
    }
  }
  return text;
}

export async function runWrk(script: string, options: WrkOptions): Promise<WrkRun> {
  const child = Bun.spawn(
    [
      "wrk",
      "-t1",
      `-c${options.connections}`,
      `-d${options.durationSeconds}s`,
      "--timeout",
      "5s",
      "-s",
      script,
      options.url,
    ],
    {
      stdout: "pipe",
      stderr: "pipe",
      env: {
        ...process.env,
        BENCH_BODY_FILE: options.bodyFile,
        BENCH_LIMIT: String(options.requestLimit ?? 0),
        BENCH_DELAY_MS: String(options.delayMs ?? 0),
        BENCH_HISTOGRAM: options.histogram ? "1" : "0",
      },
    },
  );
  const [stdout, stderr] = await Promise.all([
    readStdout(child.stdout, () => child.kill("SIGINT")),
    new Response(child.stderr).text(),
  ]);
  await child.exited;
  const line = stdout.split("\n").find((each) => each.startsWith(RESULT_MARKER));
  if (!line) throw new Error(`wrk printed no result (exit ${child.exitCode}): ${stdout}${stderr}`);
  const figures = JSON.parse(line.slice(RESULT_MARKER.length)) as WrkFigures;
  const histogramLine = stdout.split("\n").find((each) => each.startsWith(HISTOGRAM_MARKER));
  if (options.histogram && !histogramLine)
    throw new Error(`wrk printed no latency histogram: ${stdout}${stderr}`);
  const usage = child.resourceUsage();
  return {
    ...figures,
    ...(histogramLine
      ? { histogram: parseHistogram(histogramLine.slice(HISTOGRAM_MARKER.length)) }
      : {}),
    requestsPerSecond: figures.requests / (figures.durationUs / 1e6),
    errors:
      figures.connectErrors +
      figures.readErrors +
      figures.writeErrors +
      figures.statusErrors +
      figures.timeouts,
    clientCpuSeconds: microseconds(usage?.cpuTime.user) + microseconds(usage?.cpuTime.system),
  };
}
