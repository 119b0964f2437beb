import pino from "pino";

export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly err?: { readonly message: string };
  readonly [field: string]: unknown;
}

/** A logger whose lines land in `lines`, parsed, instead of on stdout. */
export function capturingLogger(level: pino.LevelWithSilent = "info") {
  const lines: LogLine[] = [];
  const log = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, lines };
}
