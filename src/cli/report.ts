import type { CheckSummary, Finding } from "./check";
import type { InputProblem } from "./inputs";

export const OUTPUT_FORMATS = ["text", "json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** `FILE:LINE: KIND NAMESPACE/NAME: PATH: message`, one line per finding. */
export function findingLine({ file, line, kind, namespace, name, path, message }: Finding): string {
  const where = path ? `${path}: ` : "";
  return `${file}:${line}: ${kind} ${namespace}/${name}: ${where}${message}`;
}

/**
 * e.g. `3 violations in 2 of 14 objects (5 skipped) across 4 files`, and how
 * many inputs could not be checked at all, so a zero never looks like a pass.
 */
export function summaryLine(summary: CheckSummary, files: number, unusableInputs = 0): string {
  const { findings, invalidObjects, objects, skipped } = summary;
  const checked = `${count(findings.length, "violation")} in ${invalidObjects} of ${count(objects, "object")} (${skipped} skipped) across ${count(files, "file")}`;
  return unusableInputs === 0
    ? checked
    : `${checked}; ${count(unusableInputs, "input")} could not be read or parsed`;
}

export function problemLine({ file, line, column, message }: InputProblem): string {
  const position =
    line === undefined ? "" : column === undefined ? `:${line}` : `:${line}:${column}`;
  return `${file}${position}: ${message}`;
}

/** Findings for stdout; in json the summary goes to stderr so stdout stays one JSON value. */
export function render(
  format: OutputFormat,
  summary: CheckSummary,
  files: number,
  unusableInputs: number,
): { stdout: string; stderr: string } {
  const totals = `${summaryLine(summary, files, unusableInputs)}\n`;
  if (format === "json") {
    return { stdout: `${JSON.stringify(summary.findings, null, 2)}\n`, stderr: totals };
  }
  const lines = summary.findings.map(findingLine);
  return { stdout: [...lines, totals].join("\n"), stderr: "" };
}

function count(amount: number, noun: string): string {
  return `${amount} ${noun}${amount === 1 ? "" : "s"}`;
}
