/**
 * `make chart`: writes what scripts/chart-files.ts derives into the chart
 * (Chart.yaml's version fields, the README's values table) and names the
 * files it changed. The templates, values.yaml and the schema are kept by hand.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chartFiles } from "./chart-files";

const REPO = join(import.meta.dir, "..");
const read = (path: string) => readFileSync(join(REPO, path), "utf8");

for (const [path, text] of chartFiles(read)) {
  if (read(path) === text) continue;
  writeFileSync(join(REPO, path), text);
  console.log(`wrote ${path}`);
}
