/** The project's releases as CHANGELOG.md records them, and what a version may name. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const CHANGELOG = readFileSync(join(import.meta.dir, "../../CHANGELOG.md"), "utf8");

/** Versions with a dated `## [X.Y.Z] - YYYY-MM-DD` entry, newest first. */
export function releasedVersions(changelog = CHANGELOG): string[] {
  return [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d\d-\d\d$/gm)].map(
    (match) => match[1] ?? "",
  );
}

export function isPreRelease(version: string): boolean {
  return version.includes("-");
}

/** The git ref a build's documentation links point at: its tag, or main before it is released. */
export function docsRef(version: string): string {
  return isPreRelease(version) ? "main" : `v${version}`;
}

/** The text of a release's CHANGELOG.md entry, up to the next entry. */
export function changelogEntry(version: string, changelog = CHANGELOG): string {
  const start = changelog.indexOf(`\n## [${version}] - `);
  if (start < 0) return "";
  const end = changelog.indexOf("\n## ", start + 1);
  return changelog.slice(start, end < 0 ? undefined : end);
}
