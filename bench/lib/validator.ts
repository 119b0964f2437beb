/**
 * The offline validator (`cocoon-webhook validate -f FILE`) on many CocoonSet
 * documents, when the binary has that subcommand.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cocoonSetDocuments } from "../payloads";

export interface ValidatorResult {
  readonly documents: number;
  readonly fileBytes: number;
  readonly seconds: number;
  readonly documentsPerSecond: number;
  readonly exitCode: number | null;
  readonly maxRssBytes: number | undefined;
}

const TIMEOUT_MS = 120_000;

export async function validatorThroughput(
  binary: string,
  workDir: string,
  documents: number,
): Promise<ValidatorResult | undefined> {
  const file = join(workDir, "cocoonsets.yaml");
  const text = cocoonSetDocuments(documents);
  writeFileSync(file, text);
  const started = performance.now();
  const child = Bun.spawn([binary, "validate", "-f", file], {
    stdout: "ignore",
    stderr: "pipe",
    timeout: TIMEOUT_MS,
  });
  const stderr = await new Response(child.stderr).text();
  await child.exited;
  const seconds = (performance.now() - started) / 1000;
  if (/unknown command/i.test(stderr)) return undefined;
  return {
    documents,
    fileBytes: text.length,
    seconds,
    documentsPerSecond: documents / seconds,
    exitCode: child.exitCode,
    maxRssBytes: child.resourceUsage()?.maxRSS,
  };
}
