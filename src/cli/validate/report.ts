/** What one run of `cocoon-webhook validate` found, and the lines every output format shares. */
import { isAbsolute, relative, sep } from "node:path";
import { count } from "../plural";
import type { CheckSummary, Finding } from "./check";
import type { InputProblem } from "./inputs";

export interface RunReport {
  readonly summary: CheckSummary;
  /** Inputs read (files and stdin). */
  readonly files: number;
  /** Inputs that could not be read or parsed (exit code 2). */
  readonly problems: readonly InputProblem[];
}

/** Said once when CocoonHibernations were checked: the offline check cannot see the cluster. */
export const DUPLICATES_NOTE =
  "CocoonHibernations are checked for a second one per pod within the given files only; validate never calls an apiserver, so ones already in the cluster are not seen";

export function notesOf({ summary }: RunReport): string[] {
  return summary.hibernations > 0 ? [DUPLICATES_NOTE] : [];
}

export function errorCount(findings: readonly Finding[]): number {
  return findings.filter((finding) => finding.severity === "error").length;
}

/** `PATH: message`, or the message alone for a finding about the whole object. */
export const located = ({ path, message }: { path: string; message: string }) =>
  path ? `${path}: ${message}` : message;

/** `FILE:LINE:COLUMN: SEVERITY: KIND NAMESPACE/NAME: PATH: message [rule]`, one line per finding. */
export function findingLine(finding: Finding): string {
  const { file, line, column, severity, kind, namespace, name, rule } = finding;
  return `${file}:${line}:${column}: ${severity}: ${kind} ${namespace}/${name}: ${located(finding)} [${rule}]`;
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

/** A path as a repository-relative, slash-separated path (CI annotations and SARIF want that). */
export function repositoryPath(file: string, cwd = process.cwd()): string {
  const path = isAbsolute(file) ? relative(cwd, file) : file;
  return path.split(sep).join("/");
}
