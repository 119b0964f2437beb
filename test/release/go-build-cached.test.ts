/*
 * scripts/go-build-cached.sh on a one-package module of its own: the tool
 * lines are built into a cache keyed by go.mod, go.sum and Go, a warm call
 * builds nothing, a changed pin builds afresh, and no Go is exit 3.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { repoPath } from "../manifests/kustomize";

const SCRIPT = repoPath("scripts/go-build-cached.sh");
const root = mkdtempSync(join(tmpdir(), "cocoon-go-build-"));
const module = join(root, "module");
const cacheRoot = join(root, "cache");
afterAll(() => rmSync(root, { recursive: true, force: true }));

mkdirSync(join(module, "cmd/hello/v2"), { recursive: true });
writeFileSync(
  join(module, "go.mod"),
  "module example.test/tools\n\ngo 1.24\n\ntool (\n\texample.test/tools/cmd/hello/v2\n)\n",
);
writeFileSync(join(module, "go.sum"), "");
writeFileSync(
  join(module, "cmd/hello/v2/main.go"),
  'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n',
);

// The machine's Go build cache, so the test compiles only its own package.
const GOCACHE = Bun.spawnSync(["go", "env", "GOCACHE"]).stdout.toString().trim();

function build(env: Record<string, string> = {}) {
  const result = Bun.spawnSync([SCRIPT, module, "hello-tools"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: root,
      GOCACHE,
      GOFLAGS: "-modcacherw",
      GO_BUILD_CACHE_ROOT: cacheRoot,
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 300_000,
  });
  return {
    code: result.exitCode,
    folder: result.stdout.toString().trim(),
    log: result.stderr.toString(),
  };
}

describe("scripts/go-build-cached.sh", () => {
  test("builds the module's tools into the cache, named without the major-version suffix", () => {
    const first = build();
    expect(first.code).toBe(0);
    expect(dirname(first.folder)).toBe(join(cacheRoot, "hello-tools"));
    expect(first.log).toContain("built in");
    const hello = Bun.spawnSync([join(first.folder, "hello")]);
    expect(hello.stdout.toString()).toBe("hello\n");
  }, 120_000);

  test("a warm call builds nothing and prints the same folder", () => {
    const warm = build();
    const again = build();
    expect(again.code).toBe(0);
    expect(again.folder).toBe(warm.folder);
    expect(again.log).toBe("");
    expect(statSync(join(again.folder, "hello")).mtimeMs).toBe(
      statSync(join(warm.folder, "hello")).mtimeMs,
    );
  });

  test("another pin or another binary name is another cache entry", () => {
    const before = build().folder;
    const renamed = build({ GO_BINARY_NAMES: "example.test/tools/cmd/hello/v2=greet" });
    expect(renamed.code).toBe(0);
    expect(renamed.folder).not.toBe(before);
    expect(Bun.spawnSync([join(renamed.folder, "greet")]).stdout.toString()).toBe("hello\n");
  }, 120_000);

  test("without Go on PATH it exits 3, naming the module", () => {
    const noGo = build({ PATH: "/usr/bin:/bin" });
    expect(noGo.code).toBe(3);
    expect(noGo.log).toContain(`no Go toolchain on PATH: cannot build the tools of ${module}`);
  });
});
