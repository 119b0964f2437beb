import { junitErrorCase, junitObjectCase, junitReport } from "../formats/junit";
import { type OutputFormat, renderReport } from "../formats/render";
import { INFORMATION_URI, sarifReport } from "../formats/sarif";
import type { ReportView } from "../formats/view";
import { count } from "../plural";
import type { CheckSummary, Finding } from "./check";
import type { InputProblem } from "./inputs";
import { ALL_RULES } from "./manifest-rules";

export interface RunReport {
  readonly summary: CheckSummary;
  readonly files: number;
  readonly problems: readonly InputProblem[];
}

export const DUPLICATES_NOTE =
  "CocoonHibernations are checked for a second one per pod within the given files only; validate never calls an apiserver, so ones already in the cluster are not seen";

export function notesOf({ summary }: RunReport): string[] {
  return summary.hibernations > 0 ? [DUPLICATES_NOTE] : [];
}

export function errorCount(findings: readonly Finding[]): number {
  return findings.filter((finding) => finding.severity === "error").length;
}

/** `2 errors, 1 warning in 2 of 14 objects (5 of other API groups skipped) across 4 files`, and the inputs not checked. */
export function summaryLine({ summary, files, problems }: RunReport): string {
  const { findings, objectsWithFindings, objects, skipped } = summary;
  const errors = errorCount(findings);
  const warnings = findings.length - errors;
  const checked = `${count(errors, "error")}, ${count(warnings, "warning")} in ${objectsWithFindings} of ${count(objects, "object")} (${skipped} of other API groups skipped) across ${count(files, "file")}`;
  return problems.length === 0
    ? checked
    : `${checked}; ${count(problems.length, "input")} could not be read or parsed`;
}

export function problemLine({ file, line, column, message }: InputProblem): string {
  const position =
    line === undefined ? "" : column === undefined ? `:${line}` : `:${line}:${column}`;
  return `${file}${position}: ${message}`;
}

const TOOL = "cocoon-webhook validate";

export function render(
  format: OutputFormat,
  report: RunReport,
  { sharedStream = false }: { readonly sharedStream?: boolean } = {},
): { stdout: string; stderr: string } {
  const view: ReportView = {
    tool: TOOL,
    findings: report.summary.findings,
    problems: report.problems.map((problem) => ({
      title: `${TOOL}: input not checked`,
      message: problem.message,
      text: problemLine(problem),
      spot: problem,
    })),
    notes: notesOf(report),
    summary: summaryLine(report),
  };
  const documents = {
    junit: () => junitReport(view, [junitSuite(report)]),
    sarif: () =>
      sarifReport(view, ALL_RULES, {
        describe: (rule) => ({
          help: { text: `${rule.text} Fix the manifest at the reported field.` },
          helpUri: `${INFORMATION_URI}#validation-rules`,
          defaultConfiguration: { level: rule.severity },
        }),
        run: { columnKind: "utf16CodeUnits" },
      }),
  };
  return renderReport(format, view, documents, sharedStream);
}

function junitSuite(report: RunReport) {
  const cases = report.summary.checked.map(({ file, kind, namespace, name, findings }) =>
    junitObjectCase(file, `${kind} ${namespace}/${name}`, findings, file),
  );
  for (const problem of report.problems) {
    const error = { message: problem.message, type: "input", text: problemLine(problem) };
    cases.push(junitErrorCase(problem.file, "read and parse", error, problem.file));
  }
  return { name: TOOL, cases };
}
