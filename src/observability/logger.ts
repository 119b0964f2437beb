import pino from "pino";
import type { LogLevel } from "../config";

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
