/*
 * The release binaries from `make dist` (run by `make dist-test`, not by
 * `make test`): they run, carry the stamp of the commit, match their checksum
 * files, rebuild to the same bytes and SBOMs, and the arm64 one behaves like the x64 one
 * under qemu-aarch64 (Debian: qemu-user and libc6-arm64-cross, which
 * `make dist-test` installs when missing). Without them the run fails: an
 * architecture that was not run must never pass as tested.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../../package.json";
import { repoPath } from "../manifests/kustomize";

const TARGETS = ["linux-x64", "linux-arm64"] as const;
type Target = (typeof TARGETS)[number];
/** ELF e_machine of each target: EM_X86_64 and EM_AARCH64. */
const ELF_MACHINE: Record<Target, number> = { "linux-x64": 62, "linux-arm64": 183 };
const ARM64_SYSROOT = "/usr/aarch64-linux-gnu";
const QEMU = Bun.which("qemu-aarch64");
const HAVE_QEMU = QEMU !== null && existsSync(join(ARM64_SYSROOT, "lib/ld-linux-aarch64.so.1"));
const FIXTURES = repoPath("test/fixtures/validate");

const binary = (target: Target, directory = repoPath("dist")) =>
  join(directory, `cocoon-webhook-${target}`);

function git(...args: string[]): string {
  const result = Bun.spawnSync(["git", ...args], { cwd: repoPath(), stdout: "pipe" });
  return result.stdout.toString().trim();
}

function run(command: string[], cwd = FIXTURES) {
  const result = Bun.spawnSync(command, {
    cwd,
    env: { PATH: process.env.PATH ?? "" },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 120_000,
  });
  return {
    code: result.exitCode,
    stdout: result.stdout.toString(),
    stderr: result.stderr.toString(),
  };
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** What the Makefile stamps: the commit (dirty when tracked files changed) and its time. */
function expectedVersionLine(): string {
  const dirty = Bun.spawnSync(["git", "diff", "--quiet", "HEAD", "--"], { cwd: repoPath() });
  const revision = `${git("rev-parse", "HEAD")}${dirty.exitCode === 0 ? "" : "-dirty"}`;
  const built = new Date(Number(git("show", "-s", "--format=%ct", "HEAD")) * 1000)
    .toISOString()
    .replace(".000Z", "Z");
  return `cocoon-webhook ${packageJson.version} (revision ${revision}, built ${built})\n`;
}

describe("make dist", () => {
  test.each(TARGETS)("%s is an ELF executable for its architecture", (target) => {
    const header = readFileSync(binary(target)).subarray(0, 20);
    expect(header.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
    expect(header.readUInt16LE(18)).toBe(ELF_MACHINE[target]);
  });

  test.each(TARGETS)("%s has a sha256sum file that matches it", (target) => {
    const line = readFileSync(`${binary(target)}.sha256`, "utf8");
    expect(line).toBe(`${sha256(binary(target))}  cocoon-webhook-${target}\n`);
    const check = run(
      ["sha256sum", "--check", `cocoon-webhook-${target}.sha256`],
      repoPath("dist"),
    );
    expect(check.code).toBe(0);
  });

  test("the x64 binary prints the stamp of this commit for version, --version and -v", () => {
    const outputs = ["version", "--version", "-v"].map((flag) => run([binary("linux-x64"), flag]));
    for (const output of outputs) {
      expect(output.code).toBe(0);
      expect(output.stdout).toBe(expectedVersionLine());
    }
  });

  describe("a rebuild of the same commit", () => {
    const rebuildDir = mkdtempSync(join(tmpdir(), "cocoon-dist-"));
    afterAll(() => rmSync(rebuildDir, { recursive: true, force: true }));

    test("prints the same version and has the same bytes", () => {
      const make = run(
        ["make", "--no-print-directory", "dist", `DIST_DIR=${rebuildDir}`],
        repoPath(),
      );
      expect(make.stderr).not.toContain("error:");
      expect(make.code).toBe(0);
      expect(run([binary("linux-x64", rebuildDir), "version"]).stdout).toBe(
        run([binary("linux-x64"), "version"]).stdout,
      );
      for (const target of TARGETS) {
        for (const suffix of [".sha256", ".spdx.json"]) {
          expect(readFileSync(`${binary(target, rebuildDir)}${suffix}`, "utf8")).toBe(
            readFileSync(`${binary(target)}${suffix}`, "utf8"),
          );
        }
      }
    });
  });
});

describe("the arm64 binary under qemu-aarch64", () => {
  test("qemu-aarch64 and the arm64 C library are installed", () => {
    if (!HAVE_QEMU) {
      throw new Error(
        "the arm64 binary cannot run: qemu-aarch64 or the arm64 C library is missing " +
          "(make dist-test installs them; Debian: apt-get install qemu-user libc6-arm64-cross)",
      );
    }
  });
  const arm64 = (args: string[]) =>
    run([QEMU ?? "qemu-aarch64", "-L", ARM64_SYSROOT, binary("linux-arm64"), ...args]);

  test.skipIf(!HAVE_QEMU)("version, --version and -v print the same stamp as x64", () => {
    for (const flag of ["version", "--version", "-v"]) {
      const output = arm64([flag]);
      expect(output.stderr).toBe("");
      expect(output.code).toBe(0);
      expect(output.stdout).toBe(expectedVersionLine());
    }
  });

  test.skipIf(!HAVE_QEMU)(
    "validate passes valid manifests and reports invalid ones as x64 does",
    () => {
      for (const fixture of ["valid", "invalid"]) {
        const native = run([binary("linux-x64"), "validate", "-f", fixture]);
        const emulated = arm64(["validate", "-f", fixture]);
        expect(emulated.stdout).toBe(native.stdout);
        expect(emulated.code).toBe(native.code);
        expect(emulated.code).toBe(fixture === "valid" ? 0 : 1);
      }
    },
  );
});
