import { VERSION_INFO } from "../../version";
import { type FileSpot, located, objectOf, type ReportView, repositoryPath } from "./view";

const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
export const INFORMATION_URI = "https://github.com/cocoonstack/cocoon-webhook";
const LEVELS = { error: "error", warning: "warning", notice: "note" } as const;

interface Rule {
  readonly id: string;
  readonly text: string;
}

export function sarifReport<R extends Rule>(
  view: ReportView,
  rules: readonly R[],
  { describe = () => ({}), run = {} }: { describe?: (rule: R) => object; run?: object } = {},
): string {
  const ruleIndex = new Map(rules.map((rule, index) => [rule.id, index]));
  const driver = {
    name: view.tool,
    semanticVersion: VERSION_INFO.version,
    informationUri: INFORMATION_URI,
    rules: rules.map((rule) => ({ ...ruleDescriptor(rule), ...describe(rule) })),
  };
  const log = {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: { driver },
        ...run,
        results: view.findings.map((finding) => ({
          ruleId: finding.rule,
          ruleIndex: ruleIndex.get(finding.rule) ?? 0,
          level: LEVELS[finding.severity],
          message: { text: `${objectOf(finding)}: ${located(finding)}` },
          locations: [
            "file" in finding
              ? physicalLocation(finding)
              : {
                  logicalLocations: [
                    {
                      fullyQualifiedName: `${finding.apiVersion}/${finding.kind}/${finding.namespace}/${finding.name}`,
                      name: finding.name,
                      kind: "resource",
                    },
                  ],
                },
          ],
        })),
        invocations: [
          {
            executionSuccessful: view.problems.length === 0,
            toolExecutionNotifications: [
              ...view.problems.map(({ text, spot }) => ({
                level: "error",
                message: { text },
                ...(spot ? { locations: [physicalLocation(spot)] } : {}),
              })),
              ...[...view.notes, view.summary].map((text) => ({
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

function physicalLocation({ file, line, column }: FileSpot) {
  return {
    physicalLocation: {
      artifactLocation: { uri: encodeURI(repositoryPath(file)) },
      ...(line === undefined ? {} : { region: { startLine: line, startColumn: column ?? 1 } }),
    },
  };
}

function ruleDescriptor(rule: Rule) {
  return {
    id: rule.id,
    name: ruleName(rule.id),
    shortDescription: { text: firstSentence(rule.text) },
    fullDescription: { text: rule.text },
  };
}

/** Up to the first full stop: a whole sentence, never cut at a `;`. */
function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1);
}

function ruleName(id: string): string {
  return id
    .split(/[.-]/)
    .map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`)
    .join("");
}
