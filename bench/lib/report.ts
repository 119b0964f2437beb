/** The results file's shape, the goals, and the markdown tables printed from it. */

import { MIB } from "../../test/support/procfs";
import type { ScenarioId } from "../payloads";
import {
  FIXED_RATE_TURN_SECONDS,
  type FixedRateResult,
  type GcProbeResult,
  judgeTail,
  MIN_QUIET_TURNS,
  QUIET_TURN_STOLEN_SHARE,
  quietTurns,
  TAIL_GOAL_MARGIN_US,
  TAIL_GOAL_RATE,
} from "./fixed-rate";
import type { ServerId } from "./servers";
import type { ValidatorResult } from "./validator";
import type { WrkRun } from "./wrk";

export interface ScenarioResult {
  readonly scenario: ScenarioId;
  readonly title: string;
  readonly bodyBytes: number;
  readonly server: ServerId;
  /** `response.allowed` of one request before the load, or what went wrong. */
  readonly verdict: boolean | string;
  readonly expectAllowed: boolean;
  readonly wrk: WrkRun;
  /** CPU use during the measured window, in cores (1 = one core busy). */
  readonly serverCpuCores: number;
  readonly clientCpuCores: number;
  /** This orchestrator, which also runs the fake apiserver. */
  readonly harnessCpuCores: number;
  /** The whole machine, other engineers' work included. */
  readonly machineCpuCores: number;
  readonly serverCpuMsPerRequest: number;
  readonly rssAfterBytes: number;
  /** req/s of every measured round; the figures above are from the best one. */
  readonly roundsRequestsPerSecond: readonly number[];
  /** Scenarios that call the apiserver: its calls and the TLS connections they came on. */
  readonly apiserver?: { readonly calls: number; readonly connections: number };
}

/** cocoon-webhook against the Go original in one scenario, both measured in the same run. */
export interface GoOriginalComparison {
  readonly scenario: ScenarioId;
  /** cocoon-webhook's req/s ÷ the Go original's: higher is better. */
  readonly throughputRatio: number;
  /** cocoon-webhook's server CPU per review ÷ the Go original's: lower is better. */
  readonly cpuPerReviewRatio: number;
}

export interface ProcessResult {
  readonly server: ServerId;
  readonly label: string;
  readonly readyMsMedian: number;
  readonly readyMsSamples: readonly number[];
  readonly firstAnswerMsMedian?: number;
  /** cocoon-webhook started with a KUBECONFIG, which loads client-node (runs outside a cluster). */
  readonly readyWithKubeconfigMs?: number;
  readonly rssAfterWarmupBytes: number;
  readonly rssAfterRunBytes: number;
  readonly peakRssBytes: number;
  readonly artefact: { readonly bytes: number; readonly what: string };
}

export interface MemoryResult {
  readonly server: ServerId;
  readonly requestsPerSecond: number;
  readonly requestsFirstHalf: number;
  readonly requestsTotal: number;
  readonly errors: number;
  readonly rssAtStartBytes: number;
  readonly rssAtHalfBytes: number;
  readonly rssAtEndBytes: number;
  /** Resident anonymous memory (RssAnon): without the binary's file pages. Not in older runs. */
  readonly anonymousAtStartBytes?: number;
  readonly anonymousAtEndBytes?: number;
  readonly peakRssBytes: number;
  readonly growthSecondHalf: number;
}

export interface Goal {
  readonly goal: string;
  readonly met: boolean;
  readonly figures: string;
}

export interface Results {
  readonly generatedAt: string;
  readonly machine: {
    readonly nproc: number;
    readonly cpuModel: string;
    readonly memoryMiB: number;
    readonly kernel: string;
    readonly loadAverage: readonly number[];
    readonly loadAverageAtStart: readonly number[];
    readonly loadAverageAtEnd: readonly number[];
    readonly bun: string;
    readonly node: string;
    readonly wrk: string;
  };
  readonly settings: {
    readonly warmupSeconds: number;
    readonly durationSeconds: number;
    readonly rounds: number;
    readonly connections: number;
    readonly memoryRequests: number;
    readonly starts: number;
    readonly wrkThreads: number;
  };
  readonly processes: readonly ProcessResult[];
  readonly scenarios: readonly ScenarioResult[];
  readonly memory: MemoryResult;
  readonly floorMemory: MemoryResult;
  readonly validator: ValidatorResult | undefined;
  /** Absent from results written before the tail-latency phase existed. */
  readonly fixedRate?: readonly FixedRateResult[];
  readonly gc?: readonly GcProbeResult[];
  readonly fixedRateSeconds?: number;
  /** Only in runs with BENCH_GO_ORIGINAL_BINARY. */
  readonly goOriginal?: readonly GoOriginalComparison[];
  goals: Goal[];
  readonly benchSeconds: number;
}

const ms = (us: number) => (us / 1000).toFixed(2);
const mib = (bytes: number) => (bytes / MIB).toFixed(1);
const signedMs = (us: number) => `${us >= 0 ? "+" : ""}${ms(us)}`;
const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : "–");

function find(
  results: Results,
  scenario: ScenarioId,
  server: ServerId,
): ScenarioResult | undefined {
  return results.scenarios.find((each) => each.scenario === scenario && each.server === server);
}

function processOf(results: Results, server: ServerId): ProcessResult | undefined {
  return results.processes.find((each) => each.server === server);
}

const COMMON: ScenarioId = "pod-common";
const LARGE: ScenarioId = "pod-1mb";
const READY_RSS_LIMIT_MIB = 64;
/** After the memory phase, over the bare floor compiled like the webhook (lib/compile.ts). */
const OVER_FLOOR_LIMIT_MIB = 10;
const RSS_GROWTH_LIMIT = 0.05;
/** About what a Go webhook of the same function takes to start, measured side by side: 53–57 ms. */
const READY_LIMIT_MS = 55;

/** The common case against the Go original: at least this throughput, at most this CPU per review. */
const GO_ORIGINAL_THROUGHPUT_MIN = 2;
const GO_ORIGINAL_CPU_PER_REVIEW_MAX = 0.35;

type MeasuredServer = Pick<ScenarioResult, "scenario" | "server" | "serverCpuMsPerRequest"> & {
  readonly wrk: Pick<WrkRun, "requestsPerSecond">;
};

/** Each scenario both cocoon-webhook and the Go original took part in, as two ratios. */
export function compareWithGoOriginal(
  scenarios: readonly MeasuredServer[],
): GoOriginalComparison[] {
  return scenarios.flatMap((cocoon) => {
    const go = scenarios.find((each) => each.scenario === cocoon.scenario && each.server === "go");
    if (cocoon.server !== "cocoon" || !go) return [];
    return [
      {
        scenario: cocoon.scenario,
        throughputRatio: cocoon.wrk.requestsPerSecond / go.wrk.requestsPerSecond,
        cpuPerReviewRatio: cocoon.serverCpuMsPerRequest / go.serverCpuMsPerRequest,
      },
    ];
  });
}

export function meetsGoOriginalBar(comparison: GoOriginalComparison): boolean {
  return (
    comparison.throughputRatio >= GO_ORIGINAL_THROUGHPUT_MIN &&
    comparison.cpuPerReviewRatio <= GO_ORIGINAL_CPU_PER_REVIEW_MAX
  );
}

export function evaluateGoals(results: Results): Goal[] {
  const goals: Goal[] = [];
  const cocoon = find(results, COMMON, "cocoon");
  const floor = find(results, COMMON, "floor");
  const design = find(results, COMMON, "design");
  const peer = find(results, COMMON, "peer");
  if (cocoon && design) {
    const toDesign = cocoon.wrk.requestsPerSecond / design.wrk.requestsPerSecond;
    goals.push({
      goal: "common-case throughput ≥ 0.85× design floor (what we add on top of the framework)",
      met: toDesign >= 0.85,
      figures: `${cocoon.wrk.requestsPerSecond.toFixed(0)} vs ${design.wrk.requestsPerSecond.toFixed(0)} req/s = ${ratio(toDesign)}`,
    });
  }
  if (cocoon && floor) {
    const p99 = cocoon.wrk.p99Us / floor.wrk.p99Us;
    goals.push({
      goal: `common-case p99 ≤ 1.3× floor p99 (same ${results.settings.connections} connections, closed loop)`,
      met: p99 <= 1.3,
      figures: `${ms(cocoon.wrk.p99Us)} vs ${ms(floor.wrk.p99Us)} ms = ${ratio(p99)}`,
    });
  }
  if (cocoon && peer) {
    const toPeer = cocoon.wrk.requestsPerSecond / peer.wrk.requestsPerSecond;
    goals.push({
      goal: "common-case throughput ≥ 2× peer",
      met: toPeer >= 2,
      figures: `${cocoon.wrk.requestsPerSecond.toFixed(0)} vs ${peer.wrk.requestsPerSecond.toFixed(0)} req/s = ${ratio(toPeer)}`,
    });
  }
  const go = find(results, COMMON, "go");
  const toGo = results.goOriginal?.find((each) => each.scenario === COMMON);
  if (cocoon && go && toGo) {
    goals.push({
      goal:
        `common-case throughput ≥ ${GO_ORIGINAL_THROUGHPUT_MIN}× the Go original's at ` +
        `≤ ${GO_ORIGINAL_CPU_PER_REVIEW_MAX}× its CPU per review`,
      met: meetsGoOriginalBar(toGo),
      figures:
        `${cocoon.wrk.requestsPerSecond.toFixed(0)} vs ${go.wrk.requestsPerSecond.toFixed(0)} req/s = ` +
        `${ratio(toGo.throughputRatio)}; ${cocoon.serverCpuMsPerRequest.toFixed(3)} vs ` +
        `${go.serverCpuMsPerRequest.toFixed(3)} CPU ms/req = ${ratio(toGo.cpuPerReviewRatio)}`,
    });
  }
  const atRate = (server: ServerId) =>
    results.fixedRate?.find(
      (each) =>
        each.server === server && each.askedRequestsPerSecond === TAIL_GOAL_RATE.requestsPerSecond,
    );
  const tailCocoon = atRate("cocoon");
  const tailDesign = atRate("design");
  const tailFloor = atRate("floor");
  if (tailCocoon && tailDesign) {
    const goal =
      `p99.9 at a fixed ${TAIL_GOAL_RATE.requestsPerSecond} req/s within ` +
      `${TAIL_GOAL_MARGIN_US / 1000} ms of the design floor's (median of quiet turns; the bare floor's is the limit)`;
    const verdict = judgeTail(tailCocoon, tailDesign, tailFloor);
    const bare = tailFloor?.quietTurnsP999Us;
    goals.push(
      verdict.judged
        ? {
            goal,
            met: verdict.met,
            figures:
              `${ms(tailCocoon.quietTurnsP999Us ?? Number.NaN)} vs ${ms(tailDesign.quietTurnsP999Us ?? Number.NaN)} ms ` +
              `(${signedMs(verdict.overDesignUs)} ms) over ${quietTurns(tailCocoon.turns).length} and ` +
              `${quietTurns(tailDesign.turns).length} quiet turns; the bare floor's ` +
              (bare === undefined || verdict.overBareUs === undefined
                ? "not judged (too few quiet turns)"
                : `${ms(bare)} ms (${signedMs(verdict.overBareUs)} ms)`),
          }
        : {
            goal,
            met: false,
            figures:
              `not judged: ${verdict.quietTurns.cocoon} and ${verdict.quietTurns.design} of ` +
              `${tailCocoon.turns.length} turns quiet (≤ ${percent(QUIET_TURN_STOLEN_SHARE)} of the CPU ` +
              `stolen), ${MIN_QUIET_TURNS} needed; over all turns' responses ` +
              `${ms(tailCocoon.p999Us)} vs ${ms(tailDesign.p999Us)} ms`,
          },
    );
  }
  const large = find(results, LARGE, "cocoon");
  const largeFloor = find(results, LARGE, "floor");
  if (large && largeFloor) {
    const cpu = large.serverCpuMsPerRequest / largeFloor.serverCpuMsPerRequest;
    const p50 = large.wrk.p50Us / largeFloor.wrk.p50Us;
    goals.push({
      goal: "≈1 MB review server time ≤ 1.3× floor (server CPU per request)",
      met: cpu <= 1.3,
      figures: `${large.serverCpuMsPerRequest.toFixed(2)} vs ${largeFloor.serverCpuMsPerRequest.toFixed(2)} CPU ms/req = ${ratio(cpu)}; p50 ${ms(large.wrk.p50Us)} vs ${ms(largeFloor.wrk.p50Us)} ms = ${ratio(p50)}`,
    });
  }
  const { memory, floorMemory } = results;
  goals.push({
    goal: `RSS at ready ≤ ${READY_RSS_LIMIT_MIB} MiB`,
    met: memory.rssAtStartBytes <= READY_RSS_LIMIT_MIB * MIB,
    figures: `${mib(memory.rssAtStartBytes)} MiB (the bare floor's ${mib(floorMemory.rssAtStartBytes)} MiB)`,
  });
  goals.push({
    goal: `RSS after ${results.settings.memoryRequests} requests ≤ the bare floor's + ${OVER_FLOOR_LIMIT_MIB} MiB`,
    met:
      memory.rssAtEndBytes - floorMemory.rssAtEndBytes <= OVER_FLOOR_LIMIT_MIB * MIB &&
      memory.errors === 0,
    figures:
      `${mib(memory.rssAtEndBytes)} vs ${mib(floorMemory.rssAtEndBytes)} MiB ` +
      `(+${mib(memory.rssAtEndBytes - floorMemory.rssAtEndBytes)} MiB) after ${memory.requestsTotal} requests ` +
      `(${memory.errors} errors)`,
  });
  const anonymous = memory.anonymousAtEndBytes;
  const floorAnonymous = floorMemory.anonymousAtEndBytes;
  if (anonymous !== undefined && floorAnonymous !== undefined) {
    goals.push({
      goal: `anonymous memory after ${results.settings.memoryRequests} requests ≤ the bare floor's + ${OVER_FLOOR_LIMIT_MIB} MiB (RSS without the binary's file pages)`,
      met: anonymous - floorAnonymous <= OVER_FLOOR_LIMIT_MIB * MIB,
      figures: `${mib(anonymous)} vs ${mib(floorAnonymous)} MiB (+${mib(anonymous - floorAnonymous)} MiB)`,
    });
  }
  goals.push({
    goal: "RSS grows < 5% between the two halves",
    met: memory.growthSecondHalf < RSS_GROWTH_LIMIT,
    figures: `${mib(memory.rssAtHalfBytes)} → ${mib(memory.rssAtEndBytes)} MiB = ${(memory.growthSecondHalf * 100).toFixed(1)}%`,
  });
  const ready = processOf(results, "cocoon");
  if (ready) {
    goals.push({
      goal: `start to ready ≤ ${READY_LIMIT_MS} ms`,
      met: ready.readyMsMedian <= READY_LIMIT_MS,
      figures: `median ${ready.readyMsMedian.toFixed(0)} ms to /readyz 200 over ${ready.readyMsSamples.length} starts (${ready.readyMsSamples.join(", ")})`,
    });
  }
  return goals;
}

function verdictCell(result: ScenarioResult): string {
  if (typeof result.verdict === "string") return `✗ ${result.verdict}`;
  const word = result.verdict ? "allow" : "deny";
  return result.verdict === result.expectAllowed ? word : `✗ ${word}`;
}

export function renderReport(results: Results): string {
  const lines: string[] = [];
  const { machine, settings } = results;
  const servers: ServerId[] = ["cocoon", "design", "floor", "peer", "go"];
  lines.push(
    `### cocoon-webhook benchmark (${results.generatedAt})`,
    "",
    `Machine: ${machine.nproc} × ${machine.cpuModel}, ${machine.memoryMiB} MiB, Linux ${machine.kernel}; ` +
      `bun ${machine.bun}, node ${machine.node}, ${machine.wrk}. Load average at start ` +
      `${machine.loadAverageAtStart.join(" / ")}, at end ${machine.loadAverageAtEnd.join(" / ")}.`,
    `Load: wrk, ${settings.wrkThreads} thread, ${settings.connections} keep-alive TLS connections ` +
      "(closed loop: the same connection count, not the same offered rate); per scenario each server " +
      `gets ${settings.warmupSeconds} s of warm-up, then the servers take turns for ${settings.rounds} ` +
      `rounds of ${settings.durationSeconds} s and each one's best round is shown (all rounds' req/s ` +
      "in the last column). All on 127.0.0.1. CPU cores: the server's, wrk's, this harness's (which " +
      "also runs the fake apiserver) and everything else on the machine during the measured round.",
    "",
    "| scenario | body | server | req/s | p50 ms | p99 ms | max ms | errors | verdict | CPU ms/req | CPU cores server / wrk / harness / other | rounds req/s |",
    "|---|---:|---|---:|---:|---:|---:|---:|---|---:|---|---|",
  );
  for (const result of results.scenarios.filter((each) => servers.includes(each.server))) {
    const other = Math.max(
      0,
      result.machineCpuCores -
        result.serverCpuCores -
        result.clientCpuCores -
        result.harnessCpuCores,
    );
    lines.push(
      `| ${result.title} | ${(result.bodyBytes / 1024).toFixed(1)} KiB | ${result.server} | ` +
        `${result.wrk.requestsPerSecond.toFixed(0)} | ${ms(result.wrk.p50Us)} | ${ms(result.wrk.p99Us)} | ` +
        `${ms(result.wrk.maxUs)} | ${result.wrk.errors} | ${verdictCell(result)} | ` +
        `${result.serverCpuMsPerRequest.toFixed(3)} | ${result.serverCpuCores.toFixed(2)} / ` +
        `${result.clientCpuCores.toFixed(2)} / ${result.harnessCpuCores.toFixed(2)} / ${other.toFixed(2)} | ` +
        `${result.roundsRequestsPerSecond.join(", ")} |`,
    );
  }

  lines.push(
    "",
    "cocoon-webhook relative to the design floor, the bare floor and the peer (req/s: higher is " +
      "better; p99 and CPU/req: lower is better):",
    "",
    "| scenario | req/s ÷ design | req/s ÷ floor | req/s ÷ peer | p99 ÷ design | p99 ÷ floor | p99 ÷ peer | CPU/req ÷ design | CPU/req ÷ floor | CPU/req ÷ peer |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  const scenarioIds = [...new Set(results.scenarios.map((each) => each.scenario))];
  for (const id of scenarioIds) {
    const cocoon = find(results, id, "cocoon");
    if (!cocoon) continue;
    const against = (server: ServerId, of: (result: ScenarioResult) => number) => {
      const other = find(results, id, server);
      return other ? ratio(of(cocoon) / of(other)) : "–";
    };
    const columns = (of: (result: ScenarioResult) => number) =>
      (["design", "floor", "peer"] as const).map((server) => against(server, of)).join(" | ");
    lines.push(
      `| ${cocoon.title} | ${columns((each) => each.wrk.requestsPerSecond)} | ` +
        `${columns((each) => each.wrk.p99Us)} | ${columns((each) => each.serverCpuMsPerRequest)} |`,
    );
  }

  if (results.goOriginal && results.goOriginal.length > 0) {
    lines.push(
      "",
      "cocoon-webhook relative to the Go original (req/s: higher is better; CPU/req: lower is better):",
      "",
      "| scenario | req/s ÷ Go original | CPU/req ÷ Go original |",
      "|---|---:|---:|",
    );
    for (const each of results.goOriginal) {
      const title = find(results, each.scenario, "cocoon")?.title ?? each.scenario;
      lines.push(
        `| ${title} | ${ratio(each.throughputRatio)} | ${ratio(each.cpuPerReviewRatio)} |`,
      );
    }
  }

  lines.push(
    "",
    "| server | start → ready (median) | RSS after warm-up | RSS after run | peak RSS | shipped size |",
    "|---|---:|---:|---:|---:|---:|",
  );
  for (const id of servers) {
    const process = processOf(results, id);
    if (!process) continue;
    const firstAnswer =
      process.firstAnswerMsMedian === undefined
        ? ""
        : ` (first review answer ${process.firstAnswerMsMedian.toFixed(0)} ms; ` +
          `${process.readyWithKubeconfigMs?.toFixed(0) ?? "?"} ms with a KUBECONFIG)`;
    lines.push(
      `| ${process.label} | ${process.readyMsMedian.toFixed(0)} ms${firstAnswer} | ` +
        `${mib(process.rssAfterWarmupBytes)} MiB | ${mib(process.rssAfterRunBytes)} MiB | ` +
        `${mib(process.peakRssBytes)} MiB | ${mib(process.artefact.bytes)} MiB (${process.artefact.what}) |`,
    );
  }
  lines.push(
    "",
    "cocoon-webhook's start → ready is spawn to `/readyz` 200 on the ops listener, started as in a " +
      "cluster (no KUBECONFIG: client-node is loaded only for one); the floors' and the peer's are " +
      "spawn to the first successful review answer over TLS (polled every 2 ms). cocoon-webhook's " +
      "RSS columns are from the process that served the scenarios, with a KUBECONFIG; its memory " +
      "phase below runs without one.",
  );

  lines.push(
    "",
    `Memory phase (a fresh process, ${settings.memoryRequests} common-case requests over ` +
      `${settings.connections} connections, RSS sampled at ready, half-way and at the end; the bare ` +
      "floor compiled like the webhook; anonymous: RSS without the file pages of the binary, which " +
      "are page cache, shared and reclaimable):",
    "",
    "| server | req/s | RSS at ready | RSS half-way | RSS at end | anonymous at ready → at end | growth, 2nd half | peak RSS | errors |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const memory of [results.memory, results.floorMemory]) {
    const anonymous =
      memory.anonymousAtStartBytes === undefined || memory.anonymousAtEndBytes === undefined
        ? "–"
        : `${mib(memory.anonymousAtStartBytes)} → ${mib(memory.anonymousAtEndBytes)} MiB`;
    lines.push(
      `| ${memory.server} | ${memory.requestsPerSecond.toFixed(0)} | ${mib(memory.rssAtStartBytes)} MiB | ` +
        `${mib(memory.rssAtHalfBytes)} MiB (${memory.requestsFirstHalf}) | ` +
        `${mib(memory.rssAtEndBytes)} MiB (${memory.requestsTotal}) | ${anonymous} | ` +
        `${(memory.growthSecondHalf * 100).toFixed(1)}% | ${mib(memory.peakRssBytes)} MiB | ${memory.errors} |`,
    );
  }
  const { validator } = results;
  lines.push(
    "",
    validator
      ? `Offline validator: \`cocoon-webhook validate -f\` on ${validator.documents} CocoonSet documents ` +
          `(${mib(validator.fileBytes)} MiB): ${validator.seconds.toFixed(2)} s, ` +
          `${validator.documentsPerSecond.toFixed(0)} documents/s, exit ${validator.exitCode}` +
          (validator.maxRssBytes === undefined
            ? "."
            : `, max RSS ${mib(validator.maxRssBytes)} MiB.`)
      : "Offline validator: not in this build (`cocoon-webhook validate` is an unknown command); skipped.",
  );

  const apiserverRows = results.scenarios.filter(
    (each) => each.server === "cocoon" && each.apiserver && each.apiserver.calls > 0,
  );
  if (apiserverRows.length > 0) {
    lines.push(
      "",
      "The apiserver path (cocoon-webhook's calls to the fake apiserver during the best round; " +
        "connections are the distinct client ports the fake saw, so reuse shows as few per 1 000 calls):",
      "",
      "| scenario | req/s | p99 ms | apiserver calls | connections | connections per 1 000 calls |",
      "|---|---:|---:|---:|---:|---:|",
    );
    for (const row of apiserverRows) {
      const { calls, connections } = row.apiserver ?? { calls: 0, connections: 0 };
      lines.push(
        `| ${row.title} | ${row.wrk.requestsPerSecond.toFixed(0)} | ${ms(row.wrk.p99Us)} | ${calls} | ` +
          `${connections} | ${((connections * 1000) / calls).toFixed(2)} |`,
      );
    }
  }
  if (results.fixedRate && results.fixedRate.length > 0) {
    lines.push(
      "",
      `Tail latency at a fixed rate (common case; the servers take ${FIXED_RATE_TURN_SECONDS} s ` +
        `turns in rotation, ${results.fixedRateSeconds ?? "?"} s each at ` +
        `${TAIL_GOAL_RATE.requestsPerSecond} req/s; p50 to max over all of a server's turns' ` +
        "responses, then its quiet turns (at most " +
        `${percent(QUIET_TURN_STOLEN_SHARE)} of the machine's CPU stolen by the hypervisor), the ` +
        "median of their p99.9, which the tail goal is judged on, and every turn's; each wrk connection " +
        "pauses after every response, so the rate is bounded and the server never saturated, and " +
        "the achieved rate falls short of the asked one by the response time; stolen: the share " +
        "of the machine's CPU time the hypervisor took during the server's turns):",
      "",
      "| asked req/s | server | achieved req/s | responses | p50 ms | p99 ms | p99.9 ms | max ms | errors | stolen | quiet turns | their median p99.9 ms | each turn's p99.9 ms (stolen) |",
      "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    );
    for (const run of results.fixedRate) {
      lines.push(
        `| ${run.askedRequestsPerSecond} | ${run.server} | ${run.requestsPerSecond.toFixed(0)} | ` +
          `${run.responses} | ${ms(run.p50Us)} | ${ms(run.p99Us)} | ${ms(run.p999Us)} | ` +
          `${ms(run.maxUs)} | ${run.errors} | ${percent(run.stolenShare)} | ` +
          `${quietTurns(run.turns).length} of ${run.turns.length} | ` +
          `${run.quietTurnsP999Us === undefined ? "–" : ms(run.quietTurnsP999Us)} | ` +
          `${run.turns.map((turn) => `${ms(turn.p999Us)} (${percent(turn.stolenShare)})`).join(", ")} |`,
      );
    }
  }
  if (results.gc && results.gc.length > 0) {
    lines.push(
      "",
      "Garbage collection under the 2 000 req/s load, seen from inside a probe process " +
        "(bench/gc-host.ts: the same admission app, or the floor's handler, on Bun.serve): the worst " +
        "lateness of a 2 ms timer (time the process could not run JavaScript, collections included), " +
        "the heap, and what an eden and a full collection of that heap take afterwards:",
      "",
      "| server | req/s | worst timer lateness ms | ticks late > 1 ms | heap before → after | objects after | eden GC ms | full GC ms |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
    );
    for (const probe of results.gc) {
      lines.push(
        `| ${probe.server} | ${probe.requestsPerSecond.toFixed(0)} | ${probe.worstLatenessMs.toFixed(2)} | ` +
          `${probe.ticksLateOver1Ms} of ${probe.ticks} | ${mib(probe.heapSizeBeforeBytes)} → ` +
          `${mib(probe.heapSizeAfterBytes)} MiB | ${probe.objectCountAfter} | ` +
          `${probe.edenCollectionMs.toFixed(2)} | ${probe.fullCollectionMs.toFixed(2)} |`,
      );
    }
  }

  lines.push("", "| goal | met | figures |", "|---|---|---|");
  for (const goal of results.goals) {
    lines.push(`| ${goal.goal} | ${goal.met ? "met" : "**not met**"} | ${goal.figures} |`);
  }
  lines.push("", `Bench took ${results.benchSeconds.toFixed(0)} s.`);
  return lines.join("\n");
}
