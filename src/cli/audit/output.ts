import { command } from "../formats/github";
import { escapeXml, junitCaseBody, junitTestCase } from "../formats/junit";
import { ruleDescriptor, SARIF_SCHEMA, sarifTool } from "../formats/sarif";
import { count, pluralOf } from "../plural";
import { linesOf, OUTPUT_FORMATS } from "../validate/output";
import { located } from "../validate/report";
import type { AuditFinding, AuditSeverity } from "./checks";
import { policyReports } from "./policy-report";
import { AUDITED_RULES } from "./rules";
import { AUDITED_KINDS, type AuditReport } from "./scan";

export const AUDIT_FORMATS = [...OUTPUT_FORMATS, "policyreport"] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];

const TOOL = "cocoon-webhook audit";

/** What cannot be judged after the fact: said with every report. */
export const AUDIT_NOTES = [
  "who created a pod is not stored in the cluster: a gated pod with an owner of a kind POD_CREATORS pairs with a creator is not judged by its creator, and the field manager shown for a pod is a hint, not proof",
  "Bindings and scale-downs are requests, not objects: an unmarked pod on a VM node is reported whoever placed it, and cocoon Deployments and StatefulSets are listed as what the scale-down guard protects",
] as const;

export function errorCount(findings: readonly AuditFinding[], strict: boolean): number {
  return findings.filter(
    (finding) => finding.severity === "error" || (strict && finding.severity === "warning"),
  ).length;
}

/** The report for stdout, and what goes beside it on stderr, split as `validate` splits them. */
export function renderAudit(
  format: AuditFormat,
  report: AuditReport,
  { sharedStream = false, now = new Date() }: { sharedStream?: boolean; now?: Date } = {},
): { stdout: string; stderr: string } {
  const summary = summaryLine(report);
  const notes = AUDIT_NOTES.map((note) => `note: ${note}`);
  const problems = report.problems.map(
    ({ kind, message }) => `${TOOL}: could not check ${pluralOf(kind)}: ${message}`,
  );
  const beside = (...texts: string[]) => (sharedStream ? [] : texts);
  switch (format) {
    case "text":
      return {
        stdout: linesOf([...report.findings.map(findingLine), ...notes, summary]),
        stderr: linesOf(problems),
      };
    case "json":
      return {
        stdout: `${JSON.stringify(report.findings, null, 2)}\n`,
        stderr: linesOf([...problems, ...beside(...notes, summary)]),
      };
    case "policyreport":
      return {
        stdout: `${JSON.stringify(policyReports(report, now), null, 2)}\n`,
        stderr: linesOf([...problems, ...beside(summary)]),
      };
    case "junit":
      return {
        stdout: junitReport(report, summary),
        stderr: linesOf(beside(...problems, summary)),
      };
    case "sarif":
      return {
        stdout: sarifReport(report, summary),
        stderr: linesOf(beside(...problems, summary)),
      };
    case "github":
      return { stdout: githubAnnotations(report), stderr: linesOf(beside(summary)) };
  }
}

/** `SEVERITY: KIND NAMESPACE/NAME: PATH: message [rule]`. */
function findingLine(finding: AuditFinding): string {
  return `${finding.severity}: ${objectOf(finding)}: ${located(finding)} [${finding.rule}]`;
}

const objectOf = ({ kind, namespace, name }: AuditFinding) =>
  `${kind} ${namespace ? `${namespace}/` : ""}${name}`;

/** `1 error, 0 warnings, 2 notices about 3 objects; 1200 objects checked in all namespaces (…)`, and the kinds not checked. */
export function summaryLine(report: AuditReport): string {
  const bySeverity = (severity: AuditSeverity) =>
    report.findings.filter((finding) => finding.severity === severity).length;
  const objects = new Set(report.findings.map((finding) => `${objectOf(finding)}`)).size;
  const perKind = AUDITED_KINDS.map((kind) => count(report.checked[kind], kind)).join(", ");
  const total = AUDITED_KINDS.reduce((sum, kind) => sum + report.checked[kind], 0);
  const found = `${count(bySeverity("error"), "error")}, ${count(bySeverity("warning"), "warning")}, ${count(bySeverity("notice"), "notice")} about ${count(objects, "object")}`;
  const checked = `${count(total, "object")} checked in ${scopeOf(report)} (${perKind})`;
  const skipped = report.skipped
    ? `; ${count(report.skipped, "object")} in namespaces the webhook leaves out not checked`
    : "";
  const failed = report.problems.map(({ kind }) => pluralOf(kind));
  return `${found}; ${checked}${skipped}${failed.length ? `; could not check ${failed.join(", ")}` : ""}`;
}

/** Where it looked: `namespace "team-a"` or `all namespaces`. */
const scopeOf = ({ namespace }: AuditReport) =>
  namespace === undefined ? "all namespaces" : `namespace "${namespace}"`;

/** One suite per kind: a case per object with findings (failing on an error), one passing case for the rest. */
function junitReport(report: AuditReport, summary: string): string {
  const suites = AUDITED_KINDS.map((kind) => {
    const findings = report.findings.filter((finding) => finding.kind === kind);
    const byObject = Map.groupBy(findings, objectOf);
    const cases: string[] = [];
    let failures = 0;
    for (const [object, own] of byObject) {
      const errors = own.filter((finding) => finding.severity === "error");
      const others = own.filter((finding) => finding.severity !== "error");
      if (errors.length > 0) failures++;
      cases.push(junitTestCase(kind, object, junitCaseBody(errors, others, located, findingLine)));
    }
    const clean = report.checked[kind] - byObject.size;
    if (clean > 0) cases.push(junitTestCase(kind, `${count(clean, kind)} without findings`, []));
    const problem = report.problems.find((each) => each.kind === kind);
    if (problem) {
      cases.push(
        junitTestCase(kind, `list ${pluralOf(kind)}`, [
          `      <error message="${escapeXml(problem.message)}" type="list">${escapeXml(problem.message)}</error>`,
        ]),
      );
    }
    const counts = `tests="${cases.length}" failures="${failures}" errors="${problem ? 1 : 0}" skipped="0"`;
    return [
      `  <testsuite name="${TOOL}: ${pluralOf(kind)}" ${counts}>`,
      ...cases,
      "  </testsuite>",
    ];
  });
  const properties = [["summary", summary], ...AUDIT_NOTES.map((note) => ["note", note])].map(
    ([name, value]) => `    <property name="${name}" value="${escapeXml(value ?? "")}"/>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${TOOL}">`,
    "  <properties>",
    ...properties,
    "  </properties>",
    ...suites.flat(),
    "</testsuites>",
    "",
  ].join("\n");
}

const SARIF_LEVELS: Record<AuditSeverity, string> = {
  error: "error",
  warning: "warning",
  notice: "note",
};

/** SARIF 2.1.0: each finding a result at a logical location, the cluster object it is about. */
function sarifReport(report: AuditReport, summary: string): string {
  const ruleIndex = new Map(AUDITED_RULES.map((rule, index) => [rule.id, index]));
  const log = {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: sarifTool(TOOL, AUDITED_RULES.map(ruleDescriptor)),
        results: report.findings.map((finding) => ({
          ruleId: finding.rule,
          ruleIndex: ruleIndex.get(finding.rule) ?? 0,
          level: SARIF_LEVELS[finding.severity],
          message: { text: `${objectOf(finding)}: ${located(finding)}` },
          locations: [
            {
              logicalLocations: [
                {
                  fullyQualifiedName: `${finding.apiVersion}/${finding.kind}/${finding.namespace}/${finding.name}`,
                  name: finding.name,
                  kind: "resource",
                },
              ],
            },
          ],
        })),
        invocations: [
          {
            executionSuccessful: report.problems.length === 0,
            toolExecutionNotifications: [
              ...report.problems.map(({ kind, message }) => ({
                level: "error",
                message: { text: `could not check ${pluralOf(kind)}: ${message}` },
              })),
              ...[...AUDIT_NOTES, summary].map((text) => ({ level: "note", message: { text } })),
            ],
          },
        ],
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** GitHub Actions workflow commands, one per finding and per kind not checked; the notes as notices. */
function githubAnnotations(report: AuditReport): string {
  return [
    ...report.findings.map((finding) =>
      command(
        finding.severity,
        { title: `${finding.rule}: ${objectOf(finding)}` },
        located(finding),
      ),
    ),
    ...report.problems.map(({ kind, message }) =>
      command("error", { title: `${TOOL}: could not check ${pluralOf(kind)}` }, message),
    ),
    ...AUDIT_NOTES.map((note) => command("notice", {}, note)),
  ].join("");
}
