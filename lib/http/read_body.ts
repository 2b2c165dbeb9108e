/**
 * Reading request bodies (and any other byte stream, such as a fetched calendar feed) within a
 * size limit, without ever holding more than the limit in memory: a declared `Content-Length`
 * over the limit is refused before reading, and a body sent without one (chunked) is counted as it
 * streams and cancelled as soon as it passes the limit.
 *
 * @module
 */

/** Why a body could not be read. */
export type BodyProblem = "too-large" | "too-slow" | "unreadable" | "aborted";

/** The longest a body may take to arrive, in milliseconds (a defence against slow senders). */
export const BODY_TIMEOUT_MILLISECONDS = 10_000;

/** A body that could not be read within the limit. */
export class BodyError extends Error {
  /**
   * `too-large`: over the limit; `too-slow`: not complete in time; `unreadable`: the stream
   * failed; `aborted`: the reader's signal was aborted (the server is stopping).
   */
  readonly problem: BodyProblem;
  /** The limit in bytes. */
  readonly maxBytes: number;

  /**
   * @param problem What went wrong.
   * @param maxBytes The limit in bytes.
   * @param options `cause`: the stream's own error, for an `unreadable` body.
   */
  constructor(problem: BodyProblem, maxBytes: number, options: { cause?: unknown } = {}) {
    super(
      problem === "too-large"
        ? `Body exceeds ${maxBytes} bytes`
        : problem === "too-slow"
        ? "Body did not arrive in time"
        : problem === "aborted"
        ? "Body reading was aborted"
        : "Body could not be read",
      options,
    );
    this.name = "BodyError";
    this.problem = problem;
    this.maxBytes = maxBytes;
  }
}

/** Options of {@linkcode readBounded}. */
export interface BoundedReadOptions {
  /** The largest stream accepted, in bytes. */
  maxBytes: number;
  /**
   * The size the sender announced, as its `Content-Length` gives it: over `maxBytes`, the stream
   * is refused without reading. Absent or not a whole number, only the streamed size counts.
   */
  declaredLength?: string | null;
  /**
   * The longest the whole stream may take, in milliseconds. Absent, it has no timer of its own
   * (for example because the fetch that opened it has an abort signal).
   */
  timeoutMilliseconds?: number;
  /**
   * Gives up the read when aborted, whatever is still to come: a server that stops waits for its
   * open requests, and a sender that trickles its body must not hold it for the whole timeout.
   */
  signal?: AbortSignal;
}

/**
 * Reads a byte stream whole, refusing anything larger than `maxBytes`: a declared length over the
 * limit is refused before reading, and a stream is cancelled as soon as it passes the limit or
 * its time.
 *
 * @example Reading a stream within its limit
 * ```ts
 * import assert from "node:assert/strict";
 * import { BodyError, readBounded } from "./read_body.ts";
 *
 * const bytes = await readBounded(new Blob(["hello"]).stream(), { maxBytes: 5 });
 * assert.equal(new TextDecoder().decode(bytes), "hello");
 * await assert.rejects(
 *   readBounded(new Blob(["hello!"]).stream(), { maxBytes: 5 }),
 *   (error) => error instanceof BodyError && error.problem === "too-large",
 * );
 * ```
 *
 * @param stream The stream, or `null` for none; it is consumed, or cancelled when refused.
 * @param options The limit in bytes, the declared length and the time allowed.
 * @returns The bytes; empty when there is no stream.
 * @throws {BodyError} `too-large` when the declared or streamed size passes `maxBytes`;
 * `too-slow` when it has not ended in time; `aborted` when `signal` was aborted first;
 * `unreadable` when the stream fails (its error is the `cause`).
 */
export async function readBounded(
  stream: ReadableStream<Uint8Array> | null,
  options: BoundedReadOptions,
): Promise<Uint8Array<ArrayBuffer>> {
  const { maxBytes, declaredLength, timeoutMilliseconds, signal } = options;
  const declared = declaredLength?.trim();
  if (declared && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
    // Not awaited: the cancel of a cloned body settles only once every clone is cancelled.
    stream?.cancel().catch(() => {});
    throw new BodyError("too-large", maxBytes);
  }
  if (!stream) return new Uint8Array(0);
  if (signal?.aborted) {
    stream.cancel().catch(() => {});
    throw new BodyError("aborted", maxBytes);
  }
  const reader = stream.getReader();
  // Why the read was stopped from outside, if it was: a cancelled reader's pending read ends.
  let stopped: "too-slow" | "aborted" | undefined;
  const stop = (problem: "too-slow" | "aborted") => {
    stopped ??= problem;
    reader.cancel().catch(() => {});
  };
  const timer = timeoutMilliseconds === undefined
    ? undefined
    : setTimeout(() => stop("too-slow"), timeoutMilliseconds);
  const onAbort = () => stop("aborted");
  signal?.addEventListener("abort", onAbort);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        throw new BodyError(stopped ?? "unreadable", maxBytes, { cause: error });
      }
      if (stopped) throw new BodyError(stopped, maxBytes);
      if (result.done) break;
      size += result.value.byteLength;
      if (size > maxBytes) {
        // Not awaited, as above.
        reader.cancel().catch(() => {});
        throw new BodyError("too-large", maxBytes);
      }
      chunks.push(result.value);
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Reads a request body as bytes, refusing anything larger than `maxBytes`
 * ({@linkcode readBounded} over the request's body and `Content-Length`).
 *
 * @param request The request; its body is consumed (or cancelled when too large or too slow).
 * @param maxBytes The largest body accepted, in bytes.
 * @param timeoutMilliseconds The longest the whole body may take to arrive.
 * @returns The body; empty when there is none.
 * @throws {BodyError} `too-large` when the declared or streamed size passes `maxBytes`;
 * `too-slow` when it has not arrived in time; `unreadable` when the stream fails.
 */
export function readBody(
  request: Request,
  maxBytes: number,
  timeoutMilliseconds: number = BODY_TIMEOUT_MILLISECONDS,
): Promise<Uint8Array<ArrayBuffer>> {
  return readBounded(request.body, {
    maxBytes,
    declaredLength: request.headers.get("Content-Length"),
    timeoutMilliseconds,
  });
}

/**
 * Lets go of a body that will not be read, without waiting: a cancelled stream that was cloned
 * settles only once every clone is cancelled, and a handler must not hang on that.
 */
export function discardBody(request: Request): void {
  request.body?.cancel().catch(() => {});
}

/** A request's media type, lower-cased, and its `charset` parameter if any (RFC 9110, 8.3). */
export interface MediaType {
  /** E.g. `application/json`; empty when the header is missing. */
  mediaType: string;
  /** E.g. `utf-8`, lower-cased and unquoted. */
  charset?: string;
}

/** Reads the `Content-Type` of a request. */
export function readMediaType(request: Request): MediaType {
  const [essence, ...parameters] = (request.headers.get("Content-Type") ?? "").split(";");
  const charset = parameters.map((parameter) => parameter.trim().toLowerCase())
    .find((parameter) => parameter.startsWith("charset="))?.slice(8).replace(/"/g, "");
  return { mediaType: essence.trim().toLowerCase(), ...(charset ? { charset } : {}) };
}

/** Whether a charset parameter allows UTF-8 (absent, `utf-8` or `utf8`). */
export function isUtf8(charset: string | undefined): boolean {
  return charset === undefined || charset === "utf-8" || charset === "utf8";
}

/** Why a JSON body was not usable, as a sentence for ErrorResponse `message`. */
export const JSON_BODY_PROBLEMS = {
  encoding: "The body is not valid UTF-8",
  syntax: "The body is not valid JSON",
  shape: "The JSON body is not an object",
} as const;

/**
 * Decodes UTF-8 bytes strictly and parses them as JSON, keeping only the named members of an
 * object.
 *
 * @param bytes The body.
 * @param names The members to keep; others are ignored.
 * @returns The named members present, or the problem: not UTF-8, not JSON, or not an object.
 */
export function parseJsonMembers(
  bytes: Uint8Array,
  names: readonly string[],
): { ok: true; members: Record<string, unknown> } | {
  ok: false;
  problem: keyof typeof JSON_BODY_PROBLEMS;
} {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, problem: "encoding" };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: "syntax" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, problem: "shape" };
  }
  const members: Record<string, unknown> = {};
  for (const name of names) {
    if (Object.hasOwn(value, name)) members[name] = (value as Record<string, unknown>)[name];
  }
  return { ok: true, members };
}
