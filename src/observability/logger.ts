import pino from "pino";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type Logger = pino.Logger;

const JSON_LINES = {
  base: undefined,
  formatters: { level: (label: string) => ({ level: label }) },
};

/** JSON lines on stdout: `{"level":"info","time":"…","msg":"…",…}`. */
export function createLogger(level: LogLevel): Logger {
  return pino({ ...JSON_LINES, level, timestamp: pino.stdTimeFunctions.isoTime });
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
    { ...JSON_LINES, level, timestamp: false },
    {
      write(text: string) {
        const line = JSON.parse(text) as Omit<LoggedLine, "fields"> & LoggedLine["fields"];
        const { level: lineLevel, msg, ...fields } = line;
        onLine({ level: lineLevel, msg, fields });
      },
    },
  );
}
