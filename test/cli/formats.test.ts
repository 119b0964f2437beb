import { describe, expect, test } from "bun:test";
import sarifSchema from "@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { OUTPUT_FORMATS } from "../../src/cli/formats/render";
import { ALL_RULES } from "../../src/cli/validate/manifest-rules";
import { DUPLICATES_NOTE, type RunReport, render } from "../../src/cli/validate/output";
import { RULE_CATALOGUE } from "../../src/endpoints";
import { checkText } from "../support/validate-input";

/** Findings of every kind: a rule violation, warnings, a hibernation, hostile text. */
const MANIFESTS = `apiVersion: cocoonset.cocoonstack.io/v1
kind: CocoonSet
metadata: {name: "a&b<c>", namespace: team-a}
spec:
  agent:
    replicas: 1
    imgae: "x,y:z%\\r\\n100%"
---
apiVersion: cocoonset.cocoonstack.io/v1
kind: CocoonSet
metadata: {name: clean}
spec:
  agent: {image: org/agent:1}
---
apiVersion: cocoonset.cocoonstack.io/v1
kind: CocoonHibernation
metadata: {name: p}
spec: {podRef: {name: p}, desire: Wake}
---
apiVersion: cocoonset.cocoonstack.io/v1
kind: Cocoonset
---
apiVersion: v1
kind: ConfigMap
`;

function reportOf(strict = false): RunReport {
  return {
    summary: checkText(
      { file: "deploy/sets dir/m.yaml", text: MANIFESTS },
      { namespace: "default", strict, listChecked: true },
    ),
    files: 2,
    problems: [{ file: "deploy/broken.yaml", line: 3, column: 7, message: 'bad "yaml" & <more>' }],
  };
}

describe("--output junit", () => {
  const xml = render("junit", reportOf()).stdout;
  const parsed = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    isArray: (name) => ["testsuite", "testcase", "property"].includes(name),
  }).parse(xml);

  test("is well-formed XML with testsuites/testsuite/testcase", () => {
    expect(XMLValidator.validate(xml)).toBe(true);
    const [suite] = parsed.testsuites.testsuite;
    expect(parsed.testsuites).toMatchObject({ tests: "5", failures: "1", errors: "1" });
    expect(suite.testcase.map((each: { name: string }) => each.name)).toEqual([
      "CocoonSet team-a/a&b<c>",
      "CocoonSet default/clean",
      "CocoonHibernation default/p",
      "Cocoonset default/<unnamed>",
      "read and parse",
    ]);
  });

  test("an error fails its object's test case; warnings go to system-out; inputs to error", () => {
    const [failed, clean, , unknown, unreadable] = parsed.testsuites.testsuite[0].testcase;
    expect(failed.classname).toBe("deploy/sets dir/m.yaml");
    expect(failed.failure.type).toBe("agent.image-required");
    expect(failed.failure.message).toStartWith("spec.agent.image: is required");
    expect(failed["system-out"]).toContain('"imgae" is not a field');
    expect(clean.failure).toBeUndefined();
    expect(unknown.failure).toBeUndefined();
    expect(unknown["system-out"]).toContain('did you mean "CocoonSet"?');
    expect(unreadable.error.message).toBe('bad "yaml" & <more>');
  });

  test("--strict turns warnings into failures; the notes are suite properties", () => {
    const strict = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(
      render("junit", reportOf(true)).stdout,
    );
    expect(strict.testsuites.failures).toBe("2");
    const properties = parsed.testsuites.testsuite[0].properties.property;
    expect(properties).toContainEqual({ name: "note", value: DUPLICATES_NOTE });
  });
});

describe("--output junit, one object twice", () => {
  test("two hibernations of one name in one file are two cases; only the later one fails", () => {
    const hibernation =
      "apiVersion: cocoonset.cocoonstack.io/v1\nkind: CocoonHibernation\nmetadata: {name: p}\nspec: {podRef: {name: p}, desire: Wake}\n";
    const summary = checkText(
      { file: "h.yaml", text: `${hibernation}---\n${hibernation}` },
      { namespace: "default", strict: false, listChecked: true },
    );
    const xml = render("junit", { summary, files: 1, problems: [] }).stdout;
    const cases = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml)
      .testsuites.testsuite.testcase;
    expect(cases.map((each: { failure?: { type: string } }) => each.failure?.type)).toEqual([
      undefined,
      "hibernation.one-per-pod",
    ]);
  });
});

describe("--output sarif", () => {
  // The schema's patterns predate the unicode flag.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  const validateSarif = ajv.compile(sarifSchema);
  const log = JSON.parse(render("sarif", reportOf()).stdout);

  test("validates against the SARIF 2.1.0 schema", () => {
    const valid = validateSarif(log);
    expect(validateSarif.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(log.version).toBe("2.1.0");
    const broken = structuredClone(log);
    broken.runs[0].results[0].level = "fatal";
    expect(validateSarif(broken)).toBe(false);
  });

  test("every catalogue rule is a driver rule with descriptions and help", () => {
    const rules = log.runs[0].tool.driver.rules;
    expect(rules.map((rule: { id: string }) => rule.id)).toEqual(ALL_RULES.map((rule) => rule.id));
    for (const { id } of RULE_CATALOGUE) {
      const rule = rules.find((each: { id: string }) => each.id === id);
      expect(rule.shortDescription.text.length).toBeGreaterThan(0);
      expect(rule.fullDescription.text.length).toBeGreaterThan(0);
      expect(rule.help.text.length).toBeGreaterThan(0);
    }
  });

  test("a rule's default level is its severity without --strict, which its text states", () => {
    const rules: { id: string; defaultConfiguration: { level: string } }[] =
      log.runs[0].tool.driver.rules;
    const warnings = rules.filter((rule) => rule.defaultConfiguration.level === "warning");
    expect(warnings.map((rule) => rule.id)).toEqual([
      "manifest.unknown-field",
      "manifest.unknown-object",
    ]);
    for (const rule of rules) {
      const text = ALL_RULES.find((each) => each.id === rule.id)?.text ?? "";
      const warning = rule.defaultConfiguration.level === "warning";
      expect(rule.defaultConfiguration.level).toBe(warning ? "warning" : "error");
      expect(text.endsWith(" A warning, an error with --strict.")).toBe(warning);
    }
  });

  test("rules have human names and whole descriptions", () => {
    const rules: {
      id: string;
      name: string;
      shortDescription: { text: string };
      fullDescription: { text: string };
    }[] = log.runs[0].tool.driver.rules;
    expect(new Set(rules.map((rule) => rule.name)).size).toBe(rules.length);
    for (const rule of rules) {
      const text = ALL_RULES.find((each) => each.id === rule.id)?.text ?? "";
      expect(rule.name).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(rule.fullDescription.text).toBe(text);
      expect(text.startsWith(rule.shortDescription.text)).toBeTrue();
      expect(rule.shortDescription.text).toEndWith(".");
    }
    const byId = new Map(rules.map((rule) => [rule.id, rule]));
    expect(byId.get("agent.image-required")?.name).toBe("AgentImageRequired");
    expect(byId.get("firecracker.oci-image")?.shortDescription.text).toBe(
      "CocoonSet: firecracker needs an OCI image; an image starting with `http://` or `https://` (a cloud-image URL) is rejected.",
    );
    expect(byId.get("manifest.unknown-field")?.shortDescription.text).toBe(
      "CocoonSet and CocoonHibernation: every field is one the operator's CRD defines; the apiserver drops or rejects any other, so a misspelt field never reaches the operator.",
    );
  });

  test("results carry ruleId, level and a relative location with line and column", () => {
    const results = log.runs[0].results;
    const rules = log.runs[0].tool.driver.rules;
    expect(
      results.map((each: { ruleId: string; level: string }) => [each.ruleId, each.level]),
    ).toEqual([
      ["agent.image-required", "error"],
      ["manifest.unknown-field", "warning"],
      ["manifest.unknown-object", "warning"],
    ]);
    for (const result of results) {
      expect(rules[result.ruleIndex].id).toBe(result.ruleId);
      const { artifactLocation, region } = result.locations[0].physicalLocation;
      expect(artifactLocation.uri).toBe("deploy/sets%20dir/m.yaml");
      expect(region.startLine).toBeGreaterThan(0);
      expect(region.startColumn).toBeGreaterThan(0);
    }
    expect(results[1].locations[0].physicalLocation.region).toEqual({
      startLine: 7,
      startColumn: 5,
    });
    expect(log.runs[0].invocations[0].executionSuccessful).toBe(false);
  });
});

/** A workflow command as the runner reads it: `::name k=v,k=v::message`, escapes undone. */
function parseWorkflowCommand(line: string) {
  const match = /^::([a-z]+)(?: ([^:]*))?::(.*)$/.exec(line);
  if (!match) return undefined;
  const unescaped = (text: string) =>
    text
      .replaceAll("%0D", "\r")
      .replaceAll("%0A", "\n")
      .replaceAll("%3A", ":")
      .replaceAll("%2C", ",")
      .replaceAll("%25", "%");
  const properties = Object.fromEntries(
    (match[2] ?? "")
      .split(",")
      .filter((pair) => pair !== "")
      .map((pair) => {
        const equals = pair.indexOf("=");
        return [pair.slice(0, equals), unescaped(pair.slice(equals + 1))];
      }),
  );
  return { command: match[1], properties, message: unescaped(match[3] ?? "") };
}

describe("--output github", () => {
  const lines = render("github", reportOf()).stdout.trimEnd().split("\n");
  const commands = lines.map(parseWorkflowCommand);

  test("one annotation per finding and per unreadable input, a notice; the summary on stderr", () => {
    expect(commands.map((each) => each?.command)).toEqual([
      "error",
      "warning",
      "warning",
      "error",
      "notice",
    ]);
    expect(render("github", reportOf()).stderr).toStartWith(
      "1 error, 2 warnings in 2 of 5 objects",
    );
  });

  test("file, line, col and title are set and escaped; the message survives the round trip", () => {
    const warning = commands[1];
    expect(warning?.properties).toEqual({
      file: "deploy/sets dir/m.yaml",
      line: "7",
      col: "5",
      title: "manifest.unknown-field: CocoonSet team-a/a&b<c>",
    });
    const unknownObject = commands[2];
    expect(unknownObject?.message).toContain('kind "Cocoonset"');
    expect(commands[3]?.properties).toMatchObject({
      file: "deploy/broken.yaml",
      line: "3",
      col: "7",
    });
    for (const line of lines) expect(line).not.toContain("\r");
  });

  test("% and newlines in a message are escaped", () => {
    const report = reportOf();
    const [first] = report.summary.findings;
    if (!first) throw new Error("no finding");
    report.summary.findings.splice(0, 1, { ...first, message: "50%\nnext line\r, a:b" });
    const [line] = render("github", report).stdout.split("\n");
    expect(line).toEndWith("::spec.agent.image: 50%25%0Anext line%0D, a:b");
    expect(parseWorkflowCommand(line ?? "")?.message).toBe(
      "spec.agent.image: 50%\nnext line\r, a:b",
    );
  });
});

describe("--output json", () => {
  test("one JSON array of findings with line, column and severity; notes and summary on stderr", () => {
    const { stdout, stderr } = render("json", reportOf());
    const findings = JSON.parse(stdout);
    expect(findings).toHaveLength(3);
    expect(findings[1]).toMatchObject({
      line: 7,
      column: 5,
      severity: "warning",
      rule: "manifest.unknown-field",
    });
    expect(stderr).toContain(`note: ${DUPLICATES_NOTE}`);
    expect(stderr).toContain("deploy/broken.yaml:3:7: bad");
  });
});

describe("stderr in the same file as stdout", () => {
  const machineReadable = OUTPUT_FORMATS.filter((format) => format !== "text");

  test.each(machineReadable)(
    "-o %s: the same document, and no summary or note beside it",
    (format) => {
      const alone = render(format, reportOf());
      const shared = render(format, reportOf(), { sharedStream: true });
      expect(shared.stdout).toBe(alone.stdout);
      expect(alone.stderr).toContain("1 error, 2 warnings in 2 of 5 objects");
      expect(shared.stderr).not.toContain("1 error, 2 warnings");
      expect(shared.stderr).not.toContain("note:");
    },
  );

  test("-o json names an input problem anyway: the document does not hold it", () => {
    expect(render("json", reportOf(), { sharedStream: true }).stderr).toBe(
      'cocoon-webhook validate: deploy/broken.yaml:3:7: bad "yaml" & <more>\n',
    );
    for (const format of ["junit", "sarif", "github"] as const) {
      expect(render(format, reportOf(), { sharedStream: true }).stderr).toBe("");
    }
  });

  test("-o text keeps its summary on stdout and problems on stderr", () => {
    expect(render("text", reportOf(), { sharedStream: true })).toEqual(render("text", reportOf()));
  });
});
