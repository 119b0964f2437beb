import { isAbsolute, relative, sep } from "node:path";

/** `line` and `column` are 1-based. */
export interface FileSpot {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
}

/** A finding in an input file (validate) or about an object of the cluster (audit). */
export type ReportedFinding = {
  readonly severity: "error" | "warning" | "notice";
  readonly rule: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly path: string;
  readonly message: string;
} & (
  | { readonly file: string; readonly line: number; readonly column: number }
  | { readonly apiVersion: string }
);

export interface ProblemView {
  /** The GitHub annotation's title. */
  readonly title: string;
  readonly message: string;
  /** One line, without the tool's name. */
  readonly text: string;
  readonly spot?: FileSpot;
}

export interface ReportView {
  readonly tool: string;
  readonly findings: readonly ReportedFinding[];
  readonly problems: readonly ProblemView[];
  readonly notes: readonly string[];
  readonly summary: string;
}

export const located = ({ path, message }: { path: string; message: string }) =>
  path ? `${path}: ${message}` : message;

export const objectOf = ({ kind, namespace, name }: ReportedFinding) =>
  `${kind} ${namespace ? `${namespace}/` : ""}${name}`;

/** `[FILE:LINE:COLUMN: ]SEVERITY: KIND NAMESPACE/NAME: PATH: message [rule]`. */
export function findingLine(finding: ReportedFinding): string {
  const at = "file" in finding ? `${finding.file}:${finding.line}:${finding.column}: ` : "";
  return `${at}${finding.severity}: ${objectOf(finding)}: ${located(finding)} [${finding.rule}]`;
}

/** CI annotations and SARIF want repository-relative, slash-separated paths. */
export function repositoryPath(file: string, cwd = process.cwd()): string {
  const path = isAbsolute(file) ? relative(cwd, file) : file;
  return path.split(sep).join("/");
}
