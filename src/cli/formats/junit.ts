import { count } from "../plural";
import type { RunReport } from "../validate/report";
import { findingLine, located, notesOf, problemLine, summaryLine } from "../validate/report";

const SUITE_NAME = "cocoon-webhook validate";

/**
 * JUnit XML: a test case per checked object (class name: its file), failing
 * on an error, its warnings in `system-out`; an unreadable input an `error`.
 */
export function junitReport(report: RunReport): string {
  let failures = 0;
  const cases = report.summary.checked.map(({ file, kind, namespace, name, findings }) => {
    const errors = findings.filter((finding) => finding.severity === "error");
    const warnings = findings.filter((finding) => finding.severity === "warning");
    if (errors.length > 0) failures++;
    const body = junitCaseBody(errors, warnings, located, findingLine);
    return junitTestCase(file, `${kind} ${namespace}/${name}`, body, file);
  });
  for (const problem of report.problems) {
    const error = `      <error message="${escapeXml(problem.message)}" type="input">${escapeXml(problemLine(problem))}</error>`;
    cases.push(junitTestCase(problem.file, "read and parse", [error], problem.file));
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

/**
 * A test case's body: one failure for its errors (the first's message, or
 * how many), and its other findings in `system-out`.
 */
export function junitCaseBody<F extends { readonly rule: string }>(
  errors: readonly F[],
  others: readonly F[],
  located: (finding: F) => string,
  line: (finding: F) => string,
): string[] {
  const body: string[] = [];
  const [first] = errors;
  if (first) {
    const message = errors.length === 1 ? located(first) : count(errors.length, "error");
    body.push(
      `      <failure message="${escapeXml(message)}" type="${escapeXml(first.rule)}">${escapeXml(errors.map(line).join("\n"))}</failure>`,
    );
  }
  if (others.length > 0) {
    body.push(`      <system-out>${escapeXml(others.map(line).join("\n"))}</system-out>`);
  }
  return body;
}

/** A `testcase` element, with the file it stands for when there is one. */
export function junitTestCase(
  classname: string,
  name: string,
  body: readonly string[],
  file?: string,
): string {
  const fileAttribute = file === undefined ? "" : ` file="${escapeXml(file)}"`;
  const open = `    <testcase classname="${escapeXml(classname)}" name="${escapeXml(name)}"${fileAttribute}`;
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
