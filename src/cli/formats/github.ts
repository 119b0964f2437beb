import { type FileSpot, located, objectOf, type ReportView, repositoryPath } from "./view";

export function githubAnnotations({ findings, problems, notes }: ReportView): string {
  return [
    ...findings.map((finding) =>
      command(
        finding.severity,
        { ...fileProperties(finding), title: `${finding.rule}: ${objectOf(finding)}` },
        located(finding),
      ),
    ),
    ...problems.map(({ title, message, spot }) =>
      command("error", { ...fileProperties(spot), title }, message),
    ),
    ...notes.map((note) => command("notice", {}, note)),
  ].join("");
}

function fileProperties(spot: FileSpot | object | undefined): Record<string, string> {
  if (spot === undefined || !("file" in spot)) return {};
  return {
    file: repositoryPath(spot.file),
    ...(spot.line === undefined ? {} : { line: String(spot.line) }),
    ...(spot.column === undefined ? {} : { col: String(spot.column) }),
  };
}

function command(name: string, properties: Record<string, string>, message: string): string {
  const props = Object.entries(properties)
    .map(([key, value]) => `${key}=${escapeProperty(value)}`)
    .join(",");
  return `::${name}${props ? ` ${props}` : ""}::${escapeData(message)}\n`;
}

function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}
