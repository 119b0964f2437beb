/**
 * The second part of `make bench`: the x86-64 release binary built on Bun's
 * baseline runtime (`dist/cocoon-webhook-linux-x64`, no AVX2 needed) against
 * the same source on the modern runtime (`dist/cocoon-webhook-linux-x64-avx2`),
 * side by side: the same scenarios, the same wrk load, rounds alternating
 * which one goes first so drift on a shared machine falls on both. Figures to
 * read, never assertions; they decide which binary ships (README).
 *
 *   bun bench/runtimes.ts            after `make dist DIST_TARGETS="linux-x64 linux-x64-avx2"`
 *
 * Environment: BENCH_DURATION_S (5 per round), BENCH_ROUNDS (3), BENCH_CONNECTIONS (32),
 * BENCH_STARTS (5 start-to-ready samples per binary).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestCa } from "../test/support/certs";
import { describeMachine, processCpuSeconds } from "../test/support/procfs";
import { type ServerEnvironment, startServer } from "./lib/servers";
import { median } from "./lib/statistics";
import { ensureWrk, runWrk, writeLuaScript } from "./lib/wrk";
import { buildScenarios, type ScenarioId } from "./payloads";

const REPO = join(import.meta.dir, "..");
const RUNTIMES = [
  {
    id: "baseline",
    binary: "dist/cocoon-webhook-linux-x64",
    runtime: "@oven+bun-linux-x64-baseline",
  },
  { id: "avx2", binary: "dist/cocoon-webhook-linux-x64-avx2", runtime: "@oven+bun-linux-x64" },
] as const;
type RuntimeId = (typeof RUNTIMES)[number]["id"];
/** The common case, a rule-heavy object and the largest review. */
const SCENARIOS: readonly ScenarioId[] = ["pod-common", "cocoonset-10", "pod-1mb"];

function setting(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}
const durationSeconds = setting("BENCH_DURATION_S", 5);
const rounds = setting("BENCH_ROUNDS", 3);
const connections = setting("BENCH_CONNECTIONS", 32);
const starts = setting("BENCH_STARTS", 5);

interface Sample {
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
  readonly cpuMsPerRequest: number;
}

/** The sha256 of the runtime bun-runtime.ts unpacked for a package, if it is there. */
function runtimeDigest(directory: string): string {
  const cache = join(REPO, "node_modules/.cache/bun-runtime");
  const versioned = `${directory}@${JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).devDependencies.bun}`;
  const path = join(cache, versioned, "bin/bun");
  return existsSync(path)
    ? createHash("sha256").update(readFileSync(path)).digest("hex")
    : "absent";
}

async function main(): Promise<void> {
  for (const { binary } of RUNTIMES) {
    if (!existsSync(join(REPO, binary))) throw new Error(`${binary} is missing: run make bench`);
  }
  ensureWrk();
  const machine = describeMachine();
  const workDir = mkdtempSync(join(tmpdir(), "cocoon-runtimes-"));
  const ca = createTestCa("runtimes-ca");
  const serving = ca.issue("serving");
  const scenarios = buildScenarios().filter((scenario) => SCENARIOS.includes(scenario.id));
  const bodyFiles = new Map(
    scenarios.map((scenario) => {
      const file = join(workDir, `${scenario.id}.json`);
      writeFileSync(file, scenario.body);
      return [scenario.id, file] as const;
    }),
  );
  const script = writeLuaScript(workDir);
  const environment = (binary: string): ServerEnvironment => ({
    repo: REPO,
    bun: process.execPath,
    workDir,
    ca,
    serving,
    // No scenario here reaches the apiserver.
    kubeconfigPath: "",
    apiserverUrl: "",
    apiserverCaFile: "",
    apiserverToken: "",
    probeBodyFile: bodyFiles.get("pod-common") ?? "",
    peerBundle: "",
    cocoonBinary: join(REPO, binary),
  });

  const startMs: Record<RuntimeId, number[]> = { baseline: [], avx2: [] };
  const samples = new Map<string, Sample[]>();
  try {
    for (let round = 0; round < Math.max(rounds, starts); round++) {
      const order = round % 2 === 0 ? RUNTIMES : [...RUNTIMES].reverse();
      for (const runtime of order) {
        const server = await startServer("cocoon", environment(runtime.binary), {
          kubeconfig: false,
        });
        startMs[runtime.id].push(server.readyMs);
        if (round < rounds) {
          for (const scenario of scenarios) {
            const load = {
              url: `${server.baseUrl}${scenario.path}?timeout=5s`,
              bodyFile: bodyFiles.get(scenario.id) ?? "",
              connections,
            };
            await runWrk(script, { ...load, durationSeconds: 1 }); // warm the JIT
            const cpuBefore = processCpuSeconds(server.pid);
            const run = await runWrk(script, { ...load, durationSeconds });
            const cpu = processCpuSeconds(server.pid) - cpuBefore;
            if (run.errors > 0)
              throw new Error(`${runtime.id} ${scenario.id}: ${run.errors} errors`);
            const key = `${runtime.id} ${scenario.id}`;
            samples.set(key, [
              ...(samples.get(key) ?? []),
              {
                requestsPerSecond: run.requestsPerSecond,
                p99Ms: run.p99Us / 1000,
                cpuMsPerRequest: (cpu * 1000) / run.requests,
              },
            ]);
            console.error(
              `[runtimes] round ${round + 1} ${key}: ${run.requestsPerSecond.toFixed(0)} req/s, p99 ${(run.p99Us / 1000).toFixed(2)} ms`,
            );
          }
        }
        await server.stop();
      }
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }

  const figure = (id: RuntimeId, scenario: ScenarioId, pick: (sample: Sample) => number) =>
    median((samples.get(`${id} ${scenario}`) ?? []).map(pick));
  const lines = [
    `## x86-64 runtimes: baseline (no AVX2) vs modern (AVX2)`,
    "",
    `${machine.nproc} × ${machine.cpuModel}, load average at the start ${machine.loadAverage.join(" ")}; ` +
      `medians of ${rounds} alternating rounds of ${durationSeconds} s, ${connections} connections.`,
    "",
    "| scenario | baseline req/s | avx2 req/s | baseline / avx2 | baseline p99 ms | avx2 p99 ms | baseline CPU ms/req | avx2 CPU ms/req |",
    "|---|---|---|---|---|---|---|---|",
    ...SCENARIOS.map((scenario) => {
      const rate = (id: RuntimeId) => figure(id, scenario, (sample) => sample.requestsPerSecond);
      const p99 = (id: RuntimeId) => figure(id, scenario, (sample) => sample.p99Ms);
      const cpu = (id: RuntimeId) => figure(id, scenario, (sample) => sample.cpuMsPerRequest);
      return `| ${scenario} | ${rate("baseline").toFixed(0)} | ${rate("avx2").toFixed(0)} | ${(rate("baseline") / rate("avx2")).toFixed(2)} | ${p99("baseline").toFixed(2)} | ${p99("avx2").toFixed(2)} | ${cpu("baseline").toFixed(3)} | ${cpu("avx2").toFixed(3)} |`;
    }),
    `| start → ready | ${median(startMs.baseline).toFixed(0)} ms | ${median(startMs.avx2).toFixed(0)} ms | | | | | |`,
  ];
  const digests = RUNTIMES.map(({ runtime }) => runtimeDigest(runtime));
  if (digests[0] === digests[1]) {
    lines.push(
      "",
      `Note: both runtime packages unpack to the same executable (sha256 ${digests[0]}), so these rows compare one runtime with itself.`,
    );
  }
  const report = lines.join("\n");
  console.log(report);
  writeFileSync(
    join(import.meta.dir, "results", "runtimes-latest.json"),
    `${JSON.stringify({ machine, durationSeconds, rounds, connections, samples: Object.fromEntries(samples), startMs, digests }, null, 2)}\n`,
  );
}

await main();
