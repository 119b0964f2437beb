import { githubAnnotations } from "../formats/github";
import { junitReport } from "../formats/junit";
import { sarifReport } from "../formats/sarif";
import { findingLine, notesOf, problemLine, type RunReport, summaryLine } from "./report";

export const OUTPUT_FORMATS = ["text", "json", "junit", "sarif", "github"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * The report for stdout, and what goes to stderr. In the formats other than
 * text stdout is the document alone; the summary and notes go to stderr only
 * when it is not stdout's file (`sharedStream`: `> report 2>&1`), where they
 * would make the document unreadable.
 */
export function render(
  format: OutputFormat,
  report: RunReport,
  { sharedStream = false }: { readonly sharedStream?: boolean } = {},
): { stdout: string; stderr: string } {
  const summary = summaryLine(report);
  const notes = notesOf(report).map((note) => `note: ${note}`);
  const problems = report.problems.map(
    (problem) => `cocoon-webhook validate: ${problemLine(problem)}`,
  );
  const beside = (...texts: string[]) => (sharedStream ? [] : texts);
  switch (format) {
    case "json":
      return {
        stdout: `${JSON.stringify(report.summary.findings, null, 2)}\n`,
        stderr: linesOf([...problems, ...beside(...notes, summary)]),
      };
    case "junit":
      return { stdout: junitReport(report), stderr: linesOf(beside(...problems, summary)) };
    case "sarif":
      return { stdout: sarifReport(report), stderr: linesOf(beside(...problems, summary)) };
    case "github":
      return { stdout: githubAnnotations(report), stderr: linesOf(beside(summary)) };
    case "text":
      return {
        stdout: linesOf([...report.summary.findings.map(findingLine), ...notes, summary]),
        stderr: linesOf(problems),
      };
  }
}

export function linesOf(texts: readonly string[]): string {
  return texts.map((text) => `${text}\n`).join("");
}
