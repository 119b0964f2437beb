/**
 * `make generate`: writes the manifests that follow from the endpoint table
 * (scripts/generated-files.ts) and names the files it changed.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatedFiles } from "./generated-files";

const REPO = join(import.meta.dir, "..");

for (const [path, text] of generatedFiles()) {
  const file = join(REPO, path);
  if (existsSync(file) && readFileSync(file, "utf8") === text) continue;
  writeFileSync(file, text);
  console.log(`generated ${path}`);
}
