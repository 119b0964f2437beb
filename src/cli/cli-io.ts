import { fstatSync } from "node:fs";
import { isatty } from "node:tty";

/** Where a command writes: its two streams, and whether they share a file. */
export interface CliIo {
  readonly stdout: (text: string) => Promise<unknown>;
  readonly stderr: (text: string) => Promise<unknown>;
  /** Whether what goes to stderr lands in stdout's file (see render). */
  readonly stderrSharesStdout: () => boolean;
}

export const processCliIo: CliIo = {
  stdout: (text) => writeAll(process.stdout, text),
  stderr: (text) => writeAll(process.stderr, text),
  stderrSharesStdout,
};

/**
 * File descriptors 1 and 2 open the same file (`> f 2>&1`, `&> f`, `> f 2> f`,
 * `2>&1 | jq`) and it is not a terminal, where a person reads both.
 */
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
 * Resolves once the stream has taken every byte: the caller exits the process
 * right after, and a report larger than a pipe's buffer must not be cut short.
 * Not Bun.write: on a regular file it truncates for an empty string and
 * preallocates an empty file before writing, which with `> report 2>&1`
 * (one file for both streams) erases the report or, with `>>`, leaves it
 * behind a run of NUL bytes.
 */
function writeAll(stream: NodeJS.WriteStream, text: string): Promise<void> {
  if (text === "") return Promise.resolve();
  return new Promise((resolve, reject) => {
    stream.write(text, (error) => (error ? reject(error) : resolve()));
  });
}
