/**
 * `make generate`: writes what follows from the endpoint table
 * (scripts/generated-files.ts) and names the files it changed.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatedFiles } from "./generated-files";

const REPO = join(import.meta.dir, "..");

const committed = (path: string): string | undefined => {
  const file = join(REPO, path);
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
};

for (const [path, text] of generatedFiles(committed)) {
  if (committed(path) === text) continue;
  writeFileSync(join(REPO, path), text);
  console.log(`generated ${path}`);
}
