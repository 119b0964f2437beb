import { junitErrorCase, junitObjectCase, junitReport } from "../formats/junit";
import { linesOf, OUTPUT_FORMATS, problemLines, renderReport } from "../formats/render";
import { sarifReport } from "../formats/sarif";
import { objectOf, type ReportView } from "../formats/view";
import { count, pluralOf } from "../plural";
import type { AuditFinding, AuditSeverity } from "./checks";
import { policyReports } from "./policy-report";
import { AUDITED_RULES } from "./rules";
import { AUDITED_KINDS, type AuditReport } from "./scan";

export const AUDIT_FORMATS = [...OUTPUT_FORMATS, "policyreport"] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];

const TOOL = "cocoon-webhook audit";

export const AUDIT_NOTES = [
  "who created a pod is not stored in the cluster: a gated pod with an owner of a kind POD_CREATORS pairs with a creator is not judged by its creator, and the field manager shown for a pod is a hint, not proof",
  "Bindings and scale-downs are requests, not objects: an unmarked pod on a VM node is reported whoever placed it, and cocoon Deployments and StatefulSets are listed as what the scale-down guard protects",
] as const;

export function errorCount(findings: readonly AuditFinding[], strict: boolean): number {
  return findings.filter(
    (finding) => finding.severity === "error" || (strict && finding.severity === "warning"),
  ).length;
}

export function renderAudit(
  format: AuditFormat,
  report: AuditReport,
  { sharedStream = false, now = new Date() }: { sharedStream?: boolean; now?: Date } = {},
): { stdout: string; stderr: string } {
  const view: ReportView = {
    tool: TOOL,
    findings: report.findings,
    problems: report.problems.map(({ kind, message }) => ({
      title: `${TOOL}: could not check ${pluralOf(kind)}`,
      message,
      text: `could not check ${pluralOf(kind)}: ${message}`,
    })),
    notes: AUDIT_NOTES,
    summary: summaryLine(report),
  };
  if (format === "policyreport") {
    return {
      stdout: `${JSON.stringify(policyReports(report, now), null, 2)}\n`,
      stderr: linesOf([...problemLines(view), ...(sharedStream ? [] : [view.summary])]),
    };
  }
  const documents = {
    junit: () => junitReport(view, junitSuites(report)),
    sarif: () => sarifReport(view, AUDITED_RULES),
  };
  return renderReport(format, view, documents, sharedStream);
}

/** `1 error, 0 warnings, 2 notices about 3 objects; 1200 objects checked in all namespaces (…)`, and the kinds not checked. */
export function summaryLine(report: AuditReport): string {
  const bySeverity = (severity: AuditSeverity) =>
    report.findings.filter((finding) => finding.severity === severity).length;
  const objects = new Set(report.findings.map(objectOf)).size;
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

const scopeOf = ({ namespace }: AuditReport) =>
  namespace === undefined ? "all namespaces" : `namespace "${namespace}"`;

function junitSuites(report: AuditReport) {
  return AUDITED_KINDS.map((kind) => {
    const own = report.findings.filter((finding) => finding.kind === kind);
    const byObject = Map.groupBy(own, objectOf);
    const cases = [...byObject].map(([object, findings]) =>
      junitObjectCase(kind, object, findings),
    );
    const clean = report.checked[kind] - byObject.size;
    if (clean > 0) cases.push(junitObjectCase(kind, `${count(clean, kind)} without findings`, []));
    const problem = report.problems.find((each) => each.kind === kind);
    if (problem) {
      const error = { message: problem.message, type: "list", text: problem.message };
      cases.push(junitErrorCase(kind, `list ${pluralOf(kind)}`, error));
    }
    return { name: `${TOOL}: ${pluralOf(kind)}`, cases };
  });
}
