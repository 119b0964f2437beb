import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../../package.json";
import { ENVIRONMENT_VARIABLES } from "../../src/config";
import { BINARY, startWebhook } from "./harness";

/** A folder of its own for runs that must leave nothing behind. */
const scratch = mkdtempSync(join(tmpdir(), "cocoon-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const result = Bun.spawnSync([BINARY, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
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

describe("command line", () => {
  test("version prints version, revision and build time", () => {
    const { code, stdout } = run(["version"]);
    expect(code).toBe(0);
    expect(stdout).toStartWith(`cocoon-webhook ${packageJson.version} (revision `);
    expect(stdout).toMatch(/ \(revision \S+, built \d{4}-\d\d-\d\dT/);
  });

  test.each(["--version", "-v"])("%s prints what version prints", (flag) => {
    const { code, stdout } = run([flag]);
    expect(code).toBe(0);
    expect(stdout).toBe(run(["version"]).stdout);
    expect(stdout).toStartWith("cocoon-webhook ");
  });

  test("an unknown command is a usage error", () => {
    const { code, stderr } = run(["frobnicate"]);
    expect(code).toBe(2);
    expect(stderr).toContain("usage:");
  });

  test.each([
    ["APISERVER_TIMEOUT", "0s"],
    ["APISERVER_TIMEOUT", "soon"],
    ["DRAIN_DELAY", "-1s"],
    ["SHUTDOWN_TIMEOUT", "15"],
    ["LISTEN_ADDR", "8443"],
    ["METRICS_ADDR", ":99999"],
    ["MAX_REQUEST_BYTES", "7MiB"],
    ["WEBHOOK_LOG_LEVEL", "verbose"],
    ["POD_CREATORS", " , "],
    ["RUNTIME_IDENTITIES", "system:serviceaccount:cocoon-system:*"],
    ["APISERVER_LIST_PAGE_SIZE", "1000"],
    ["ENFORCEMENT", "mutate=audit"],
    ["ENFORCEMENT", "validate_cocoonset=warn"],
  ])("serve refuses %s=%p and names the variable", (variable, value) => {
    const { code, stderr } = run(["serve"], { [variable]: value });
    expect(code).toBe(2);
    expect(stderr).toContain(variable);
  });

  test.each([
    "system:serviceaccount:sandbox-system:sandbox-operator=Sandbox",
    "system:serviceaccount:x:op=agents.x-k8s.io/Sandbox,agents.x-k8s.io/Sandbox",
    "system:serviceaccount:x:op=agents.x-k8s.io/v1beta1/Sandbox",
  ])("serve refuses POD_CREATORS=%p, naming the bad entry", (value) => {
    const bad = value.split(",").at(-1) ?? "";
    const { code, stderr } = run(["serve"], { POD_CREATORS: `alice,${value}` });
    expect(code).toBe(2);
    expect(stderr).toContain(`POD_CREATORS: entry "${bad}"`);
    expect(stderr).not.toContain('entry "alice"');
  });
});

describe("serve start-up", () => {
  test("warns when APISERVER_TIMEOUT is not below the webhook's 5 s timeout", async () => {
    const webhook = await startWebhook({ env: { APISERVER_TIMEOUT: "6s" } });
    try {
      const warning = webhook
        .logs()
        .find((line) => line.includes("APISERVER_TIMEOUT is not below"));
      expect(JSON.parse(warning ?? "{}")).toMatchObject({
        level: "warn",
        apiserverTimeoutMs: 6000,
      });
    } finally {
      await webhook.stop();
    }
  });
});

describe("an invalid variable, whichever it is", () => {
  test("ENFORCEMENT is reported within a few KB however many entries are wrong, with invisible characters escaped", () => {
    // 10 000 entries: about as long as one environment variable may be (128 KiB).
    const entries = ["mutate\u200b=warn", ...Array<string>(10_000).fill("x=warn")];
    const { code, stderr } = run(["serve"], { ENFORCEMENT: entries.join(",") });
    expect(code).toBe(2);
    expect(stderr).toContain('"mutate\\u200b" is not an endpoint');
    expect(stderr).toContain("… and 9991 more problems");
    expect(stderr.length).toBeLessThan(4096);
    expect(stderr.split("\n").length).toBeLessThan(20);
  });
});

/**
 * `--help` of every subcommand the top-level help lists: it prints that
 * command's usage and exits 0 at once, without doing what the command does —
 * serve binds no listener and reads no certificate, audit reads no kubeconfig,
 * validate reads no file — and leaves nothing behind (HOME, KUBECONFIG and the
 * certificate paths point into an empty folder).
 */
const runInScratch = (args: string[]) =>
  run(
    args,
    {
      HOME: scratch,
      KUBECONFIG: join(scratch, "kubeconfig"),
      TLS_CERT: join(scratch, "missing.crt"),
      TLS_KEY: join(scratch, "missing.key"),
    },
    scratch,
  );

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
    const { code, stdout, stderr } = runInScratch([command, flag]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    if (command === "version") expect(stdout).toStartWith("cocoon-webhook ");
    else expect(stdout).toStartWith(`usage: cocoon-webhook ${command}`);
    expect(readdirSync(scratch)).toEqual([]);
  });

  test("serve --help names every environment variable serve reads", () => {
    const { stdout } = runInScratch(["serve", "--help"]);
    expect(ENVIRONMENT_VARIABLES.length).toBeGreaterThan(10);
    for (const variable of ENVIRONMENT_VARIABLES)
      expect(stdout).toMatch(new RegExp(`\\b${variable}\\b`));
  });

  test("serve refuses an argument instead of starting", () => {
    const { code, stderr } = runInScratch(["serve", "--port=8443"]);
    expect(code).toBe(2);
    expect(stderr).toStartWith(
      "cocoon-webhook: serve takes no arguments\nusage: cocoon-webhook serve",
    );
  });
});

describe("every variable's problems, bounded and escaped as ENFORCEMENT's are", () => {
  test("POD_CREATORS with 10 000 bad entries is reported within a few KB", () => {
    // Short entries: one environment variable may be at most 128 KiB.
    const entries = Array.from({ length: 10_000 }, (_, index) => `u${index}=x`);
    const { code, stderr } = run(["serve"], { POD_CREATORS: entries.join(",") });
    expect(code).toBe(2);
    expect(stderr).toContain('POD_CREATORS: entry "u0=x"');
    expect(stderr).toContain("POD_CREATORS: … and 9990 more problems");
    expect(stderr.length).toBeLessThan(4096);
  });

  test.each([
    ["POD_CREATORS", "\u001b[2J\u001b[31mfake=not/a kind"],
    ["LISTEN_ADDR", "\u001b]0;owned\u0007:8443x"],
    ["APISERVER_TIMEOUT", "3s\u001b[1A\u001b[K"],
  ])("%s with ESC sequences: written as escapes, never sent to the terminal", (variable, value) => {
    const { code, stderr } = run(["serve"], { [variable]: value });
    expect(code).toBe(2);
    expect(stderr).toContain(`${variable}: `);
    expect(stderr).toContain("\\u001b");
    expect(stderr).not.toContain("\u001b");
    expect(stderr).not.toContain("\u0007");
  });
});
