/*
 * scripts/debian-packages.sh: quiet when every package's file is there, and a
 * failure naming the packages where they are missing and cannot be installed
 * (never a silent skip).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoPath } from "../manifests/kustomize";

const SCRIPT = repoPath("scripts/debian-packages.sh");
const BASH = Bun.which("bash") ?? "/bin/bash";
const bin = mkdtempSync(join(tmpdir(), "cocoon-no-apt-"));
afterAll(() => rmSync(bin, { recursive: true, force: true }));
// A PATH with `id` but neither apt-get nor sudo: a machine that cannot install.
symlinkSync(Bun.which("id") ?? "/usr/bin/id", join(bin, "id"));

function run(args: string[], path = process.env.PATH ?? "") {
  const result = Bun.spawnSync([BASH, SCRIPT, ...args], {
    env: { PATH: path },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: result.exitCode, stderr: result.stderr.toString() };
}

describe("scripts/debian-packages.sh", () => {
  test("does nothing when every package's file exists", () => {
    expect(run(["bash=/bin/bash", "coreutils=/bin/ls"], bin)).toEqual({ code: 0, stderr: "" });
  });

  test("fails naming the missing packages where it cannot install them", () => {
    const missing = run(["bash=/bin/bash", "no-such-package=/nonexistent/tool"], bin);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("missing Debian packages: no-such-package");
    expect(missing.stderr).not.toContain("bash");
  });
});
