import { count } from "../plural";
import { findingLine, located, type ReportedFinding, type ReportView } from "./view";

export interface JunitCase {
  readonly xml: string;
  readonly outcome?: "failure" | "error";
}

export interface JunitSuite {
  readonly name: string;
  readonly cases: readonly JunitCase[];
}

/** Summary and notes: in a lone suite, whose counts the document repeats; else in the document. */
export function junitReport(view: ReportView, suites: readonly JunitSuite[]): string {
  const [lone] = suites.length === 1 ? suites : [];
  const indent = lone ? "    " : "  ";
  const properties = [
    `${indent}<properties>`,
    ...[["summary", view.summary], ...view.notes.map((note) => ["note", note])].map(
      ([name, value]) => `${indent}  <property name="${name}" value="${escapeXml(value ?? "")}"/>`,
    ),
    `${indent}</properties>`,
  ];
  const suiteXml = (suite: JunitSuite, own: readonly string[]) => [
    `  <testsuite name="${escapeXml(suite.name)}" ${countsOf(suite)}>`,
    ...own,
    ...suite.cases.map((each) => each.xml),
    "  </testsuite>",
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(view.tool)}"${lone ? ` ${countsOf(lone)}` : ""}>`,
    ...(lone
      ? suiteXml(lone, properties)
      : [...properties, ...suites.flatMap((suite) => suiteXml(suite, []))]),
    "</testsuites>",
    "",
  ].join("\n");
}

function countsOf({ cases }: JunitSuite): string {
  const outcomes = (outcome: JunitCase["outcome"]) =>
    cases.filter((each) => each.outcome === outcome).length;
  return `tests="${cases.length}" failures="${outcomes("failure")}" errors="${outcomes("error")}" skipped="0"`;
}

export function junitObjectCase(
  classname: string,
  name: string,
  findings: readonly ReportedFinding[],
  file?: string,
): JunitCase {
  const errors = findings.filter((finding) => finding.severity === "error");
  const others = findings.filter((finding) => finding.severity !== "error");
  const body: string[] = [];
  const [first] = errors;
  if (first) {
    const message = errors.length === 1 ? located(first) : count(errors.length, "error");
    body.push(
      `      <failure message="${escapeXml(message)}" type="${escapeXml(first.rule)}">${escapeXml(errors.map(findingLine).join("\n"))}</failure>`,
    );
  }
  if (others.length > 0) {
    body.push(`      <system-out>${escapeXml(others.map(findingLine).join("\n"))}</system-out>`);
  }
  return { xml: testCase(classname, name, body, file), ...(first ? { outcome: "failure" } : {}) };
}

export function junitErrorCase(
  classname: string,
  name: string,
  { message, type, text }: { message: string; type: string; text: string },
  file?: string,
): JunitCase {
  const error = `      <error message="${escapeXml(message)}" type="${type}">${escapeXml(text)}</error>`;
  return { xml: testCase(classname, name, [error], file), outcome: "error" };
}

function testCase(classname: string, name: string, body: readonly string[], file?: string) {
  const fileAttribute = file === undefined ? "" : ` file="${escapeXml(file)}"`;
  const open = `    <testcase classname="${escapeXml(classname)}" name="${escapeXml(name)}"${fileAttribute}`;
  return body.length === 0 ? `${open}/>` : [`${open}>`, ...body, "    </testcase>"].join("\n");
}

// Characters XML 1.0 cannot carry at all, even escaped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the ones removed
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, "\uFFFD")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}
