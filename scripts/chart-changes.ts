/*
 * Artifact Hub's `artifacthub.io/changes` annotation: the CHANGELOG entry of
 * the chart's version, one change per top-level bullet, its kind from the
 * heading it is under. A version without an entry of its own (a development
 * version, whose changes are under Unreleased) gets no annotation.
 */

const KINDS: Readonly<Record<string, string>> = {
  Added: "added",
  Changed: "changed",
  Deprecated: "deprecated",
  Removed: "removed",
  Fixed: "fixed",
  Security: "security",
};

export interface Change {
  readonly kind: string;
  readonly description: string;
}

export function changesOf(changelog: string, version: string): Change[] {
  const heading = `## [${version}]`;
  const start = changelog.split("\n").findIndex((line) => line.startsWith(heading));
  if (start < 0) return [];
  const lines = changelog.split("\n").slice(start + 1);
  const end = lines.findIndex((line) => line.startsWith("## "));
  const changes: Change[] = [];
  let kind: string | undefined;
  for (const line of end < 0 ? lines : lines.slice(0, end)) {
    const section = /^### (\w+)/.exec(line)?.[1];
    if (section !== undefined) kind = KINDS[section];
    else if (kind !== undefined && line.startsWith("- ")) {
      changes.push({ kind, description: line.slice(2) });
    } else if (kind !== undefined && /^\s+\S/.test(line) && changes.length > 0) {
      const last = changes.pop() as Change;
      changes.push({ kind: last.kind, description: `${last.description} ${line.trim()}` });
    }
  }
  return changes;
}
