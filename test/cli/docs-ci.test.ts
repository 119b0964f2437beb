import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { runValidate } from "../../src/cli/validate/command";

const ROOT = join(import.meta.dir, "../..");
const GUIDE = readFileSync(join(ROOT, "docs/cli.md"), "utf8");
const yamlBlocks = [...GUIDE.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) =>
  parse(match[1] ?? ""),
);

interface Step {
  run?: string;
  uses?: string;
}

async function exitCodeOf(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  const code = await runValidate(args, {
    readStdin: async () => "",
    stdout: async (text) => {
      stdout += text;
    },
    stderr: async () => {},
    stderrSharesStdout: () => false,
  });
  return { code, stdout };
}

describe("docs/cli.md: offline validation in CI", () => {
  test("the pre-commit example uses the shipped hook id", () => {
    const [hook] = parse(readFileSync(join(ROOT, ".pre-commit-hooks.yaml"), "utf8"));
    const config = yamlBlocks.find((block) => "repos" in block);
    expect(config.repos[0].hooks[0].id).toBe(hook.id);
  });

  test("the GitHub Actions job downloads a binary and checksum the release workflow publishes", () => {
    const job = yamlBlocks.find((block) => "jobs" in block).jobs["cocoon-manifests"];
    const install = (job.steps as Step[]).find((step) => step.run?.includes("sha256sum -c"));
    const release = readFileSync(join(ROOT, ".github/workflows/release.yml"), "utf8");
    const publish = release.slice(release.indexOf("gh release create"));
    for (const asset of ["cocoon-webhook-linux-x64", "cocoon-webhook-linux-x64.sha256"]) {
      expect(install?.run).toContain(`$base/${asset}`);
      expect(publish).toContain(` ${asset} `);
    }
  });

  test("each validate command in the job runs as written", async () => {
    const job = yamlBlocks.find((block) => "jobs" in block).jobs["cocoon-manifests"];
    const commands = (job.steps as Step[])
      .map((step) => step.run ?? "")
      .filter((run) => run.startsWith("cocoon-webhook validate"));
    expect(commands).toHaveLength(2);
    for (const command of commands) {
      const args = command
        .split(" > ")[0]
        ?.split(" ")
        .slice(2)
        .map((arg) => (arg === "deploy/" ? join(ROOT, "test/fixtures/validate/invalid") : arg));
      const { code, stdout } = await exitCodeOf(args ?? []);
      expect(code).toBe(1);
      expect(stdout.length).toBeGreaterThan(0);
    }
  });
});
