import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

/**
 * A memory cgroup (v1) with a limit, to run the binary under the memory
 * limit of the manifests: the kernel counts the process's memory as a
 * container's, and Bun sizes its heap to the limit. Needs root and the
 * cgroup v1 memory hierarchy; nothing to install.
 */
export interface MemoryCgroup {
  readonly path: string;
  /** Prefix for a command: joins the cgroup, then execs the command. */
  readonly wrap: readonly string[];
  /** Highest usage charged so far (memory.max_usage_in_bytes). */
  peakBytes(): number;
  /** Starts the peak over, for the next measurement. */
  resetPeak(): void;
  /** Processes of the cgroup the kernel killed for memory. */
  oomKills(): number;
  /** Removes the cgroup; its processes must have exited. */
  remove(): void;
}

const V1_MEMORY_ROOT = "/sys/fs/cgroup/memory";

/** Why a memory cgroup cannot be made here, or undefined when it can. */
export function memoryCgroupUnavailable(): string | undefined {
  if (!existsSync(join(V1_MEMORY_ROOT, "memory.limit_in_bytes"))) {
    return `no cgroup v1 memory hierarchy at ${V1_MEMORY_ROOT}`;
  }
  try {
    accessSync(V1_MEMORY_ROOT, constants.W_OK);
  } catch {
    return `${V1_MEMORY_ROOT} is not writable (run as root)`;
  }
  return undefined;
}

export function createMemoryCgroup(name: string, limitBytes: number): MemoryCgroup {
  const path = join(V1_MEMORY_ROOT, `${name}-${process.pid}-${Date.now()}`);
  mkdirSync(path);
  writeFileSync(join(path, "memory.limit_in_bytes"), String(limitBytes));
  const read = (file: string) => readFileSync(join(path, file), "utf8");
  return {
    path,
    wrap: ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', path],
    peakBytes: () => Number(read("memory.max_usage_in_bytes")),
    resetPeak: () => writeFileSync(join(path, "memory.max_usage_in_bytes"), "0"),
    oomKills: () => Number(/^oom_kill (\d+)$/m.exec(read("memory.oom_control"))?.[1] ?? 0),
    remove: () => rmdirSync(path),
  };
}

/**
 * A copy of a binary that is not in the page cache, so the pages a process
 * reads from it are charged to that process's cgroup, as in a container,
 * rather than to whoever read the file first: written and synced, then
 * dropped from the cache (dd's nocache flag).
 */
export function uncachedCopy(from: string, to: string): string {
  for (const args of [
    [`if=${from}`, `of=${to}`, "bs=4M", "conv=fdatasync"],
    [`if=${to}`, "iflag=nocache", "count=0"],
  ]) {
    const dd = Bun.spawnSync(["dd", ...args], { stderr: "pipe" });
    if (dd.exitCode !== 0) throw new Error(`dd ${args.join(" ")}: ${dd.stderr.toString()}`);
  }
  chmodSync(to, 0o755);
  return to;
}
