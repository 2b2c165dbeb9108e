/**
 * Shared test support: a recording logger and a request helper (the fixed clock is in
 * `testing.ts`). Internal to tests/.
 *
 * @module
 */
import type { Logger } from "../lib/ports.ts";

/** One line a {@linkcode RecordingLogger} received. */
export interface LogRecord {
  level: "info" | "warn" | "error";
  message: string;
  fields?: Record<string, unknown>;
}

/** A logger that keeps what it is told. */
export interface RecordingLogger extends Logger {
  records: LogRecord[];
}

/** Creates a logger that records every line instead of printing it. */
export function createRecordingLogger(): RecordingLogger {
  const records: LogRecord[] = [];
  return {
    records,
    info: (message, fields) => records.push({ level: "info", message, fields }),
    warn: (message, fields) => records.push({ level: "warn", message, fields }),
    error: (message, fields) => records.push({ level: "error", message, fields }),
  };
}

/** The connection info of a client at `address`, as a server passes it. */
export function fromAddress(address: string): { remoteAddr: { hostname: string } } {
  return { remoteAddr: { hostname: address } };
}

/**
 * Builds a request to `path` on the test origin. A streamed body gets `duplex: "half"`, which
 * Node's `Request` requires (Deno and Bun accept it).
 */
export function buildRequest(path: string, init: RequestInit = {}): Request {
  const streamed = init.body instanceof ReadableStream;
  return new Request(
    `http://localhost:8000${path}`,
    streamed ? { ...init, duplex: "half" } as RequestInit : init,
  );
}

/** The headers every `/api/` response carries (spec, Endpoints; Limits; Versioning). */
export const API_HEADERS: readonly string[] = [
  "RateLimit-Policy",
  "RateLimit",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "API-Version",
];

/** The slot starts (`HH:MM`) of an open weekday in the default schedule (content/schedule.json). */
export const WEEKDAY_TIMES: readonly string[] = [
  "09:30",
  "10:00",
  "10:30",
  "11:00",
  "11:30",
  "12:00",
  "14:00",
  "14:30",
  "15:00",
  "15:30",
  "16:00",
  "16:30",
  "17:00",
  "17:30",
];
