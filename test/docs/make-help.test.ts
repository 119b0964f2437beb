import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const REPO = join(import.meta.dir, "../..");

/** The targets the Makefile declares phony: every one a developer may type. */
function phonyTargets(): string[] {
  const makefile = readFileSync(join(REPO, "Makefile"), "utf8");
  const declaration = /^\.PHONY:((?:.*\\\n)*.*)$/m.exec(makefile)?.[1] ?? "";
  return declaration.replace(/\\\n/g, " ").split(/\s+/).filter(Boolean);
}

describe("make help", () => {
  test("lists every phony target, each with a one-line description", () => {
    const help = Bun.spawnSync(["make", "--no-print-directory", "help"], { cwd: REPO });
    expect(help.exitCode).toBe(0);
    const described = new Map(
      help.stdout
        .toString()
        .split("\n")
        .map((line) => /^\s+(\S+)\s+(\S.*)$/.exec(line))
        .filter((match) => match !== null)
        .map(([, target = "", description = ""]) => [target, description] as const),
    );
    const targets = phonyTargets();
    expect(targets).toContain("test");
    expect([...described.keys()].sort()).toEqual([...targets].sort());
    for (const [target, description] of described) {
      expect(description.length, target).toBeGreaterThan(10);
    }
  });
});
