/**
 * `make bench`: cocoon-webhook side by side with two floors — the bare floor
 * (a Bun.serve TLS server that only JSON.parses) and the design floor (a Hono
 * app running exactly the review routes' middleware, then a fixed allow) —
 * and a peer (the same webhook written the usual way on Node: Hono +
 * @hono/node-server + full zod schemas), under one
 * load client (wrk, one thread), the same payloads and the same connection
 * count. Figures to read, never assertions: see bench/README.md.
 *
 *   bun bench/run.ts                 full run, writes bench/results/latest.json
 *   bun bench/run.ts --reference     also writes bench/results/reference.json
 *                                    (or `make bench BENCH_REFERENCE=1`)
 *   bun bench/run.ts --table FILE    prints the tables of a results file again
 *
 * Environment: BENCH_WARMUP_S (5), BENCH_DURATION_S (5 per round), BENCH_ROUNDS (2),
 * BENCH_CONNECTIONS (32),
 * BENCH_MEMORY_REQUESTS (200000), BENCH_STARTS (5 start-to-ready samples per server),
 * BENCH_FIXED_RATE_S (70: each server's time at 2 000 req/s in 10 s turns; a seventh of
 * it at 10 000), BENCH_SCENARIOS (all; a comma-separated list of scenario ids to measure,
 * for a quick look at one of them), BENCH_COCOON_BINARY
 * (dist/cocoon-webhook; another build, such as an earlier revision's, for before/after figures),
 * BENCH_GO_ORIGINAL_BINARY (unset; the Go original's binary, which then takes part in the
 * closed-loop scenarios).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestCa } from "../test/support/certs";
import { startFakeApiserver } from "../test/support/fake-apiserver";
import {
  anonymousRssBytes,
  coresBusy,
  describeMachine,
  MIB,
  machineCpu,
  peakRssBytes,
  processCpuSeconds,
  rssBytes,
} from "../test/support/procfs";
import { compileLikeTheWebhook } from "./lib/compile";
import {
  FIXED_RATES,
  type FixedRateResult,
  fixedRatePhase,
  type GcProbeResult,
  gcProbe,
  TAIL_GOAL_RATE,
} from "./lib/fixed-rate";
import {
  compareWithGoOriginal,
  evaluateGoals,
  type MemoryResult,
  type Results,
  renderReport,
  type ScenarioResult,
} from "./lib/report";
import {
  artefactBytes,
  type RunningServer,
  SERVER_LABELS,
  type ServerEnvironment,
  type ServerId,
  startServer,
} from "./lib/servers";
import { median } from "./lib/statistics";
import { validatorThroughput } from "./lib/validator";
import { ensureWrk, runWrk, writeLuaScript, wrkVersion } from "./lib/wrk";
import {
  buildScenarios,
  existingHibernations,
  HIBERNATION_NAMESPACE,
  parentDeployment,
  type Scenario,
} from "./payloads";

const REPO = join(import.meta.dir, "..");
const RESULTS_DIR = join(import.meta.dir, "results");
/** The Go original's binary: measured beside the others when given. */
const GO_ORIGINAL_BINARY = process.env.BENCH_GO_ORIGINAL_BINARY || undefined;
const SERVERS: readonly ServerId[] = [
  "floor",
  "design",
  "cocoon",
  "peer",
  ...(GO_ORIGINAL_BINARY ? (["go"] as const) : []),
];
/** The floors answer every review with a fixed allow. */
const FLOORS: ReadonlySet<ServerId> = new Set(["floor", "design"]);
/** The servers of the tail-latency phase: the webhook and both floors. */
const TAIL_SERVERS: readonly ServerId[] = ["floor", "design", "cocoon"];
/** How long bench/gc-host.ts is driven at 2 000 req/s. */
const GC_PROBE_SECONDS = 10;
/**
 * The memory phase reads RSS this long after ready and after each half (as
 * bench/memory.ts does), once the last responses are out and the collector
 * that was running under the load has finished.
 */
const MEMORY_SETTLE_MS = 500;
/** Upper bound on each half of the memory phase. */
const MEMORY_PHASE_BOUND_SECONDS = 120;

function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

/** The webhook binary measured: BENCH_COCOON_BINARY, or this checkout's build. */
const COCOON_BINARY = process.env.BENCH_COCOON_BINARY || join(REPO, "dist/cocoon-webhook");

const settings = {
  warmupSeconds: numberFromEnv("BENCH_WARMUP_S", 5),
  durationSeconds: numberFromEnv("BENCH_DURATION_S", 5),
  rounds: numberFromEnv("BENCH_ROUNDS", 2),
  connections: numberFromEnv("BENCH_CONNECTIONS", 32),
  memoryRequests: numberFromEnv("BENCH_MEMORY_REQUESTS", 200_000),
  starts: numberFromEnv("BENCH_STARTS", 5),
  fixedRateSeconds: numberFromEnv("BENCH_FIXED_RATE_S", 70),
};

/** The peer implements the routes of its time; it has no CocoonHibernation handler. */
const PEER_SCENARIOS = new Set([
  "pod-common",
  "pod-gated",
  "scale-down",
  "cocoonset-10",
  "pod-1mb",
]);

function log(message: string): void {
  console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

async function verdictOf(
  server: RunningServer,
  scenario: Scenario,
  caPem: string,
): Promise<boolean | string> {
  const response = await fetch(`${server.baseUrl}${scenario.path}?timeout=5s`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: scenario.body,
    tls: { ca: caPem },
  });
  const text = await response.text();
  if (response.status !== 200) return `HTTP ${response.status}: ${text.slice(0, 200)}`;
  const review = JSON.parse(text) as { response?: { allowed?: unknown } };
  return review.response?.allowed === true;
}

function nodeVersion(): string {
  return Bun.spawnSync(["node", "--version"], { stdout: "pipe" }).stdout.toString().trim();
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const tableIndex = args.indexOf("--table");
  if (tableIndex >= 0) {
    const file = args[tableIndex + 1];
    if (!file) throw new Error("--table needs a results file");
    console.log(renderReport(JSON.parse(readFileSync(file, "utf8")) as Results));
    return;
  }
  const writeReference = args.includes("--reference") || process.env.BENCH_REFERENCE === "1";
  const machine = describeMachine();
  const began = performance.now();
  ensureWrk();

  const workDir = mkdtempSync(join(tmpdir(), "cocoon-bench-"));
  const ca = createTestCa("bench-ca");
  const serving = ca.issue("serving");
  const apiserver = await startFakeApiserver();
  const parent = parentDeployment();
  apiserver.setWorkload(parent.resource, parent.namespace, parent.name, parent.object);
  apiserver.setHibernations(HIBERNATION_NAMESPACE, existingHibernations());
  const apiserverCaFile = join(workDir, "apiserver-ca.crt");
  writeFileSync(apiserverCaFile, apiserver.ca.cert);

  const only = process.env.BENCH_SCENARIOS?.split(",").filter(Boolean);
  const scenarios = buildScenarios().filter((scenario) => !only || only.includes(scenario.id));
  const bodyFiles = new Map<string, string>();
  for (const scenario of scenarios) {
    const file = join(workDir, `${scenario.id}.json`);
    writeFileSync(file, scenario.body);
    bodyFiles.set(scenario.id, file);
  }
  const script = writeLuaScript(workDir);
  const peerBundle = join(workDir, "peer", "peer.mjs");
  mkdirSync(join(workDir, "peer"));
  const bundled = Bun.spawnSync(
    [
      process.execPath,
      "build",
      join(REPO, "bench/peer/server.ts"),
      "--target=node",
      "--outfile",
      peerBundle,
    ],
    { stdout: "pipe", stderr: "pipe", cwd: REPO },
  );
  if (bundled.exitCode !== 0)
    throw new Error(`bundling the peer failed: ${bundled.stderr.toString()}`);

  const env: ServerEnvironment = {
    repo: REPO,
    bun: process.execPath,
    workDir,
    ca,
    serving,
    kubeconfigPath: apiserver.kubeconfigPath,
    apiserverUrl: apiserver.url,
    apiserverCaFile,
    apiserverToken: apiserver.token,
    probeBodyFile: bodyFiles.get("pod-common") ?? "",
    peerBundle,
    cocoonBinary: COCOON_BINARY,
    ...(GO_ORIGINAL_BINARY ? { goOriginalBinary: GO_ORIGINAL_BINARY } : {}),
    compiledFloor: compileLikeTheWebhook(join(REPO, "bench/floor.ts"), join(workDir, "floor"), {
      cwd: REPO,
    }),
  };

  const running = new Map<ServerId, RunningServer>();
  const cleanup = async () => {
    await Promise.all([...running.values()].map((server) => server.stop()));
    await apiserver.stop();
  };

  /** One measured wrk run with the CPU split and RSS around it. */
  async function measure(
    server: RunningServer,
    load: { url: string; bodyFile: string; connections: number },
  ) {
    const cpuBefore = processCpuSeconds(server.pid);
    const benchCpuBefore = process.cpuUsage();
    const machineBefore = machineCpu();
    apiserver.requests.length = 0;
    apiserver.resetConnectionCount();
    const run = await runWrk(script, { ...load, durationSeconds: settings.durationSeconds });
    const machineAfter = machineCpu();
    const apiserverSeen = {
      calls: apiserver.requests.length,
      connections: apiserver.connectionsSeen,
    };
    const seconds = run.durationUs / 1e6;
    const serverCpu = processCpuSeconds(server.pid) - cpuBefore;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    return {
      wrk: run,
      serverCpuCores: serverCpu / seconds,
      clientCpuCores: run.clientCpuSeconds / seconds,
      harnessCpuCores: (benchCpu.user + benchCpu.system) / 1e6 / seconds,
      machineCpuCores: coresBusy(machineBefore, machineAfter, machine.nproc),
      serverCpuMsPerRequest: run.requests > 0 ? (serverCpu * 1000) / run.requests : Number.NaN,
      rssAfterBytes: rssBytes(server.pid),
      ...(server.id === "cocoon" ? { apiserver: apiserverSeen } : {}),
    };
  }

  async function memoryPhase(id: ServerId): Promise<MemoryResult> {
    log(`memory phase: ${settings.memoryRequests} common-case requests to a fresh ${id}`);
    const fresh = await startServer(id, env, { kubeconfig: false, compiled: true });
    running.set(id, fresh);
    const half = Math.round(settings.memoryRequests / 2);
    const memoryLoad = {
      url: `${fresh.baseUrl}/mutate?timeout=5s`,
      bodyFile: bodyFiles.get("pod-common") ?? "",
      connections: settings.connections,
      durationSeconds: MEMORY_PHASE_BOUND_SECONDS,
      requestLimit: half,
    };
    await Bun.sleep(MEMORY_SETTLE_MS);
    const rssAtStart = rssBytes(fresh.pid);
    const anonymousAtStart = anonymousRssBytes(fresh.pid);
    const first = await runWrk(script, memoryLoad);
    await Bun.sleep(MEMORY_SETTLE_MS);
    const rssAtHalf = rssBytes(fresh.pid);
    const second = await runWrk(script, memoryLoad);
    await Bun.sleep(MEMORY_SETTLE_MS);
    const rssAtEnd = rssBytes(fresh.pid);
    const anonymousAtEnd = anonymousRssBytes(fresh.pid);
    const result: MemoryResult = {
      server: id,
      requestsFirstHalf: first.requests,
      requestsTotal: first.requests + second.requests,
      errors: first.errors + second.errors,
      requestsPerSecond:
        (first.requests + second.requests) / ((first.durationUs + second.durationUs) / 1e6),
      rssAtStartBytes: rssAtStart,
      rssAtHalfBytes: rssAtHalf,
      rssAtEndBytes: rssAtEnd,
      anonymousAtStartBytes: anonymousAtStart,
      anonymousAtEndBytes: anonymousAtEnd,
      peakRssBytes: peakRssBytes(fresh.pid),
      growthSecondHalf: (rssAtEnd - rssAtHalf) / rssAtHalf,
    };
    log(
      `memory ${id}: ${(rssAtHalf / MIB).toFixed(1)} MiB after ${result.requestsFirstHalf}, ${(rssAtEnd / MIB).toFixed(1)} MiB after ${result.requestsTotal}`,
    );
    await fresh.stop();
    running.delete(id);
    return result;
  }

  try {
    // Start-to-ready: one server at a time, so they do not compete for the CPU.
    const starts: Record<ServerId, number[]> = {
      cocoon: [],
      floor: [],
      design: [],
      peer: [],
      go: [],
    };
    const firstAnswers: number[] = [];
    for (let round = 0; round < settings.starts; round++) {
      for (const id of SERVERS) {
        // cocoon's starts go without KUBECONFIG (the in-cluster module set); the one that
        // serves the scenarios below needs it for the /scale parent GET.
        const server = await startServer(id, env, { kubeconfig: id !== "cocoon" });
        starts[id].push(server.readyMs);
        if (server.firstAnswerMs !== undefined) firstAnswers.push(server.firstAnswerMs);
        if (round === settings.starts - 1 && id !== "cocoon") running.set(id, server);
        else await server.stop();
      }
    }
    const cocoonWithKubeconfig = await startServer("cocoon", env);
    running.set("cocoon", cocoonWithKubeconfig);
    log(`started: ${SERVERS.map((id) => `${id} ${median(starts[id]).toFixed(0)} ms`).join(", ")}`);

    const verdicts: Record<string, Record<string, boolean | string>> = {};
    for (const scenario of scenarios) {
      verdicts[scenario.id] = {};
      for (const id of SERVERS) {
        const server = running.get(id);
        if (server && (id !== "peer" || PEER_SCENARIOS.has(scenario.id))) {
          const row = verdicts[scenario.id];
          if (row) row[id] = await verdictOf(server, scenario, ca.cert);
        }
      }
    }

    const rssAfterWarmup: Partial<Record<ServerId, number>> = {};
    const results: ScenarioResult[] = [];
    const loadAtStart = describeMachine().loadAverage;
    for (const scenario of scenarios) {
      const loadFor = (server: RunningServer) => ({
        url: `${server.baseUrl}${scenario.path}?timeout=5s`,
        bodyFile: bodyFiles.get(scenario.id) ?? "",
        connections: settings.connections,
      });
      const serversFor = SERVERS.filter((id) => id !== "peer" || PEER_SCENARIOS.has(scenario.id));
      for (const id of serversFor) {
        const server = running.get(id);
        if (!server) continue;
        await runWrk(script, { ...loadFor(server), durationSeconds: settings.warmupSeconds });
        if (rssAfterWarmup[id] === undefined) rssAfterWarmup[id] = rssBytes(server.pid);
      }
      // Servers take turns, round after round, so a burst of load from elsewhere on the
      // machine hurts them all alike; each server's best round is reported (interference
      // only ever lowers throughput), with the spread of all rounds beside it.
      const rounds = new Map<ServerId, ScenarioResult[]>();
      for (let round = 0; round < settings.rounds; round++) {
        for (const id of serversFor) {
          const server = running.get(id);
          if (!server) continue;
          const measured = await measure(server, loadFor(server));
          const result: ScenarioResult = {
            scenario: scenario.id,
            title: scenario.title,
            bodyBytes: scenario.body.length,
            server: id,
            verdict: verdicts[scenario.id]?.[id] ?? "not checked",
            expectAllowed: FLOORS.has(id) ? true : scenario.expectAllowed,
            ...measured,
            roundsRequestsPerSecond: [],
          };
          rounds.set(id, [...(rounds.get(id) ?? []), result]);
        }
      }
      for (const [id, each] of rounds) {
        const best = each.reduce((a, b) =>
          b.wrk.requestsPerSecond > a.wrk.requestsPerSecond ? b : a,
        );
        const spread = each.map((one) => Math.round(one.wrk.requestsPerSecond));
        results.push({ ...best, roundsRequestsPerSecond: spread });
        log(
          `${scenario.id} ${id}: ${best.wrk.requestsPerSecond.toFixed(0)} rps (rounds ${spread.join(", ")}), p50 ${(best.wrk.p50Us / 1000).toFixed(2)} ms, p99 ${(best.wrk.p99Us / 1000).toFixed(2)} ms, errors ${best.wrk.errors}`,
        );
      }
    }

    // Tail latency at fixed rates: the floors and the webhook take turns at each rate.
    const fixedRate: FixedRateResult[] = [];
    const commonBody = bodyFiles.get("pod-common");
    const gc: GcProbeResult[] = [];
    if (commonBody) {
      const takingTurns = TAIL_SERVERS.flatMap((id) => running.get(id) ?? []);
      for (const rate of FIXED_RATES) {
        const runs = await fixedRatePhase(
          script,
          takingTurns,
          commonBody,
          rate,
          settings.fixedRateSeconds * rate.shareOfSeconds,
        );
        fixedRate.push(...runs);
        for (const run of runs) {
          log(
            `fixed ${rate.requestsPerSecond} req/s ${run.server}: ${run.requestsPerSecond.toFixed(0)} req/s over ${run.seconds.toFixed(0)} s, p50 ${(run.p50Us / 1000).toFixed(2)} ms, p99 ${(run.p99Us / 1000).toFixed(2)} ms, p99.9 ${(run.p999Us / 1000).toFixed(2)} ms (quiet turns ${run.quietTurnsP999Us === undefined ? "too few" : `${(run.quietTurnsP999Us / 1000).toFixed(2)} ms`}), ${(run.stolenShare * 100).toFixed(1)} % stolen`,
          );
        }
      }
      for (const which of ["floor", "cocoon"] as const) {
        const probe = await gcProbe(
          which,
          env,
          script,
          commonBody,
          TAIL_GOAL_RATE,
          GC_PROBE_SECONDS,
        );
        gc.push(probe);
        log(
          `gc ${which}: worst lateness ${probe.worstLatenessMs.toFixed(2)} ms, heap ${(probe.heapSizeAfterBytes / MIB).toFixed(1)} MiB, full GC ${probe.fullCollectionMs.toFixed(2)} ms`,
        );
      }
    }

    const processes = SERVERS.map((id) => {
      const server = running.get(id);
      return {
        server: id,
        label: SERVER_LABELS[id],
        readyMsMedian: median(starts[id]),
        readyMsSamples: starts[id].map((ms) => Math.round(ms * 10) / 10),
        ...(id === "cocoon"
          ? {
              firstAnswerMsMedian: median(firstAnswers),
              readyWithKubeconfigMs: cocoonWithKubeconfig.readyMs,
            }
          : {}),
        rssAfterWarmupBytes: rssAfterWarmup[id] ?? Number.NaN,
        rssAfterRunBytes: server ? rssBytes(server.pid) : Number.NaN,
        peakRssBytes: server ? peakRssBytes(server.pid) : Number.NaN,
        artefact: artefactBytes(id, env),
      };
    });
    for (const server of running.values()) await server.stop();
    running.clear();

    // Memory phase: a fresh server, 2 × N/2 common-case requests, RSS after each half;
    // the floor goes through the same phase for comparison.
    const memory = await memoryPhase("cocoon");
    const floorMemory = await memoryPhase("floor");

    const validator = await validatorThroughput(COCOON_BINARY, workDir, 10_000);
    if (validator)
      log(`validator: ${validator.documents} documents in ${validator.seconds.toFixed(2)} s`);

    const goOriginal = compareWithGoOriginal(results);
    const output: Results = {
      generatedAt: new Date().toISOString(),
      machine: {
        ...machine,
        loadAverageAtStart: loadAtStart,
        loadAverageAtEnd: describeMachine().loadAverage,
        bun: Bun.version,
        node: nodeVersion(),
        wrk: wrkVersion(),
      },
      settings: { ...settings, wrkThreads: 1 },
      processes,
      scenarios: results,
      memory,
      floorMemory,
      validator,
      fixedRate,
      gc,
      fixedRateSeconds: settings.fixedRateSeconds,
      ...(goOriginal.length > 0 ? { goOriginal } : {}),
      goals: [],
      benchSeconds: (performance.now() - began) / 1000,
    };
    output.goals = evaluateGoals(output);
    mkdirSync(RESULTS_DIR, { recursive: true });
    const json = `${JSON.stringify(output, null, 2)}\n`;
    writeFileSync(join(RESULTS_DIR, "latest.json"), json);
    if (writeReference) {
      const reference = join(RESULTS_DIR, "reference.json");
      writeFileSync(reference, json);
      // The reference is committed: keep it in the repository's (Biome) format.
      Bun.spawnSync([join(REPO, "node_modules/.bin/biome"), "format", "--write", reference], {
        stdout: "ignore",
        stderr: "ignore",
      });
    }
    console.log(renderReport(output));
  } finally {
    await cleanup();
    rmSync(workDir, { recursive: true, force: true });
    rmSync(ca.dir, { recursive: true, force: true });
  }
}

await main();
