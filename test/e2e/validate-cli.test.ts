import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import packageJson from "../../package.json";
import type { OutputFormat } from "../../src/cli/formats/render";
import { admissionReview, COCOONSET_KIND } from "../support/admission-review";
import { waitUntil } from "../support/eventually";
import { MIB, processCpuSeconds, processState } from "../support/procfs";
import { BINARY, readReview, startWebhook, type WebhookProcess } from "./harness";

const FIXTURES = join(import.meta.dir, "../fixtures/validate");
const NOTE =
  "CocoonHibernations are checked for a second one per pod within the given files only; validate never calls an apiserver, so ones already in the cluster are not seen";

function validate(args: string[], stdin?: string, { binary = BINARY, cwd = FIXTURES } = {}) {
  const result = Bun.spawnSync([binary, "validate", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "" },
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
    timeout: 10_000,
  });
  const stdout = result.stdout.toString();
  return {
    code: result.exitCode,
    stdout,
    stderr: result.stderr.toString(),
    /** `FILE:LINE:COLUMN: SEVERITY: KIND NAMESPACE/NAME: PATH` of each finding, without the message. */
    located: stdout
      .split("\n")
      .filter((line) => /^\S+:\d+:\d+: /.test(line))
      .map((line) => line.split(": ").slice(0, 4).join(": ")),
  };
}

/**
 * Until `child` has exited, or sleeps with its CPU time unchanged over five
 * polls in a row: it has done all it can do without a reader.
 */
async function untilExitedOrIdle(child: Subprocess): Promise<void> {
  let cpuSeconds = -1;
  let idlePolls = 0;
  await waitUntil(() => {
    if (child.exitCode !== null) return true;
    const state = processState(child.pid);
    if (state === "Z") return true;
    const used = processCpuSeconds(child.pid);
    idlePolls = state === "S" && used === cpuSeconds ? idlePolls + 1 : 0;
    cpuSeconds = used;
    return idlePolls >= 5;
  }, 10_000);
}

interface JsonFinding {
  file: string;
  line: number;
  column: number;
  severity: "error" | "warning";
  kind: string;
  namespace: string;
  name: string;
  path: string;
  message: string;
  rule: string;
}

describe("cocoon-webhook validate", () => {
  test("valid sets and hibernations pass with exit 0; other kinds are skipped", () => {
    const { code, stdout } = validate(["-f", "valid"]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      `note: ${NOTE}\n0 errors, 0 warnings in 0 of 3 objects (1 of other API groups skipped) across 2 files\n`,
    );
  });

  test("a mistyped field hides no other violation of its object", () => {
    const set =
      "apiVersion: cocoonset.cocoonstack.io/v1\nkind: CocoonSet\nmetadata: {name: s}\nspec:\n" +
      '  agent:\n    replicas: "2"\n    backend: qemu\n';
    const { code, located } = validate(["-f", "-"], set);
    expect(code).toBe(1);
    expect(located).toEqual([
      "<stdin>:5:3: error: CocoonSet default/s: spec.agent.image",
      "<stdin>:6:5: error: CocoonSet default/s: spec.agent.replicas",
      "<stdin>:7:5: error: CocoonSet default/s: spec.agent.backend",
    ]);
  });

  test("a cocoon object of an unknown apiVersion or kind is a warning, an error with --strict", () => {
    const unknown =
      "apiVersion: cocoonset.cocoonstack.io/v1beta1\nkind: CocoonSet\nmetadata: {name: s}\nspec: {}\n" +
      "---\napiVersion: cocoonset.cocoonstack.io/v1\nkind: Cocoonset\nmetadata: {name: t}\n";
    const { code, stdout } = validate(["-f", "-"], unknown);
    expect(code).toBe(0);
    expect(stdout).toContain(
      '<stdin>:1:1: warning: CocoonSet default/s: apiVersion "cocoonset.cocoonstack.io/v1beta1" is not one this tool knows, so the object was not checked; did you mean "cocoonset.cocoonstack.io/v1"? [manifest.unknown-object]',
    );
    expect(stdout).toContain('<stdin>:6:1: warning: Cocoonset default/t: kind "Cocoonset"');
    expect(stdout).toEndWith(
      "0 errors, 2 warnings in 2 of 2 objects (0 of other API groups skipped) across 1 file\n",
    );
    const strict = validate(["--strict", "-f", "-"], unknown);
    expect(strict.code).toBe(1);
    expect(strict.located.map((line) => line.split(": ").slice(0, 3).join(": "))).toEqual([
      "<stdin>:1:1: error: CocoonSet default/s",
      "<stdin>:6:1: error: Cocoonset default/t",
    ]);
  });

  test("what the CRD's own schema refuses is an error at its line, with or without --strict", () => {
    const refused =
      "apiVersion: cocoonset.cocoonstack.io/v1\nkind: CocoonSet\nmetadata: {name: s}\nspec:\n" +
      "  hibernatePolicy: release\n  snapshotCompatibilityClass: x86-v3.\n  agent:\n" +
      "    image: org/agent:1\n    replicas: 1\n    probePort: 70000\n    storage: 20 GB\n" +
      "    resources: {limits: {memory: 4GiB}}\n";
    for (const args of [
      ["-f", "-"],
      ["--strict", "-f", "-"],
    ]) {
      const { code, located, stdout } = validate(args, refused);
      expect(code).toBe(1);
      expect(located).toEqual([
        "<stdin>:6:3: error: CocoonSet default/s: spec.snapshotCompatibilityClass",
        "<stdin>:9:5: error: CocoonSet default/s: spec.agent.replicas",
        "<stdin>:10:5: error: CocoonSet default/s: spec.agent.probePort",
        "<stdin>:11:5: error: CocoonSet default/s: spec.agent.storage",
        "<stdin>:12:26: error: CocoonSet default/s: spec.agent.resources.limits.memory",
      ]);
      for (const rule of [
        "crd-port",
        "crd-quantity",
        "crd-snapshot-class",
        "crd-hibernate-release",
      ]) {
        expect(stdout).toContain(`[manifest.${rule}]`);
      }
    }
  });

  test("a CocoonSet of the legacy cocoon.cis/v1alpha1 is reported: a warning, an error with --strict", () => {
    const legacy =
      "apiVersion: cocoon.cis/v1alpha1\nkind: CocoonSet\nmetadata: {name: old}\nspec: {}\n";
    const { code, stdout } = validate(["-f", "-"], legacy);
    expect(code).toBe(0);
    expect(stdout).toContain(
      '<stdin>:1:1: warning: CocoonSet default/old: apiVersion "cocoon.cis/v1alpha1" is not one this tool knows, so the object was not checked',
    );
    expect(stdout).toEndWith(
      "0 errors, 1 warning in 1 of 1 object (0 of other API groups skipped) across 1 file\n",
    );
    expect(validate(["--strict", "-f", "-"], legacy).code).toBe(1);
  });

  test("a field the CRD does not define is a warning at its line and column, with a near miss", () => {
    const typo =
      "apiVersion: cocoonset.cocoonstack.io/v1\nkind: CocoonSet\nmetadata:\n  name: s\n  labels: {free: key}\n" +
      "spec:\n  agent:\n    imgae: org/agent:1\n    image: org/agent:1\n    resources: {limits: {any: 1}}\n";
    const { code, stdout } = validate(["-f", "-"], typo);
    expect(code).toBe(0);
    expect(stdout).toStartWith(
      '<stdin>:8:5: warning: CocoonSet default/s: spec.agent.imgae: "imgae" is not a field of the CocoonSet CRD, so the apiserver drops or rejects it; did you mean "image"? [manifest.unknown-field]\n',
    );
    expect(stdout).toEndWith(
      "0 errors, 1 warning in 1 of 1 object (0 of other API groups skipped) across 1 file\n",
    );
    const strict = validate(["--strict", "-f", "-"], typo);
    expect(strict.code).toBe(1);
    expect(strict.located).toEqual(["<stdin>:8:5: error: CocoonSet default/s: spec.agent.imgae"]);
  });

  test("the CRD schema is inside the binary: a copy run where no manifests/ exists reads its fields, enums, defaults and bounds", () => {
    const directory = mkdtempSync(join(tmpdir(), "validate-alone-"));
    try {
      const binary = join(directory, "cocoon-webhook");
      copyFileSync(BINARY, binary);
      writeFileSync(
        join(directory, "objects.yaml"),
        "apiVersion: cocoonset.cocoonstack.io/v1\nkind: CocoonSet\nmetadata: {name: s}\nspec:\n" +
          "  agent:\n    imgae: org/agent:1\n    image: org/agent:1\n    os: Linux\n" +
          "    backend: firecracker\n    probePort: 70000\n---\n" +
          "apiVersion: cocoonset.cocoonstack.io/v1\nkind: CocoonHibernation\nmetadata: {name: p}\n" +
          "spec: {podRef: {name: p}, desire: hibernate}\n",
      );
      const { code, stdout } = validate(["-f", "objects.yaml"], undefined, {
        binary,
        cwd: directory,
      });
      expect(code).toBe(1);
      for (const finding of [
        'spec.agent.mode: firecracker supports only mode "run", but the mode is "clone" (the default when unset)',
        'spec.agent.imgae: "imgae" is not a field of the CocoonSet CRD, so the apiserver drops or rejects it; did you mean "image"? [manifest.unknown-field]',
        'spec.agent.os: must be one of "linux", "windows", "android", "macos" (or leave it unset for "linux"), got "Linux"; values are case-sensitive [vm.os]',
        "spec.agent.probePort: is 70000, but the CRD allows a whole number from 0 to 65535",
        'spec.desire: must be "Hibernate" or "Wake" (case-sensitive), got "hibernate" [hibernation.desire]',
      ]) {
        expect(stdout).toContain(finding);
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test("every violation is reported at the line of its field, or of the nearest parent", () => {
    const { code, located, stdout } = validate(["-f", "invalid"]);
    expect(code).toBe(1);
    expect(located).toEqual([
      "invalid/cocoonset.yaml:6:3: error: CocoonSet default/broken: spec.agent.image",
      "invalid/cocoonset.yaml:7:5: error: CocoonSet default/broken: spec.agent.replicas",
      "invalid/cocoonset.yaml:10:5: error: CocoonSet default/broken: spec.agent.os",
      "invalid/cocoonset.yaml:16:7: error: CocoonSet default/broken: spec.toolboxes[1].name",
      "invalid/cocoonset.yaml:20:3: error: CocoonSet default/broken: spec.snapshotPolicy",
      "invalid/hibernation.yaml:4:3: error: CocoonHibernation default/wrong-name: metadata.name",
      "invalid/hibernation.yaml:8:3: error: CocoonHibernation default/wrong-name: spec.desire",
      "invalid/set.json:7:7: error: CocoonSet team-b/from-json: spec.agent.image",
    ]);
    expect(stdout).toContain("spec.snapshotPolicy: must be one of");
    expect(stdout).toEndWith(
      "8 errors, 0 warnings in 3 of 3 objects (0 of other API groups skipped) across 3 files\n",
    );
  });

  test("multi-document files are checked document by document", () => {
    const { code, located, stdout } = validate(["-f", "multi.yaml"]);
    expect(code).toBe(1);
    expect(located).toEqual(["multi.yaml:16:5: error: CocoonSet default/second: spec.agent.os"]);
    expect(stdout).toContain(
      "1 error, 0 warnings in 1 of 3 objects (1 of other API groups skipped)",
    );
  });

  test("List items are expanded, and a typed list lends its kind to its items", () => {
    const list = validate(["-f", "list.yaml"]);
    expect(list.located).toEqual([
      "list.yaml:18:7: error: CocoonSet default/listed-bad: spec.hibernatePolicy",
    ]);
    const typed = validate(["typed-list.yaml"]);
    expect(typed.code).toBe(1);
    expect(typed.located).toEqual([
      "typed-list.yaml:7:7: error: CocoonSet default/implied-kind: spec.agent.image",
      "typed-list.yaml:8:5: error: CocoonSet default/<unnamed>: is not a JSON object, so it cannot be a CocoonSet; write it as a mapping with apiVersion, kind, metadata and spec [decode]",
    ]);
  });

  test("a directory is walked in name order over *.yaml, *.yml and *.json, hidden entries aside", () => {
    const { code, stdout } = validate(["-f", "tree", "-o", "json"]);
    expect(code).toBe(0);
    expect(stdout).toBe("[]\n");
    const all = validate(["-f", "."]);
    const files = [...new Set(all.located.map((line) => line.split(":")[0]))];
    expect(files).toEqual([...files].sort());
    expect(all.stdout).not.toContain(".hidden");
    expect(all.stdout).not.toContain("notes.txt");
  });

  test("stdin is read for -f - and shown as <stdin>; --namespace fills a missing namespace", async () => {
    const text = await Bun.file(join(FIXTURES, "multi.yaml")).text();
    const { code, located } = validate(["-f", "-", "--namespace", "team-z"], text);
    expect(code).toBe(1);
    expect(located).toEqual(["<stdin>:16:5: error: CocoonSet team-z/second: spec.agent.os"]);
  });

  test("-o json prints the findings as one JSON array and the summary on stderr", () => {
    const { code, stdout, stderr } = validate(["-o", "json", "-f", "invalid/set.json"]);
    expect(code).toBe(1);
    const findings = JSON.parse(stdout) as JsonFinding[];
    expect(findings).toEqual([
      {
        file: "invalid/set.json",
        line: 7,
        column: 7,
        severity: "error",
        kind: "CocoonSet",
        namespace: "team-b",
        name: "from-json",
        path: "spec.agent.image",
        message: expect.stringContaining("cloud-image URL cannot be cloned"),
        rule: "clone.image-reference",
      },
    ]);
    expect(stderr).toBe(
      "1 error, 0 warnings in 1 of 1 object (0 of other API groups skipped) across 1 file\n",
    );
  });

  test("two CocoonHibernations for one pod in one namespace conflict across files", () => {
    const { code, stdout, located } = validate(["-f", "hibernations"]);
    expect(code).toBe(1);
    expect(located).toEqual([
      "hibernations/second.yaml:9:5: error: CocoonHibernation team-a/agents-2: spec.podRef.name",
    ]);
    expect(stdout.split(NOTE)).toHaveLength(2);
    expect(stdout).toContain(
      'pod "agents-2" already has CocoonHibernation "agents-2"; flip its spec.desire instead of creating another (it is at hibernations/first.yaml:4)',
    );
  });

  test("unparsable YAML exits 2 naming file, line and column", () => {
    const { code, stderr, stdout } = validate(["-f", "broken.yaml.txt", "-f", "valid"]);
    expect(code).toBe(2);
    expect(stderr).toContain("cocoon-webhook validate: broken.yaml.txt:8:3: ");
    expect(stdout).toContain("1 input could not be read or parsed");
  });

  test("an unreadable path exits 2 and says why", () => {
    const { code, stderr } = validate(["-f", "no-such-dir/sets.yaml"]);
    expect(code).toBe(2);
    expect(stderr).toContain("no-such-dir/sets.yaml: cannot read: no such file or directory");
  });

  test("a directory or glob with no manifest exits 2 naming it", () => {
    const empty = mkdtempSync(join(tmpdir(), "cocoon-empty-"));
    try {
      const directory = validate(["-f", empty, "valid"]);
      expect(directory.code).toBe(2);
      expect(directory.stderr).toContain(
        `cocoon-webhook validate: ${empty}: holds no manifest (no *.yaml, *.yml or *.json file)`,
      );
      const glob = validate(["valid/*.yml"]);
      expect(glob.code).toBe(2);
      expect(glob.stderr).toContain("valid/*.yml: matches no manifest");
      const matching = validate(["hibernations/*.yaml"]);
      expect(matching.code).toBe(1);
      expect(matching.stdout).toContain("across 2 files");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  /** `validate ARGS REDIRECT` through bash, the file that REDIRECT names, and the exit status. */
  function redirected(args: string[], redirect: string): { code: number | null; written: string } {
    const directory = mkdtempSync(join(tmpdir(), "cocoon-redirect-"));
    try {
      const out = join(directory, "out");
      const shell = Bun.spawnSync(
        ["bash", "-c", `"$0" validate ${args.join(" ")} ${redirect}`, BINARY, out],
        { cwd: FIXTURES, env: { PATH: process.env.PATH ?? "" } },
      );
      return { code: shell.exitCode, written: readFileSync(out, "utf8") };
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }

  const SHARED_FILE = ['> "$1" 2>&1', '&> "$1"', '>> "$1" 2>&1', '> "$1" 2> "$1"'];
  const documentReaders: Record<Exclude<OutputFormat, "text">, (written: string) => unknown> = {
    json: (written) => JSON.parse(written),
    sarif: (written) => JSON.parse(written).runs[0].results,
    junit: (written) => {
      expect(XMLValidator.validate(written)).toBe(true);
      return new XMLParser().parse(written).testsuites;
    },
    github: (written) => {
      const lines = written.trimEnd().split("\n");
      for (const line of lines) expect(line).toMatch(/^::(error|warning|notice)[ :]/);
      return lines;
    },
  };

  test.each(Object.entries(documentReaders))(
    "-o %s: with stdout and stderr in one file the file is the document alone, and it parses",
    (format, read) => {
      const args = ["-o", format, "invalid", "hibernations"];
      const piped = validate(args);
      expect(piped.code).toBe(1);
      expect(piped.stderr).toContain("across 5 files\n");
      for (const redirect of SHARED_FILE) {
        const { code, written } = redirected(args, redirect);
        expect({ redirect, code }).toEqual({ redirect, code: 1 });
        expect(written).toBe(piped.stdout);
        expect(read(written)).toBeTruthy();
      }
    },
  );

  test("-o json: an unreadable input is still named beside the document (exit 2)", () => {
    const { code, written } = redirected(["-o", "json", "valid", "broken.yaml.txt"], '&> "$1"');
    expect(code).toBe(2);
    expect(written).toContain("cocoon-webhook validate: broken.yaml.txt:8:3: ");
    expect(written).not.toContain("could not be read or parsed");
  });

  test("-o text keeps its summary and every problem in a shared file", () => {
    const args = ["invalid", "broken.yaml.txt"];
    const piped = validate(args);
    for (const redirect of SHARED_FILE.slice(0, 3)) {
      const { code, written } = redirected(args, redirect);
      expect(code).toBe(2);
      expect(written.length).toBe(piped.stdout.length + piped.stderr.length);
      for (const line of `${piped.stdout}${piped.stderr}`.split("\n")) {
        expect(written).toContain(line);
      }
    }
  });

  test("on a terminal, where a person reads both streams, -o json keeps its summary", () => {
    const terminal = Bun.spawnSync(
      [
        "script",
        "--quiet",
        "--return",
        "--command",
        `"${BINARY}" validate -o json invalid/set.json`,
        "/dev/null",
      ],
      { cwd: FIXTURES, env: { PATH: process.env.PATH ?? "" } },
    );
    expect(terminal.exitCode).toBe(1);
    expect(terminal.stdout.toString()).toContain(
      "1 error, 0 warnings in 1 of 1 object (0 of other API groups skipped) across 1 file",
    );
  });

  test.each([
    [[]],
    [["-o", "yaml", "-f", "valid"]],
    [["--frobnicate", "-f", "valid"]],
    [["-n", "", "-f", "valid"]],
  ])("usage errors exit 2: %p", (args) => {
    const { code, stderr } = validate(args);
    expect(code).toBe(2);
    expect(stderr).toContain("usage: cocoon-webhook validate");
  });

  test("--help exits 0 with the usage", () => {
    const { code, stdout } = validate(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain(
      "exit status: 0 no error (warnings allowed), 1 findings at error level",
    );
    for (const flag of [
      "--filename",
      "--namespace",
      "--output",
      "--strict",
      "--version",
      "--help",
    ]) {
      expect(stdout).toContain(flag);
    }
    expect(stdout).toContain("examples:");
  });

  test.each([
    [["-o", "json"]],
    [["-o=json"]],
    [["-ojson"]],
    [["--output", "json"]],
    [["--output=json"]],
  ])("flags as people type them: %p", (flag) => {
    const { code, stdout } = validate([...flag, "invalid/set.json"]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toHaveLength(1);
  });

  test("--version and -v print the version", () => {
    for (const flag of ["--version", "-v"]) {
      const { code, stdout } = validate([flag]);
      expect(code).toBe(0);
      expect(stdout).toStartWith(`cocoon-webhook ${packageJson.version} (revision `);
    }
  });

  test("an unknown flag exits 2 naming it, with a near miss", () => {
    const { code, stderr } = validate(["--stirct", "valid"]);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown flag --stirct; did you mean --strict?");
  });

  test("-o github annotates each finding at its file, line and column", () => {
    const { code, stdout, stderr } = validate(["-o", "github", "invalid/set.json", "hibernations"]);
    expect(code).toBe(1);
    expect(stdout.split("\n")).toEqual([
      expect.stringMatching(
        /^::error file=invalid\/set.json,line=7,col=7,title=clone.image-reference%3A CocoonSet team-b\/from-json::spec.agent.image: /,
      ),
      expect.stringMatching(
        /^::error file=hibernations\/second.yaml,line=9,col=5,title=hibernation.one-per-pod%3A CocoonHibernation team-a\/agents-2::/,
      ),
      `::notice::${NOTE}`,
      "",
    ]);
    expect(stderr).toBe(
      "2 errors, 0 warnings in 2 of 4 objects (0 of other API groups skipped) across 3 files\n",
    );
  });

  test("a report larger than a pipe buffer reaches a slow reader whole", async () => {
    const sets = Array.from(
      { length: 2000 },
      (_, index) =>
        `apiVersion: cocoonset.cocoonstack.io/v1\nkind: CocoonSet\nmetadata: {name: s-${index}}\nspec: {agent: {image: org/a:1, replicass: 1}}\n`,
    ).join("---\n");
    const child = Bun.spawn([BINARY, "validate", "-o", "json", "-f", "-"], {
      stdin: new TextEncoder().encode(sets),
      stdout: "pipe",
      stderr: "ignore",
      env: { PATH: process.env.PATH ?? "" },
    });
    // The slow reader reads only once the CLI has written all the pipe takes and, were it to
    // exit without waiting for its reader, would have exited.
    await untilExitedOrIdle(child);
    const stdout = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    expect(stdout.length).toBeGreaterThan(256 * 1024);
    expect(JSON.parse(stdout)).toHaveLength(2000);
  });

  test("-o sarif and -o junit keep the exit codes; stdout is one document", () => {
    const sarif = validate(["-o", "sarif", "invalid"]);
    expect(sarif.code).toBe(1);
    expect(JSON.parse(sarif.stdout).runs[0].results).toHaveLength(8);
    const junit = validate(["-o", "junit", "valid"]);
    expect(junit.code).toBe(0);
    expect(junit.stdout).toStartWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites');
    expect(junit.stdout).toContain('tests="2" failures="0" errors="0"');
    const unreadable = validate(["-o", "junit", "broken.yaml.txt"]);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stdout).toContain('errors="1"');
  });
});

describe("validate reads only what it can bound", () => {
  const scratch = mkdtempSync(join(tmpdir(), "cocoon-validate-bounds-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** The peak resident memory of `validate -f PATH`, which must find nothing. */
  const peakOf = (path: string) => {
    const result = Bun.spawnSync([BINARY, "validate", "-f", path], {
      env: { PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 60_000,
    });
    expect(result.exitCode).toBe(0);
    return result.resourceUsage?.maxRSS ?? Number.POSITIVE_INFINITY;
  };
  const cocoonSet = (index: number) =>
    `apiVersion: cocoonset.cocoonstack.io/v1\nkind: CocoonSet\nmetadata:\n  name: s${index}\nspec:\n  agent:\n    image: a:1\n`;

  test("a FIFO named *.yaml and a *.yaml symlink to /dev/zero exit 2 as not regular files, unread", () => {
    const fifo = join(scratch, "pipe.yaml");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const zero = join(scratch, "zero.yaml");
    symlinkSync("/dev/zero", zero);
    for (const [path, kind] of [
      [fifo, "a FIFO"],
      [zero, "a character device"],
    ] as const) {
      // Without the safe reader the FIFO blocks until the 10 s spawn timeout, /dev/zero reads until killed.
      const { code, stderr } = validate(["-f", path]);
      expect({ path, code }).toEqual({ path, code: 2 });
      expect(stderr).toContain(`${path}: cannot read: ${path} is ${kind}, not a regular file`);
    }
    const walked = validate(["-f", scratch]);
    expect(walked.code).toBe(2);
    expect(walked.stderr).toContain("not a regular file");
  });

  test("stdin is read up to the same cap, then refused: < /dev/zero exits 2", () => {
    const result = Bun.spawnSync([BINARY, "validate", "-f", "-"], {
      env: { PATH: process.env.PATH ?? "" },
      stdin: Bun.file("/dev/zero"),
      stdout: "pipe",
      stderr: "pipe",
      timeout: 20_000,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.toString()).toContain(
      "<stdin>: cannot read: <stdin> is larger than the 67108864-byte limit",
    );
  });

  test("100 000 documents (10 MB) are checked one at a time: the peak stays near that of 10 000", () => {
    const file = (count: number) => {
      const path = join(scratch, `sets-${count}.yaml`);
      const sets = Array.from({ length: count }, (_, index) => cocoonSet(index));
      writeFileSync(path, sets.join("---\n"));
      return path;
    };
    const few = peakOf(file(10_000));
    const many = peakOf(file(100_000));
    console.log(
      `validate: peak ${Math.round(few / MIB)} MiB for 10 000 documents, ${Math.round(many / MIB)} MiB for 100 000`,
    );
    // What grows is the 10 MB text itself, held while its documents are read; before, every
    // document's decoded objects were kept until the end (300 MB for 100 000).
    expect(many - few).toBeLessThan(64 * MIB);
  }, 90_000);

  test("2 000 files of one document each are read with buffers of their size: the peak stays near one file's", () => {
    const one = join(scratch, "one");
    const many = join(scratch, "many");
    mkdirSync(one);
    mkdirSync(many);
    writeFileSync(join(one, "s0.yaml"), cocoonSet(0));
    for (let index = 0; index < 2000; index++) {
      writeFileSync(join(many, `s${index}.yaml`), cocoonSet(index));
    }
    // A buffer of the 64 MiB cap for each file took 332 MiB and 8 s for these.
    expect(peakOf(many) - peakOf(one)).toBeLessThan(32 * MIB);
  }, 60_000);
});

describe("validate agrees with /validate-cocoonset", () => {
  let webhook: WebhookProcess;
  beforeAll(async () => {
    webhook = await startWebhook();
  });
  afterAll(async () => {
    await webhook.stop();
  });

  const namespace = "team-a";
  const set = (name: string, spec: unknown) => ({
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonSet",
    metadata: { name, namespace },
    spec,
  });
  const objects = [
    set("valid", { agent: { image: "cocoon/agent:1", replicas: 1 } }),
    set("no-image", { agent: { replicas: 2 } }),
    set("firecracker-windows", {
      agent: { image: "cocoon/agent:1", backend: "firecracker", os: "windows", mode: "run" },
      toolboxes: [{ name: "42", image: "x" }, { name: "dup" }, { name: "dup", mode: "static" }],
      snapshotPolicy: "sometimes",
    }),
    set("a-name-long-enough-to-push-every-derived-vm-name-past-the-limit", {
      agent: { image: "cocoon/agent:1", replicas: 3 },
    }),
    set("mistyped", { agent: { image: 5, replicas: "two" }, toolboxes: "none" }),
    // The apiserver prunes an unknown field before the webhook sees it: offline it is a warning.
    set("typo", { agent: { image: "cocoon/agent:1", replicass: 2 } }),
  ];

  test("same verdict per object, and every CLI error in the server's denial", async () => {
    const stdin = objects.map((object) => JSON.stringify(object)).join("\n---\n");
    const cli = validate(["-o", "json", "-f", "-"], stdin);
    expect(cli.code).toBe(1);
    const findings = JSON.parse(cli.stdout) as JsonFinding[];
    for (const object of objects) {
      const response = await webhook.post(
        "/validate-cocoonset",
        admissionReview({ kind: COCOONSET_KIND, namespace, name: object.metadata.name, object }),
      );
      const { response: verdict } = await readReview(response);
      const mine = findings.filter(
        (finding) => finding.name === object.metadata.name && finding.severity === "error",
      );
      expect({ name: object.metadata.name, allowed: verdict.allowed }).toEqual({
        name: object.metadata.name,
        allowed: mine.length === 0,
      });
      for (const finding of mine) {
        expect(verdict.status?.message ?? "").toContain(`${finding.path}: ${finding.message}`);
      }
    }
    expect(
      findings.filter((finding) => finding.severity === "warning").map((finding) => finding.path),
    ).toEqual(["spec.agent.replicass"]);
  });
});
