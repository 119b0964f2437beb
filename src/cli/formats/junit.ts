import type { RunReport } from "../report";
import { count, findingLine, notesOf, problemLine, summaryLine } from "../report";
import type { Finding } from "../validate/check";

const SUITE_NAME = "cocoon-webhook validate";

/**
 * JUnit XML as CI test reporters read it: one test case per checked object
 * (class name: its file) that fails when it has an error-level finding, its
 * warnings in `system-out`; an input that could not be read is a test case
 * with an `error`. The summary and notes are suite properties.
 */
export function junitReport(report: RunReport): string {
  let failures = 0;
  const cases = report.summary.checked.map(({ file, kind, namespace, name, findings }) => {
    const errors = findings.filter((finding) => finding.severity === "error");
    const warnings = findings.filter((finding) => finding.severity === "warning");
    const body: string[] = [];
    const [first] = errors;
    if (first) {
      failures++;
      const message = errors.length === 1 ? located(first) : count(errors.length, "error");
      const details = escapeXml(errors.map(findingLine).join("\n"));
      body.push(
        `      <failure message="${escapeXml(message)}" type="${escapeXml(first.rule)}">${details}</failure>`,
      );
    }
    if (warnings.length > 0) {
      body.push(
        `      <system-out>${escapeXml(warnings.map(findingLine).join("\n"))}</system-out>`,
      );
    }
    return testCase(file, `${kind} ${namespace}/${name}`, body);
  });
  for (const problem of report.problems) {
    const error = `      <error message="${escapeXml(problem.message)}" type="input">${escapeXml(problemLine(problem))}</error>`;
    cases.push(testCase(problem.file, "read and parse", [error]));
  }
  const properties = [
    ["summary", summaryLine(report)],
    ...notesOf(report).map((note) => ["note", note]),
  ].map(([name, value]) => `      <property name="${name}" value="${escapeXml(value ?? "")}"/>`);
  const counts = `tests="${cases.length}" failures="${failures}" errors="${report.problems.length}" skipped="0"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${SUITE_NAME}" ${counts}>`,
    `  <testsuite name="${SUITE_NAME}" ${counts}>`,
    "    <properties>",
    ...properties,
    "    </properties>",
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

function located({ path, message }: Finding): string {
  return path ? `${path}: ${message}` : message;
}

function testCase(file: string, name: string, body: string[]): string {
  const open = `    <testcase classname="${escapeXml(file)}" name="${escapeXml(name)}" file="${escapeXml(file)}"`;
  return body.length === 0 ? `${open}/>` : [`${open}>`, ...body, "    </testcase>"].join("\n");
}

// Characters XML 1.0 cannot carry at all, even escaped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the ones removed
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, "\uFFFD")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}
