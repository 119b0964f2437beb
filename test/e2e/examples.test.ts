import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { BINARY } from "./harness";

/*
 * The examples under docs/examples are what an adopter copies: each passes
 * `cocoon-webhook validate --strict` (every rule, the CRD's schema, no
 * unknown field) as the docs say to check one's own.
 */

const REPO = join(import.meta.dir, "../..");
const EXAMPLES = readdirSync(join(REPO, "docs/examples")).filter((name) => name.endsWith(".yaml"));

describe("docs/examples", () => {
  test("holds an example CocoonSet", () => {
    expect(EXAMPLES).toContain("cocoonset.yaml");
  });

  test.each(EXAMPLES)("%s passes validate --strict", (name) => {
    const result = Bun.spawnSync([BINARY, "validate", "--strict", `docs/examples/${name}`], {
      cwd: REPO,
      stdout: "pipe",
      stderr: "pipe",
      timeout: 10_000,
    });
    expect(result.stderr.toString()).toBe("");
    expect(result.stdout.toString()).toMatch(/^0 errors, 0 warnings in 0 of [1-9]\d* objects? /);
    expect(result.exitCode).toBe(0);
  });
});
