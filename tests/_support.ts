/**
 * Shared test support: a recording logger and a request helper (the fixed clock is in
 * `testing.ts`). Internal to tests/.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Logger } from "../lib/ports.ts";
import type { ErrorResponseBody } from "../lib/contract/api_error.ts";
import { ERROR_CODES } from "../lib/contract/contract.ts";

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

/** The slot starts (`HH:MM`) of an open weekday in the sample fixture studio's schedule. */
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

/** Asserts an ErrorResponse and returns its body; see {@linkcode createErrorReader}. */
export interface ErrorReader {
  /** Asserts an ErrorResponse of `code` (its status asserted by the caller). */
  (response: Response, code: string): Promise<ErrorResponseBody>;
  /** Asserts an ErrorResponse of `status` and `code`. */
  (response: Response, status: number, code: string): Promise<ErrorResponseBody>;
}

/**
 * Creates the suite's one ErrorResponse assertion (spec, Errors): JSON, every header of an
 * `/api/` answer, `API-Version: 1`, `ok: false`, one of the six codes, a message and a hint, and
 * `docs` naming the OpenAPI document of the server under test.
 *
 * @param docsUrl The absolute URL `error.docs` must hold.
 */
export function createErrorReader(docsUrl = "http://localhost:8000/openapi.json"): ErrorReader {
  return async (response: Response, statusOrCode: number | string, maybeCode?: string) => {
    const code = typeof statusOrCode === "string" ? statusOrCode : maybeCode;
    if (typeof statusOrCode === "number") assert.equal(response.status, statusOrCode);
    assert.equal(response.headers.get("Content-Type"), "application/json");
    for (const name of API_HEADERS) assert.ok(response.headers.has(name), `missing ${name}`);
    assert.equal(response.headers.get("API-Version"), "1");
    const body: ErrorResponseBody = await response.json();
    assert.equal(body.ok, false);
    assert.equal(body.error.code, code);
    assert.ok(ERROR_CODES.includes(body.error.code));
    assert.equal(typeof body.error.message, "string");
    assert.ok(body.error.message.length > 0);
    assert.equal(typeof body.error.hint, "string");
    assert.ok(body.error.hint.length > 0);
    assert.equal(body.error.docs, docsUrl);
    return body;
  };
}

/** {@linkcode createErrorReader} for servers on the default base URL. */
export const readError: ErrorReader = createErrorReader();

/** Requests to an in-process handler from one client, as a server would pass them. */
export interface TestClient {
  /** `GET path`. */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** `HEAD path`. */
  head(path: string, headers?: Record<string, string>): Promise<Response>;
  /** `POST path` with a body (a streamed body gets `duplex: "half"`). */
  post(path: string, body: BodyInit | null, headers?: Record<string, string>): Promise<Response>;
}

/**
 * Creates the suite's one request helper for in-process tests.
 *
 * @param handler The handler under test.
 * @param client The connection's address (the rate limits count per client).
 */
export function createTestClient(
  handler: (request: Request, info?: { remoteAddr: { hostname: string } }) => Promise<Response>,
  client = "203.0.113.7",
): TestClient {
  const info = fromAddress(client);
  return {
    get: (path, headers = {}) => handler(buildRequest(path, { headers }), info),
    head: (path, headers = {}) => handler(buildRequest(path, { method: "HEAD", headers }), info),
    post: (path, body, headers = {}) =>
      handler(buildRequest(path, { method: "POST", body, headers }), info),
  };
}
