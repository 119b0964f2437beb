/*
 * Writes charts/cocoon-webhook from the kustomize output of manifests/
 * (scripts/chart/generate.ts says how), removing files it no longer makes.
 *
 *   bun scripts/generate-chart.ts        (make chart)
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { CHART_DIR, generateChart } from "./chart/generate";
import { kustomize } from "./tools";

const REPO_ROOT = resolve(import.meta.dir, "..");
const chartRoot = join(REPO_ROOT, CHART_DIR);
const files = generateChart(kustomize, REPO_ROOT);

for (const existing of filesUnder(chartRoot)) {
  if (!files.has(relative(chartRoot, existing))) rmSync(existing);
}
for (const [path, text] of files) {
  mkdirSync(dirname(join(chartRoot, path)), { recursive: true });
  writeFileSync(join(chartRoot, path), text);
}
console.log(`${CHART_DIR}: ${files.size} files`);

function filesUnder(directory: string): string[] {
  try {
    return readdirSync(directory, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}
