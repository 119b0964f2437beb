/** Process and machine figures read from /proc (Linux only). */
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { type ListeningSocket, socketFds } from "../../src/server/bun-tls-reload-workaround";

/** Kernel clock ticks per second (USER_HZ); 100 on every mainstream Linux build. */
const CLOCK_TICKS_PER_SECOND = 100;
const KIB = 1024;
export const MIB = 1024 * 1024;

function statusField(pid: number, field: string): number | undefined {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status);
  return match?.[1] === undefined ? undefined : Number(match[1]) * KIB;
}

/** Resident set size in bytes (VmRSS). */
export function rssBytes(pid: number): number {
  return statusField(pid, "VmRSS") ?? Number.NaN;
}

/** Resident anonymous memory in bytes (RssAnon): the heap, without the binary's file pages. */
export function anonymousRssBytes(pid: number): number {
  return statusField(pid, "RssAnon") ?? Number.NaN;
}

/** Peak resident set size in bytes (VmHWM). */
export function peakRssBytes(pid: number): number {
  return statusField(pid, "VmHWM") ?? Number.NaN;
}

/** The fields of /proc/PID/stat after the command name, which may contain spaces and parentheses. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** User + system CPU seconds the process has used so far, all threads. */
export function processCpuSeconds(pid: number): number {
  const fields = statFields(pid);
  // utime and stime are fields 14 and 15 of the file, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/**
 * Waits until process `pid` has used no CPU for `quietMs` (its clock ticks
 * stopped rising), at most `timeoutMs`; true once it is quiet. Work a
 * process goes on with in the background after it answered (a decoder
 * still running) shows as ticks, so this waits for that work, not for a guess.
 */
export async function cpuQuiet(pid: number, quietMs = 250, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let seconds = processCpuSeconds(pid);
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    await Bun.sleep(25);
    const now = processCpuSeconds(pid);
    if (now !== seconds) {
      seconds = now;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= quietMs) return true;
  }
  return false;
}

/** The process state letter of /proc/PID/stat: R running, S sleeping, Z zombie, … */
export function processState(pid: number): string {
  return statFields(pid)[0] ?? "";
}

/** Busy and total jiffies of all CPUs, for the machine-wide utilisation over an interval. */
export interface MachineCpu {
  readonly busy: number;
  readonly total: number;
  /** Time the hypervisor ran something else while this machine wanted the CPU. */
  readonly steal: number;
}

export function machineCpu(): MachineCpu {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((sum, value) => sum + value, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total, steal: values[7] ?? 0 };
}

/** The share of the machine's CPU time stolen by the hypervisor between two samples (0 … 1). */
export function stolenShare(before: MachineCpu, after: MachineCpu): number {
  const total = after.total - before.total;
  return total > 0 ? (after.steal - before.steal) / total : 0;
}

/** Machine CPU use between two samples, in cores (0 … nproc). */
export function coresBusy(before: MachineCpu, after: MachineCpu, cores: number): number {
  const total = after.total - before.total;
  return total > 0 ? ((after.busy - before.busy) / total) * cores : 0;
}

export interface MachineDescription {
  readonly nproc: number;
  readonly cpuModel: string;
  readonly memoryMiB: number;
  readonly kernel: string;
  readonly loadAverage: readonly number[];
}

export function describeMachine(): MachineDescription {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model =
    /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? "unknown";
  return {
    nproc: cpus().length,
    cpuModel: model,
    memoryMiB: Math.round(totalmem() / MIB),
    kernel: release(),
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/** Starts the peak resident set size (VmHWM) over from the current size (`clear_refs` 5). */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/**
 * The listening TCP sockets of any process on `port`, from /proc (the
 * tests' view from outside; the listener asks `SocketCalls.listeningSockets`).
 */
export function listeningSocketsOnPort(
  port: number,
  pid: number | "self" = "self",
): ListeningSocket[] {
  const portHex = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const groups = new Map<string, string>();
  for (const table of [`/proc/${pid}/net/tcp`, `/proc/${pid}/net/tcp6`]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue; // no IPv6 in this kernel
    }
    for (const line of text.split("\n").slice(1)) {
      const columns = line.trim().split(/\s+/);
      const local = columns[1];
      const inode = columns[9];
      if (columns[3] === "0A" && local?.endsWith(portHex) && inode) {
        groups.set(inode, `${table.endsWith("6") ? "tcp6" : "tcp"} ${local}`);
      }
    }
  }
  return socketFds(pid).flatMap(({ fd, inode }) => {
    const group = groups.get(inode);
    return group === undefined ? [] : [{ fd, inode, group }];
  });
}
