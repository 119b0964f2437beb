import { githubAnnotations } from "./github";
import { findingLine, type ReportView } from "./view";

export const OUTPUT_FORMATS = ["text", "json", "junit", "sarif", "github"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * Beside a document the summary and notes go to stderr only when it is not stdout's file
 * (`sharedStream`: `> report 2>&1`), where they would make the document unparsable.
 */
export function renderReport(
  format: OutputFormat,
  view: ReportView,
  documents: { readonly junit: () => string; readonly sarif: () => string },
  sharedStream: boolean,
): { stdout: string; stderr: string } {
  const notes = view.notes.map((note) => `note: ${note}`);
  const problems = problemLines(view);
  const beside = (...texts: string[]) => (sharedStream ? [] : texts);
  switch (format) {
    case "text":
      return {
        stdout: linesOf([...view.findings.map(findingLine), ...notes, view.summary]),
        stderr: linesOf(problems),
      };
    case "json":
      return {
        stdout: `${JSON.stringify(view.findings, null, 2)}\n`,
        stderr: linesOf([...problems, ...beside(...notes, view.summary)]),
      };
    case "junit":
      return { stdout: documents.junit(), stderr: linesOf(beside(...problems, view.summary)) };
    case "sarif":
      return { stdout: documents.sarif(), stderr: linesOf(beside(...problems, view.summary)) };
    case "github":
      return { stdout: githubAnnotations(view), stderr: linesOf(beside(view.summary)) };
  }
}

export const problemLines = ({ tool, problems }: ReportView) =>
  problems.map(({ text }) => `${tool}: ${text}`);

export function linesOf(texts: readonly string[]): string {
  return texts.map((text) => `${text}\n`).join("");
}
