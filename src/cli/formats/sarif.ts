import { VERSION_INFO } from "../../version";
import { ALL_RULES } from "../validate/manifest-rules";
import type { RunReport } from "../validate/report";
import { located, notesOf, problemLine, repositoryPath, summaryLine } from "../validate/report";

export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
const INFORMATION_URI = "https://github.com/cocoonstack/cocoon-webhook";
/** Warnings unless --strict makes them errors. */
const WARNING_RULES: ReadonlySet<string> = new Set([
  "manifest.unknown-field",
  "manifest.unknown-object",
]);
const HELP = `${INFORMATION_URI}#validation-rules`;

/** SARIF 2.1.0 as GitHub code scanning reads it; unreadable inputs and notes as notifications. */
export function sarifReport(report: RunReport): string {
  const ruleIndex = new Map(ALL_RULES.map((rule, index) => [rule.id, index]));
  const log = {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: sarifTool(
          "cocoon-webhook validate",
          ALL_RULES.map((rule) => ({
            ...ruleDescriptor(rule),
            help: { text: `${rule.text} Fix the manifest at the reported field.` },
            helpUri: HELP,
            defaultConfiguration: { level: WARNING_RULES.has(rule.id) ? "warning" : "error" },
          })),
        ),
        columnKind: "utf16CodeUnits",
        results: report.summary.findings.map((finding) => ({
          ruleId: finding.rule,
          ruleIndex: ruleIndex.get(finding.rule) ?? 0,
          level: finding.severity,
          message: {
            text: `${finding.kind} ${finding.namespace}/${finding.name}: ${located(finding)}`,
          },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: encodeURI(repositoryPath(finding.file)) },
                region: { startLine: finding.line, startColumn: finding.column },
              },
            },
          ],
        })),
        invocations: [
          {
            executionSuccessful: report.problems.length === 0,
            toolExecutionNotifications: [
              ...report.problems.map((problem) => ({
                level: "error",
                message: { text: problemLine(problem) },
                locations: [
                  {
                    physicalLocation: {
                      artifactLocation: { uri: encodeURI(repositoryPath(problem.file)) },
                      ...(problem.line === undefined
                        ? {}
                        : {
                            region: { startLine: problem.line, startColumn: problem.column ?? 1 },
                          }),
                    },
                  },
                ],
              })),
              ...[...notesOf(report), summaryLine(report)].map((text) => ({
                level: "note",
                message: { text },
              })),
            ],
          },
        ],
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** SARIF's `tool`: this program as the driver, with the rules its results name. */
export function sarifTool(name: string, rules: readonly object[]) {
  return {
    driver: { name, semanticVersion: VERSION_INFO.version, informationUri: INFORMATION_URI, rules },
  };
}

/** A rule as SARIF describes it: id, readable name, first sentence and whole text. */
export function ruleDescriptor(rule: { readonly id: string; readonly text: string }) {
  return {
    id: rule.id,
    name: ruleName(rule.id),
    shortDescription: { text: firstSentence(rule.text) },
    fullDescription: { text: rule.text },
  };
}

/** The text up to its first full stop: a whole sentence, never cut at a `;`. */
function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1);
}

/** SARIF's human-readable rule name: `agent.image-required` → `AgentImageRequired`. */
function ruleName(id: string): string {
  return id
    .split(/[.-]/)
    .map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`)
    .join("");
}
