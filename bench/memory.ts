/**
 * Where the memory goes, and what a build or runtime option changes about it:
 * servers compiled exactly as the shipped binary is (lib/compile.ts, the same
 * embedded runtime), each started
 * fresh, measured at ready and after a bounded common-case load, in rounds
 * that alternate the variants (A, B, A, B …; medians reported).
 *
 *   bun bench/memory.ts [--requests N] [--rounds R] [--scenario ID] [--probe] [--paced S] VARIANT…
 *
 * VARIANT is `label=server[;build flag…][;!flag left out…][;ENV=value…]`, server one of cocoon
 * (src/main.ts serve), floor (bench/floor.ts), design (bench/design-floor.ts),
 * or `@PATH`, a cocoon-webhook binary built elsewhere (an earlier revision);
 * for example `cocoon`, `smol=cocoon;--compile-exec-argv=--smol`, `one-bundle=cocoon;!--splitting`,
 * `before=@/tmp/cocoon-webhook-main`.
 * With --probe each build also carries bench/lib/memory-probe-hook.ts and
 * reports its JavaScript heap at ready and after the load (the report
 * collects the heap, so a probe's later figures are not a clean run's).
 *
 * Per process, from /proc/PID/smaps: the binary's file pages (clean, shared
 * with the page cache and reclaimable) and its dirtied pages, other files
 * (libc), JIT code (anonymous executable mappings), the brk heap, and the
 * other anonymous memory (the JavaScript heap, mimalloc, stacks); start →
 * ready, and CPU per request and req/s of the load with the stolen share.
 * With --paced S, each server then takes a paced turn of S seconds at the
 * tail goal's 2 000 req/s: its p99.9, judged as `make bench` judges the tail
 * (the median over turns quiet enough, lib/fixed-rate.ts), so that a runtime
 * option (a `BUN_JSC_*` variable, which a compiled binary reads only from its
 * environment) is A/B'd for the collector's pauses in the same alternating
 * rounds as for memory.
 * Figures to read, never assertions.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { createTestCa } from "../test/support/certs";
import { freePort } from "../test/support/free-port";
import {
  MIB,
  machineCpu,
  peakRssBytes,
  processCpuSeconds,
  rssBytes,
  stolenShare,
} from "../test/support/procfs";
import { compileLikeTheWebhook } from "./lib/compile";
import { delayFor, QUIET_TURN_STOLEN_SHARE, TAIL_GOAL_RATE } from "./lib/fixed-rate";
import { answersOk } from "./lib/servers";
import { median } from "./lib/statistics";
import { ensureWrk, runWrk, writeLuaScript } from "./lib/wrk";
import { buildScenarios } from "./payloads";

const REPO = join(import.meta.dir, "..");
const KIB = 1024;
const ENTRIES = {
  cocoon: { module: "src/main.ts", args: ["serve"] },
  floor: { module: "bench/floor.ts", args: [] },
  design: { module: "bench/design-floor.ts", args: [] },
} as const;
type ServerKind = keyof typeof ENTRIES;

interface Variant {
  readonly label: string;
  readonly server: ServerKind;
  readonly prebuilt?: string;
  readonly buildFlags: readonly string[];
  readonly withoutFlags: readonly string[];
  readonly env: Record<string, string>;
}

function parseVariant(text: string): Variant {
  const [head = "", ...rest] = text.split(";");
  const [label = "", server = label] = head.includes("=") ? head.split("=", 2) : [head, head];
  const prebuilt = server.startsWith("@") ? server.slice(1) : undefined;
  if (!label || !(prebuilt || server in ENTRIES))
    throw new Error(`memory: unknown server in "${text}"`);
  const env: Record<string, string> = {};
  const buildFlags: string[] = [];
  const withoutFlags: string[] = [];
  for (const part of rest) {
    const assignment = /^([A-Z][A-Za-z0-9_]*)=(.*)$/.exec(part);
    if (assignment?.[1] !== undefined) env[assignment[1]] = assignment[2] ?? "";
    else if (part.startsWith("!")) withoutFlags.push(part.slice(1));
    else buildFlags.push(part);
  }
  if (prebuilt) return { label, server: "cocoon", prebuilt, buildFlags, withoutFlags, env };
  return { label, server: server as ServerKind, buildFlags, withoutFlags, env };
}

/** Resident memory of one process by where it comes from, in bytes. */
interface Composition {
  readonly rss: number;
  readonly pssAnon: number;
  readonly pssFile: number;
  /** Pages of the executable read from its file: runtime code, its data, the embedded bundle. */
  readonly binaryClean: number;
  /** Pages of the executable's writable sections the process has written (anonymous now). */
  readonly binaryDirty: number;
  readonly otherFiles: number;
  readonly jitCode: number;
  readonly brkHeap: number;
  readonly otherAnon: number;
}

function composition(pid: number): Composition {
  const exe = realpathSync(`/proc/${pid}/exe`);
  const totals = {
    binaryClean: 0,
    binaryDirty: 0,
    otherFiles: 0,
    jitCode: 0,
    brkHeap: 0,
    otherAnon: 0,
  };
  let path = "";
  let executable = false;
  let rss = 0;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ (\S{4}) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (mapping) {
      executable = mapping[1]?.includes("x") ?? false;
      path = mapping[2] ?? "";
      continue;
    }
    const field = /^(Rss|Anonymous):\s+(\d+) kB$/.exec(line);
    if (!field) continue;
    const bytes = Number(field[2]) * KIB;
    if (field[1] === "Rss") {
      rss = bytes;
      continue;
    }
    const clean = rss - bytes;
    if (path === exe) {
      totals.binaryClean += clean;
      totals.binaryDirty += bytes;
    } else if (path.startsWith("/")) {
      totals.otherFiles += rss;
    } else if (path === "[heap]") {
      totals.brkHeap += rss;
    } else if (executable) {
      totals.jitCode += rss;
    } else {
      totals.otherAnon += rss;
    }
  }
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const rollupField = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(rollup)?.[1] ?? Number.NaN) * KIB;
  return {
    rss: rssBytes(pid),
    pssAnon: rollupField("Pss_Anon"),
    pssFile: rollupField("Pss_File"),
    ...totals,
  };
}

interface HeapReport {
  readonly heap: { heapSize: number; heapCapacity: number; objectCount: number };
  readonly fullCollectionMs: number;
  readonly afterFullCollection: { heapSize: number; heapCapacity: number };
}

interface Sample {
  readonly variant: string;
  readonly readyMs: number;
  readonly atReady: Composition;
  readonly afterLoad: Composition;
  readonly heapAtReady?: HeapReport;
  readonly heapAfterLoad?: HeapReport;
  /** With --probe: after the probe's full collection that follows the load. */
  readonly afterCollection?: Composition;
  readonly peakRss: number;
  readonly requests: number;
  readonly errors: number;
  readonly requestsPerSecond: number;
  readonly cpuMsPerRequest: number;
  readonly stolenShare: number;
  /** With --paced: the paced turn's tail, and whether the turn was quiet enough to judge it. */
  readonly paced?: { readonly p99Us: number; readonly p999Us: number; readonly quiet: boolean };
}

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const requests = argument("--requests", 200_000);
const rounds = argument("--rounds", 3);
const probe = process.argv.includes("--probe");
const pacedSeconds = argument("--paced", 0);
const scenarioIndex = process.argv.indexOf("--scenario");
const scenarioId = scenarioIndex === -1 ? "pod-common" : process.argv[scenarioIndex + 1];
const variants = process.argv
  .slice(2)
  .filter(
    (each, index, all) =>
      !each.startsWith("--") && !/^--(requests|rounds|scenario|paced)$/.test(all[index - 1] ?? ""),
  )
  .map(parseVariant);
if (variants.length === 0) variants.push(parseVariant("cocoon"), parseVariant("floor"));

ensureWrk();
const workDir = mkdtempSync(join(tmpdir(), "cocoon-memory-"));
const ca = createTestCa("cocoon-memory-ca");
const serving = ca.issue("serving");
const scenarios = buildScenarios();
const scenario = scenarios.find((each) => each.id === scenarioId);
if (scenario === undefined) throw new Error(`memory: no scenario ${scenarioId}`);
const { body, path: reviewPath } = scenario;
const bodyFile = join(workDir, "review.json");
writeFileSync(bodyFile, body);
const script = writeLuaScript(workDir);

function build(variant: Variant, index: number): string {
  if (variant.prebuilt) return variant.prebuilt;
  const entry = join(workDir, `entry-${index}.ts`);
  const hook = probe
    ? `import ${JSON.stringify(join(REPO, "bench/lib/memory-probe-hook.ts"))};\n`
    : "";
  writeFileSync(
    entry,
    `${hook}import ${JSON.stringify(join(REPO, ENTRIES[variant.server].module))};\n`,
  );
  return compileLikeTheWebhook(entry, join(workDir, `server-${index}`), {
    cwd: REPO,
    extraFlags: variant.buildFlags,
    without: variant.withoutFlags,
  });
}

async function heapReport(child: Subprocess, file: string, count: number): Promise<HeapReport> {
  child.kill("SIGUSR2");
  for (let waited = 0; waited < 5000; waited += 20) {
    await Bun.sleep(20);
    const lines = (await Bun.file(file).exists())
      ? readFileSync(file, "utf8").trim().split("\n")
      : [];
    if (lines.length >= count) return JSON.parse(lines[count - 1] ?? "") as HeapReport;
  }
  throw new Error("memory: the probe wrote no heap report");
}

async function measure(variant: Variant, binary: string, round: number): Promise<Sample> {
  const port = freePort();
  const opsPort = freePort();
  const reportFile = join(workDir, `${variant.label}-${round}.heap`);
  const url = `https://127.0.0.1:${port}${reviewPath}?timeout=5s`;
  const started = performance.now();
  const child = Bun.spawn([binary, ...ENTRIES[variant.server].args], {
    env: {
      PATH: process.env.PATH ?? "",
      TLS_CERT: serving.certFile,
      TLS_KEY: serving.keyFile,
      LISTEN_PORT: String(port),
      LISTEN_ADDR: `127.0.0.1:${port}`,
      METRICS_ADDR: `127.0.0.1:${opsPort}`,
      DRAIN_DELAY: "0s",
      MEMORY_PROBE_OUT: reportFile,
      ...variant.env,
    },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  const ready =
    variant.server === "cocoon"
      ? () => answersOk(`http://127.0.0.1:${opsPort}/readyz`)
      : () =>
          answersOk(url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
            tls: { ca: ca.cert },
          });
  while (!(await ready())) {
    if (child.exitCode !== null) throw new Error(`${variant.label} exited before ready`);
    if (performance.now() - started > 15_000) throw new Error(`${variant.label}: not ready`);
    await Bun.sleep(2);
  }
  const readyMs = performance.now() - started;
  await Bun.sleep(500);
  const atReady = composition(child.pid);
  const heapAtReady = probe ? await heapReport(child, reportFile, 1) : undefined;
  const cpuBefore = processCpuSeconds(child.pid);
  const machineBefore = machineCpu();
  const load = { url, bodyFile, connections: 32, durationSeconds: 120 };
  // --requests 0: start → ready and the memory at ready only.
  const halves =
    requests > 0
      ? [
          await runWrk(script, { ...load, requestLimit: requests / 2 }),
          await runWrk(script, { ...load, requestLimit: requests / 2 }),
        ]
      : [];
  const machineAfter = machineCpu();
  const cpuSeconds = processCpuSeconds(child.pid) - cpuBefore;
  if (requests > 0) await Bun.sleep(500);
  const afterLoad = composition(child.pid);
  const paced = pacedSeconds > 0 ? await pacedTurn(url) : undefined;
  const peakRss = peakRssBytes(child.pid);
  const heapAfterLoad = probe ? await heapReport(child, reportFile, 2) : undefined;
  const afterCollection = probe ? composition(child.pid) : undefined;
  child.kill("SIGTERM");
  await child.exited;
  const served = halves.reduce((sum, half) => sum + half.requests, 0);
  const seconds = halves.reduce((sum, half) => sum + half.durationUs / 1e6, 0);
  return {
    variant: variant.label,
    readyMs,
    atReady,
    afterLoad,
    ...(heapAtReady ? { heapAtReady } : {}),
    ...(heapAfterLoad ? { heapAfterLoad } : {}),
    ...(afterCollection ? { afterCollection } : {}),
    peakRss,
    requests: served,
    errors: halves.reduce((sum, half) => sum + half.errors, 0),
    requestsPerSecond: served / seconds,
    cpuMsPerRequest: (cpuSeconds * 1000) / served,
    stolenShare: stolenShare(machineBefore, machineAfter),
    ...(paced ? { paced } : {}),
  };
}

/** One turn at the tail goal's rate, as `make bench`'s fixed-rate phase runs it. */
async function pacedTurn(url: string): Promise<NonNullable<Sample["paced"]>> {
  const before = machineCpu();
  const run = await runWrk(script, {
    url,
    bodyFile,
    connections: TAIL_GOAL_RATE.connections,
    durationSeconds: pacedSeconds,
    delayMs: delayFor(TAIL_GOAL_RATE),
  });
  const stolen = stolenShare(before, machineCpu());
  return { p99Us: run.p99Us, p999Us: run.p999Us, quiet: stolen <= QUIET_TURN_STOLEN_SHARE };
}

const binaries = variants.map(build);
const samples: Sample[] = [];
for (let round = 0; round < rounds; round++) {
  // Rotate who goes first, so no variant always follows the same one.
  for (let offset = 0; offset < variants.length; offset++) {
    const index = (round + offset) % variants.length;
    const variant = variants[index] as Variant;
    const sample = await measure(variant, binaries[index] as string, round);
    console.error(
      `${variant.label} round ${round + 1}: ready ${sample.readyMs.toFixed(0)} ms, RSS ${(sample.atReady.rss / MIB).toFixed(1)} → ${(sample.afterLoad.rss / MIB).toFixed(1)} MiB` +
        (requests > 0
          ? `, ${sample.requestsPerSecond.toFixed(0)} req/s, ${(sample.stolenShare * 100).toFixed(1)} % stolen`
          : "") +
        (sample.paced
          ? `; paced p99.9 ${(sample.paced.p999Us / 1000).toFixed(2)} ms (${sample.paced.quiet ? "quiet" : "not quiet"})`
          : ""),
    );
    samples.push(sample);
  }
}

const mib = (bytes: number) => (bytes / MIB).toFixed(1);
const rows: [string, (sample: Sample) => number | undefined, (value: number) => string][] = [
  ["start → ready, ms", (s) => s.readyMs, (v) => v.toFixed(0)],
  ["RSS at ready, MiB", (s) => s.atReady.rss, mib],
  ["RSS after the load, MiB", (s) => s.afterLoad.rss, mib],
  ["peak RSS, MiB", (s) => s.peakRss, mib],
  ["  Pss_Anon after the load", (s) => s.afterLoad.pssAnon, mib],
  ["  Pss_File after the load", (s) => s.afterLoad.pssFile, mib],
  ["  the binary's file pages", (s) => s.afterLoad.binaryClean, mib],
  ["  the binary's dirtied pages", (s) => s.afterLoad.binaryDirty, mib],
  ["  other files (libc …)", (s) => s.afterLoad.otherFiles, mib],
  ["  JIT code", (s) => s.afterLoad.jitCode, mib],
  ["  brk heap (malloc)", (s) => s.afterLoad.brkHeap, mib],
  ["  other anonymous (JS heap, mimalloc, stacks)", (s) => s.afterLoad.otherAnon, mib],
  ["anonymous at ready (Pss_Anon)", (s) => s.atReady.pssAnon, mib],
  ["  JIT code at ready", (s) => s.atReady.jitCode, mib],
  ["JS heap at ready", (s) => s.heapAtReady?.heap.heapSize, mib],
  ["JS heap capacity at ready", (s) => s.heapAtReady?.heap.heapCapacity, mib],
  ["  after a full collection", (s) => s.heapAtReady?.afterFullCollection.heapSize, mib],
  ["  that full collection took, ms", (s) => s.heapAtReady?.fullCollectionMs, (v) => v.toFixed(1)],
  ["JS heap capacity after the load", (s) => s.heapAfterLoad?.heap.heapCapacity, mib],
  ["  after a full collection", (s) => s.heapAfterLoad?.afterFullCollection.heapSize, mib],
  [
    "  that full collection took, ms",
    (s) => s.heapAfterLoad?.fullCollectionMs,
    (v) => v.toFixed(1),
  ],
  ["anonymous after that collection", (s) => s.afterCollection?.pssAnon, mib],
  ["req/s of the load", (s) => s.requestsPerSecond, (v) => v.toFixed(0)],
  ["CPU ms per request", (s) => s.cpuMsPerRequest, (v) => v.toFixed(4)],
  ["stolen during the load, %", (s) => s.stolenShare * 100, (v) => v.toFixed(1)],
  [
    "paced 2 000 req/s: p99.9 of quiet turns, ms",
    (s) => (s.paced?.quiet ? s.paced.p999Us / 1000 : undefined),
    (v) => v.toFixed(2),
  ],
  [
    "  p99 of quiet turns, ms",
    (s) => (s.paced?.quiet ? s.paced.p99Us / 1000 : undefined),
    (v) => v.toFixed(2),
  ],
];
const labels = variants.map((variant) => variant.label);
const lines = [
  `${rounds} rounds of ${requests} ${scenarioId} requests (32 connections); medians (min–max)`,
  "",
  `| | ${labels.join(" | ")} |`,
  `|---|${labels.map(() => "---:").join("|")}|`,
];
for (const [title, read, format] of rows) {
  const cells = labels.map((label) => {
    const values = samples
      .filter((sample) => sample.variant === label)
      .map(read)
      .filter((value): value is number => value !== undefined && Number.isFinite(value));
    if (values.length === 0) return "–";
    return `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
  });
  if (cells.some((cell) => cell !== "–")) lines.push(`| ${title} | ${cells.join(" | ")} |`);
}
console.log(lines.join("\n"));
writeFileSync(
  join(REPO, "bench/results/memory-latest.json"),
  `${JSON.stringify(samples, null, 2)}\n`,
);
rmSync(workDir, { recursive: true, force: true });
