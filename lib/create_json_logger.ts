/**
 * The service's log format: one JSON object per line, `{"time","level","message",…fields}`, with
 * the time as an ISO 8601 string in UTC to the millisecond.
 *
 * @module
 */
import type { Logger } from "./ports.ts";

/**
 * Creates a reader of the wall clock as the log writes it (`2025-05-01T09:30:00.000Z`). It
 * formats the time once per millisecond and hands the same string to every line of that
 * millisecond: `toISOString()` costs about a microsecond on Deno, a line under load much less.
 *
 * @param nowMilliseconds The wall clock, in milliseconds since the epoch. @default {Date.now}
 * @returns The reader.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLogTime } from "./create_json_logger.ts";
 *
 * const logTime = createLogTime(() => Date.UTC(2025, 4, 1, 9, 30));
 * assert.equal(logTime(), "2025-05-01T09:30:00.000Z");
 * ```
 */
export function createLogTime(nowMilliseconds: () => number = Date.now): () => string {
  let formattedAt = NaN;
  let formatted = "";
  return () => {
    const now = nowMilliseconds();
    if (now !== formattedAt) {
      formattedAt = now;
      formatted = new Date(now).toISOString();
    }
    return formatted;
  };
}

/** One log line: `{"time","level","message",…fields}` as JSON, in that order. */
function toLogLine(
  time: string,
  level: string,
  message: string,
  fields?: Record<string, unknown>,
): string {
  return JSON.stringify({ time, level, message, ...fields });
}

/** Options of {@linkcode createJsonLogger}. */
export interface JsonLoggerOptions {
  /** Where `info` lines go, e.g. a `LogWriter`'s `write`. */
  write(line: string): void;
  /**
   * Where `warn` and `error` lines go. @default {the same place as `info` lines}
   */
  writeError?(line: string): void;
  /** The time of each line. @default {createLogTime()} */
  time?: () => string;
}

/**
 * Creates a {@linkcode Logger} that writes one JSON line per call (see {@linkcode toLogLine}).
 *
 * @param options Where lines go, and their time.
 * @returns The logger.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createJsonLogger } from "./create_json_logger.ts";
 *
 * const lines: string[] = [];
 * const logger = createJsonLogger({ write: (line) => lines.push(line), time: () => "T" });
 * logger.warn("Slow calendar", { ms: 900 });
 * assert.deepEqual(lines, ['{"time":"T","level":"warn","message":"Slow calendar","ms":900}']);
 * ```
 */
export function createJsonLogger(options: JsonLoggerOptions): Logger {
  const { write, writeError = write, time = createLogTime() } = options;
  return {
    info: (message, fields) => write(toLogLine(time(), "info", message, fields)),
    warn: (message, fields) => writeError(toLogLine(time(), "warn", message, fields)),
    error: (message, fields) => writeError(toLogLine(time(), "error", message, fields)),
  };
}
