import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ENVIRONMENT_VARIABLES } from "../../src/config";
import { BINARY } from "./harness";

/*
 * `--help` of every subcommand the top-level help lists: it prints that
 * command's usage and exits 0 at once, without doing what the command does —
 * serve binds no listener and reads no certificate, audit reads no kubeconfig,
 * validate reads no file — and leaves nothing behind.
 */

const scratch = mkdtempSync(join(tmpdir(), "cocoon-help-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(args: readonly string[]) {
  const result = Bun.spawnSync([BINARY, ...args], {
    cwd: scratch,
    // A HOME and a KUBECONFIG in the scratch folder: nothing of the machine's is read or written.
    env: {
      PATH: process.env.PATH ?? "",
      HOME: scratch,
      KUBECONFIG: join(scratch, "kubeconfig"),
      TLS_CERT: join(scratch, "missing.crt"),
      TLS_KEY: join(scratch, "missing.key"),
    },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 10_000,
  });
  return {
    code: result.exitCode,
    stdout: result.stdout.toString(),
    stderr: result.stderr.toString(),
  };
}

/** The subcommands `cocoon-webhook --help` lists: the first word of each two-space-indented line. */
const commands = [...run(["--help"]).stdout.matchAll(/^ {2}([a-z]+) /gm)].map(
  ([, name = ""]) => name,
);

describe("--help", () => {
  test("the top-level help lists the subcommands", () => {
    expect(commands).toEqual(["serve", "version", "validate", "audit"]);
  });

  test.each(
    commands.flatMap((command) => [[command, "--help"] as const, [command, "-h"] as const]),
  )("%s %s prints its usage and exits 0 without side effects", (command, flag) => {
    const { code, stdout, stderr } = run([command, flag]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    if (command === "version") expect(stdout).toStartWith("cocoon-webhook ");
    else expect(stdout).toStartWith(`usage: cocoon-webhook ${command}`);
    expect(readdirSync(scratch)).toEqual([]);
  });

  test("serve --help names every environment variable serve reads", () => {
    const { stdout } = run(["serve", "--help"]);
    expect(ENVIRONMENT_VARIABLES.length).toBeGreaterThan(10);
    for (const variable of ENVIRONMENT_VARIABLES)
      expect(stdout).toMatch(new RegExp(`\\b${variable}\\b`));
  });

  test("serve refuses an argument instead of starting", () => {
    const { code, stderr } = run(["serve", "--port=8443"]);
    expect(code).toBe(2);
    expect(stderr).toStartWith(
      "cocoon-webhook: serve takes no arguments\nusage: cocoon-webhook serve",
    );
  });
});
