import { fstatSync } from "node:fs";
import { isatty } from "node:tty";
import { VERSION_LINE } from "../version";

/** The exit statuses every subcommand shares: clean, findings, and a run that could not check. */
export const EXIT_CLEAN = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_UNUSABLE = 2;

export type ParsedOptions<Options> = Options | { readonly error: string };

type HelpAndVersion = { readonly help: boolean; readonly version: boolean };

export function isRunnable<Options extends HelpAndVersion>(
  options: ParsedOptions<Options>,
): options is Options {
  return !("error" in options) && !options.help && !options.version;
}

export async function answerWithoutRunning<Options extends HelpAndVersion>(
  command: string,
  usage: string,
  options: ParsedOptions<Options>,
  io: CliIo,
): Promise<number> {
  if ("error" in options) {
    await io.stderr(`cocoon-webhook ${command}: ${options.error}\n${usage}`);
    return EXIT_UNUSABLE;
  }
  await io.stdout(options.help ? usage : `${VERSION_LINE}\n`);
  return EXIT_CLEAN;
}

/** Bun collects lazily: past this resident size a long run collects what it no longer holds. */
const SOFT_LIMIT_BYTES = 128 * 1024 * 1024;

export function collectorPastSoftLimit(checkEvery = 1): () => void {
  let calls = 0;
  return () => {
    if (++calls % checkEvery !== 0) return;
    if (process.memoryUsage.rss() > SOFT_LIMIT_BYTES) Bun.gc(true);
  };
}

export interface CliIo {
  readonly stdout: (text: string) => Promise<unknown>;
  readonly stderr: (text: string) => Promise<unknown>;
  readonly stderrSharesStdout: () => boolean;
}

export const processCliIo: CliIo = {
  stdout: (text) => writeAll(process.stdout, text),
  stderr: (text) => writeAll(process.stderr, text),
  stderrSharesStdout,
};

// The same file (`> f 2>&1`, `2>&1 | jq`), and not a terminal, where a person reads both streams.
function stderrSharesStdout(): boolean {
  try {
    const stdout = fstatSync(1, { bigint: true });
    const stderr = fstatSync(2, { bigint: true });
    return stdout.dev === stderr.dev && stdout.ino === stderr.ino && !isatty(1);
  } catch {
    // A closed descriptor shares nothing.
    return false;
  }
}

/**
 * Resolves once the stream has taken every byte, as the process exits right after. Not Bun.write:
 * it preallocates a regular file, which with `> report 2>&1` erases the report or, with `>>`,
 * leaves NUL bytes.
 */
function writeAll(stream: NodeJS.WriteStream, text: string): Promise<void> {
  if (text === "") return Promise.resolve();
  return new Promise((resolve, reject) => {
    stream.write(text, (error) => (error ? reject(error) : resolve()));
  });
}
