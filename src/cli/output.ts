import { githubAnnotations } from "./formats/github";
import { junitReport } from "./formats/junit";
import { sarifReport } from "./formats/sarif";
import { findingLine, notesOf, problemLine, type RunReport, summaryLine } from "./report";

export const OUTPUT_FORMATS = ["text", "json", "junit", "sarif", "github"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * The report for stdout, and what goes to stderr. In text the input problems
 * go to stderr and the rest to stdout; in json stdout stays one JSON value; in
 * junit and sarif stdout is one document holding everything.
 */
export function render(
  format: OutputFormat,
  report: RunReport,
): { stdout: string; stderr: string } {
  const summary = summaryLine(report);
  const notes = notesOf(report).map((note) => `note: ${note}`);
  const problems = report.problems.map(
    (problem) => `cocoon-webhook validate: ${problemLine(problem)}`,
  );
  switch (format) {
    case "json":
      return {
        stdout: `${JSON.stringify(report.summary.findings, null, 2)}\n`,
        stderr: lines([...problems, ...notes, summary]),
      };
    case "junit":
      return { stdout: junitReport(report), stderr: lines([...problems, summary]) };
    case "sarif":
      return { stdout: sarifReport(report), stderr: lines([...problems, summary]) };
    case "github":
      return { stdout: githubAnnotations(report), stderr: "" };
    case "text":
      return {
        stdout: lines([...report.summary.findings.map(findingLine), ...notes, summary]),
        stderr: lines(problems),
      };
  }
}

function lines(texts: readonly string[]): string {
  return texts.map((text) => `${text}\n`).join("");
}
