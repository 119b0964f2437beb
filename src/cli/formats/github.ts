import type { RunReport } from "../validate/report";
import { located, notesOf, repositoryPath } from "../validate/report";

/** GitHub Actions workflow commands: an annotation per finding and unreadable input, the notes as `::notice`. */
export function githubAnnotations(report: RunReport): string {
  const annotations = report.summary.findings.map((finding) =>
    command(
      finding.severity,
      {
        file: repositoryPath(finding.file),
        line: String(finding.line),
        col: String(finding.column),
        title: `${finding.rule}: ${finding.kind} ${finding.namespace}/${finding.name}`,
      },
      located(finding),
    ),
  );
  const problems = report.problems.map((problem) =>
    command(
      "error",
      {
        file: repositoryPath(problem.file),
        ...(problem.line === undefined ? {} : { line: String(problem.line) }),
        ...(problem.column === undefined ? {} : { col: String(problem.column) }),
        title: "cocoon-webhook validate: input not checked",
      },
      problem.message,
    ),
  );
  const notes = notesOf(report).map((note) => command("notice", {}, note));
  return [...annotations, ...problems, ...notes].join("");
}

/** `::NAME key=value,…::message` and its newline, one workflow command with its escapes. */
export function command(name: string, properties: Record<string, string>, message: string): string {
  const props = Object.entries(properties)
    .map(([key, value]) => `${key}=${escapeProperty(value)}`)
    .join(",");
  return `::${name}${props ? ` ${props}` : ""}::${escapeData(message)}\n`;
}

/** The workflow-command escapes for a message. */
function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

/** The workflow-command escapes for a property value: a message's, and `:` and `,`. */
function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}
