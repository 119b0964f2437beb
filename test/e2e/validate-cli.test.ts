import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BINARY, readReview, startWebhook, type WebhookProcess } from "./harness";
import { review } from "./reviews";

const FIXTURES = join(import.meta.dir, "../fixtures/validate");
const COCOONSET_KIND = { group: "cocoonset.cocoonstack.io", version: "v1", kind: "CocoonSet" };

function validate(args: string[], stdin?: string) {
  const result = Bun.spawnSync([BINARY, "validate", ...args], {
    cwd: FIXTURES,
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
    /** `FILE:LINE: KIND NAMESPACE/NAME: PATH` of each finding, without the message. */
    located: stdout
      .split("\n")
      .filter((line) => /^\S+:\d+: /.test(line))
      .map((line) => line.split(": ").slice(0, 3).join(": ")),
  };
}

interface JsonFinding {
  file: string;
  line: number;
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
    expect(stdout).toBe("0 violations in 0 of 3 objects (1 skipped) across 2 files\n");
  });

  test("a cocoon kind of another API version is skipped, not checked with v1's rules", () => {
    const future =
      "apiVersion: cocoonset.cocoonstack.io/v2\nkind: CocoonSet\nmetadata: {name: s}\nspec: {}\n";
    const { code, stdout } = validate(["-f", "-"], future);
    expect(code).toBe(0);
    expect(stdout).toBe("0 violations in 0 of 1 object (1 skipped) across 1 file\n");
  });

  test("every violation is reported at the line of its field, or of the nearest parent", () => {
    const { code, located, stdout } = validate(["-f", "invalid"]);
    expect(code).toBe(1);
    expect(located).toEqual([
      "invalid/cocoonset.yaml:6: CocoonSet default/broken: spec.agent.image",
      "invalid/cocoonset.yaml:7: CocoonSet default/broken: spec.agent.replicas",
      "invalid/cocoonset.yaml:10: CocoonSet default/broken: spec.agent.os",
      "invalid/cocoonset.yaml:16: CocoonSet default/broken: spec.toolboxes[1].name",
      "invalid/cocoonset.yaml:20: CocoonSet default/broken: spec.snapshotPolicy",
      "invalid/hibernation.yaml:8: CocoonHibernation default/wrong-name: spec.desire",
      "invalid/hibernation.yaml:4: CocoonHibernation default/wrong-name: metadata.name",
      "invalid/set.json:7: CocoonSet team-b/from-json: spec.agent.image",
    ]);
    expect(stdout).toContain("spec.snapshotPolicy: must be one of");
    expect(stdout).toEndWith("8 violations in 3 of 3 objects (0 skipped) across 3 files\n");
  });

  test("multi-document files are checked document by document", () => {
    const { code, located, stdout } = validate(["-f", "multi.yaml"]);
    expect(code).toBe(1);
    expect(located).toEqual(["multi.yaml:16: CocoonSet default/second: spec.agent.os"]);
    expect(stdout).toContain("1 violation in 1 of 3 objects (1 skipped) across 1 file");
  });

  test("List items are expanded, and a typed list lends its kind to its items", () => {
    const list = validate(["-f", "list.yaml"]);
    expect(list.located).toEqual([
      "list.yaml:18: CocoonSet default/listed-bad: spec.hibernatePolicy",
    ]);
    const typed = validate(["typed-list.yaml"]);
    expect(typed.code).toBe(1);
    expect(typed.located).toEqual([
      "typed-list.yaml:7: CocoonSet default/implied-kind: spec.agent.image",
      "typed-list.yaml:8: CocoonSet default/<unnamed>: is not a JSON object, so it cannot be a CocoonSet; write it as a mapping with apiVersion, kind, metadata and spec",
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
    expect(located).toEqual(["<stdin>:16: CocoonSet team-z/second: spec.agent.os"]);
  });

  test("-o json prints the findings as one JSON array and the summary on stderr", () => {
    const { code, stdout, stderr } = validate(["-o", "json", "-f", "invalid/set.json"]);
    expect(code).toBe(1);
    const findings = JSON.parse(stdout) as JsonFinding[];
    expect(findings).toEqual([
      {
        file: "invalid/set.json",
        line: 7,
        kind: "CocoonSet",
        namespace: "team-b",
        name: "from-json",
        path: "spec.agent.image",
        message: expect.stringContaining("cloud-image URL cannot be cloned"),
        rule: "clone.image-reference",
      },
    ]);
    expect(stderr).toBe("1 violation in 1 of 1 object (0 skipped) across 1 file\n");
  });

  test("two CocoonHibernations for one pod in one namespace conflict across files", () => {
    const { code, stdout, located } = validate(["-f", "hibernations"]);
    expect(code).toBe(1);
    expect(located).toEqual([
      "hibernations/second.yaml:9: CocoonHibernation team-a/agents-2: spec.podRef.name",
    ]);
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
    expect(stdout).toContain("exit status: 0 all valid, 1 violations found, 2 usage error");
  });
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
  ];

  test("same verdict per object, and every CLI message in the server's denial", async () => {
    const stdin = objects.map((object) => JSON.stringify(object)).join("\n---\n");
    const cli = validate(["-o", "json", "-f", "-"], stdin);
    expect(cli.code).toBe(1);
    const findings = JSON.parse(cli.stdout) as JsonFinding[];
    for (const object of objects) {
      const response = await webhook.post(
        "/validate-cocoonset",
        review({ kind: COCOONSET_KIND, namespace, name: object.metadata.name, object }),
      );
      const { response: verdict } = await readReview(response);
      const mine = findings.filter((finding) => finding.name === object.metadata.name);
      expect({ name: object.metadata.name, allowed: verdict.allowed }).toEqual({
        name: object.metadata.name,
        allowed: mine.length === 0,
      });
      for (const finding of mine) {
        expect(verdict.status?.message ?? "").toContain(`${finding.path}: ${finding.message}`);
      }
    }
  });
});
