/*
 * Prints the path of the Bun runtime that `bun build --compile` embeds for a
 * release target, fetching it from the npm registry when it is not cached.
 *
 * Bun would download a cross-compilation runtime from its own release host;
 * the same executables are published to npm as @oven/bun-<os>-<arch>, and
 * package-lock.json already pins their version and sha512 integrity (they are
 * optional dependencies of the `bun` package). So this uses `npm pack` (npm's
 * registry, proxy and cache settings apply), checks the tarball against the
 * lock file and unpacks bin/bun into node_modules/.cache. Only glibc runtimes:
 * the image's base (distroless/base) is glibc, not musl.
 *
 *   bun scripts/bun-runtime.ts linux-arm64                  the runtime's path
 *   bun scripts/bun-runtime.ts linux-arm64 --bun-target     bun build's --target for it
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";

/**
 * Each release binary's runtime package. `linux-x64` embeds Bun's baseline
 * build, which needs no AVX2 and so starts on every x86-64 server (the modern
 * build dies with "Illegal instruction" on CPUs, or CPU models of virtual
 * machines, without it); `linux-x64-avx2` embeds the modern build, for the
 * bench's comparison (README, "Which x86-64 binary").
 */
export const RELEASE_TARGETS = {
  "linux-x64": "@oven/bun-linux-x64-baseline",
  "linux-x64-avx2": "@oven/bun-linux-x64",
  "linux-arm64": "@oven/bun-linux-aarch64",
} as const;

/** Bun's `--target` for each release binary: the runtime it embeds. */
export const BUN_TARGETS: Record<ReleaseTarget, string> = {
  "linux-x64": "bun-linux-x64-baseline",
  "linux-x64-avx2": "bun-linux-x64-modern",
  "linux-arm64": "bun-linux-arm64",
};

export type ReleaseTarget = keyof typeof RELEASE_TARGETS;

export type PinnedRuntime = { name: string; version: string; integrity: string };

const REPO_ROOT = resolve(import.meta.dir, "..");

export function isReleaseTarget(value: string): value is ReleaseTarget {
  return Object.hasOwn(RELEASE_TARGETS, value);
}

type LockEntry = { version?: unknown; integrity?: unknown; libc?: unknown };

/**
 * The runtime package for a target as package-lock.json pins it. Its version
 * must be the `bun` compiler's own: a runtime of another version would not
 * understand the bundle and bytecode the compiler writes.
 */
export function pinnedRuntime(lock: unknown, target: ReleaseTarget): PinnedRuntime {
  const packages = (lock as { packages?: Record<string, LockEntry> }).packages ?? {};
  const name = RELEASE_TARGETS[target];
  const entry = packages[`node_modules/${name}`];
  const compiler = packages["node_modules/bun"];
  if (typeof entry?.version !== "string" || typeof entry.integrity !== "string") {
    throw new Error(
      `package-lock.json has no version and integrity for ${name}; run npm install to refresh the lock file`,
    );
  }
  if (entry.version !== compiler?.version) {
    throw new Error(
      `package-lock.json pins ${name}@${entry.version} but bun@${String(compiler?.version)}; run npm install to bring them in line`,
    );
  }
  if (!Array.isArray(entry.libc) || !entry.libc.includes("glibc")) {
    throw new Error(`${name} is not a glibc build; the image's distroless base needs glibc`);
  }
  return { name, version: entry.version, integrity: entry.integrity };
}

export function integrityOf(bytes: Uint8Array): string {
  return `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
}

function run(command: string[], cwd: string): string {
  const result = Bun.spawnSync(command, { cwd, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) {
    throw new Error(
      `${command.join(" ")} failed (exit ${result.exitCode}): ${result.stderr.toString().trim()}`,
    );
  }
  return result.stdout.toString();
}

/** The cached runtime executable for a pinned package, fetched and verified on first use. */
export function ensureRuntime(runtime: PinnedRuntime, cacheRoot: string): string {
  const directory = join(cacheRoot, `${runtime.name.replace("/", "+")}@${runtime.version}`);
  const executable = join(directory, "bin", "bun");
  const stamp = join(directory, "integrity");
  if (
    existsSync(executable) &&
    existsSync(stamp) &&
    readFileSync(stamp, "utf8") === runtime.integrity
  ) {
    return executable;
  }
  mkdirSync(cacheRoot, { recursive: true });
  const work = mkdtempSync(join(cacheRoot, ".fetch-"));
  try {
    const packed: unknown = JSON.parse(
      run(
        [
          "npm",
          "pack",
          `${runtime.name}@${runtime.version}`,
          "--json",
          "--silent",
          "--pack-destination",
          work,
        ],
        work,
      ),
    );
    const filename = Array.isArray(packed)
      ? (packed[0] as { filename?: unknown })?.filename
      : undefined;
    if (typeof filename !== "string")
      throw new Error(`npm pack ${runtime.name} printed no file name`);
    const tarball = join(work, filename);
    const actual = integrityOf(readFileSync(tarball));
    if (actual !== runtime.integrity) {
      throw new Error(
        `${runtime.name}@${runtime.version}: the registry's tarball has integrity ${actual}, package-lock.json pins ${runtime.integrity}`,
      );
    }
    run(["tar", "-xzf", tarball, "-C", work], work);
    const unpacked = join(work, "package");
    chmodSync(join(unpacked, "bin", "bun"), 0o755);
    writeFileSync(join(unpacked, "integrity"), runtime.integrity);
    rmSync(directory, { recursive: true, force: true });
    renameSync(unpacked, directory);
    return executable;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const [target = "", what = "runtime"] = process.argv.slice(2);
  if (!isReleaseTarget(target)) {
    process.stderr.write(
      `usage: bun scripts/bun-runtime.ts <${Object.keys(RELEASE_TARGETS).join(" | ")}>\n`,
    );
    process.exit(2);
  }
  if (what === "--bun-target") {
    console.log(BUN_TARGETS[target]);
    process.exit(0);
  }
  try {
    const lock: unknown = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8"));
    const cache = join(REPO_ROOT, "node_modules", ".cache", "bun-runtime");
    console.log(ensureRuntime(pinnedRuntime(lock, target), cache));
  } catch (error) {
    process.stderr.write(
      `bun-runtime: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
}
