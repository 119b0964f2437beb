import pino from "pino";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type Logger = pino.Logger;

/** JSON lines on stdout: `{"level":"info","time":"…","msg":"…",…}`. */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}

/** A log line as `createLineLogger` hands it over: its level, message and other fields. */
export interface LoggedLine {
  readonly level: LogLevel;
  readonly msg: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** A logger that hands each line at `level` or above to `onLine` instead of writing it (the CLI's warnings). */
export function createLineLogger(level: LogLevel, onLine: (line: LoggedLine) => void): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: false,
      formatters: { level: (label) => ({ level: label }) },
    },
    {
      write(text: string) {
        const {
          level: lineLevel,
          msg,
          ...fields
        } = JSON.parse(text) as {
          level: LogLevel;
          msg: string;
        } & Record<string, unknown>;
        onLine({ level: lineLevel, msg, fields });
      },
    },
  );
}
