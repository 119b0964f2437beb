import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_FILE_BYTES, readOpenedRegularFile, readRegularFile } from "../src/safe-file";

const dir = mkdtempSync(join(tmpdir(), "safe-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function mkfifo(name: string): string {
  const path = join(dir, name);
  const made = Bun.spawnSync(["mkfifo", path]);
  if (made.exitCode !== 0) throw new Error(`mkfifo failed: ${made.stderr.toString()}`);
  return path;
}

const SAFE_FILE = join(import.meta.dir, "../src/safe-file.ts");

/**
 * Runs a read in a child process killed after 10 s: a read that blocks on a
 * FIFO would otherwise hang the whole test runner, which no test timeout can
 * interrupt. Returns the error message, or "read <n> chars".
 */
async function readInChild(path: string, which: "readRegularFile" | "readOpenedRegularFile") {
  const script = `
    const { ${which} } = await import(${JSON.stringify(SAFE_FILE)});
    try { console.log("read " + ${which}(${JSON.stringify(path)}).length + " chars"); }
    catch (error) { console.log(error.message); }`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  const [output, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  clearTimeout(killer);
  return { output: output.trim(), exitCode };
}

describe("readRegularFile", () => {
  test("reads a regular file, also through a chain of symlinks as in a Secret volume", () => {
    mkdirSync(join(dir, "..2026_01"));
    writeFileSync(join(dir, "..2026_01", "tls.crt"), "PEM");
    symlinkSync("..2026_01", join(dir, "..data"));
    symlinkSync("..data/tls.crt", join(dir, "tls.crt"));
    expect(readRegularFile(join(dir, "tls.crt"))).toBe("PEM");
  });

  test("a file longer than its stat says (as /proc's are) is read whole, up to the limit", () => {
    const status = readRegularFile("/proc/self/status");
    expect(status).toContain("VmRSS:");
    expect(() => readRegularFile("/proc/self/status", 16)).toThrow(
      "/proc/self/status grew past the 16-byte limit while being read",
    );
  });

  test("a file of exactly the limit is read; one byte more is refused", () => {
    const atLimit = join(dir, "at-limit");
    writeFileSync(atLimit, Buffer.alloc(MAX_FILE_BYTES, 0x61));
    expect(readRegularFile(atLimit)).toHaveLength(MAX_FILE_BYTES);
    const over = join(dir, "over-limit");
    writeFileSync(over, Buffer.alloc(MAX_FILE_BYTES + 1, 0x61));
    expect(() => readRegularFile(over)).toThrow(
      `${over} is ${MAX_FILE_BYTES + 1} bytes, over the ${MAX_FILE_BYTES}-byte limit`,
    );
  });

  test("a directory is refused", () => {
    const folder = join(dir, "a-directory");
    mkdirSync(folder);
    expect(() => readRegularFile(folder)).toThrow(`${folder} is a directory, not a regular file`);
  });

  test("a symlink to /dev/zero is refused without reading it", () => {
    const link = join(dir, "zero-link");
    symlinkSync("/dev/zero", link);
    expect(() => readRegularFile(link)).toThrow(`${link} is a character device`);
    expect(() => readOpenedRegularFile(link)).toThrow(`${link} is a character device`);
  });

  test("a missing file throws the system error naming it", () => {
    expect(() => readRegularFile(join(dir, "absent"))).toThrow(/ENOENT.*absent/);
  });

  test("a FIFO is refused at once, not waited on", async () => {
    const fifo = mkfifo("fifo");
    expect(await readInChild(fifo, "readRegularFile")).toEqual({
      output: `${fifo} is a FIFO, not a regular file (symlinks are followed; the final target must be a regular file)`,
      exitCode: 0,
    });
  }, 20_000);

  test("a FIFO that replaced the file after the stat does not block the open", async () => {
    const fifo = mkfifo("swapped-in");
    const { output, exitCode } = await readInChild(fifo, "readOpenedRegularFile");
    expect(output).toStartWith(`${fifo} is a FIFO`);
    expect(exitCode).toBe(0);
  }, 20_000);
});
