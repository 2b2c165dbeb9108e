/**
 * Reading request bodies (and any other byte stream, such as a fetched calendar feed) within a
 * size limit, without ever holding more than the limit in memory: a declared `Content-Length`
 * over the limit is refused before reading, and a body sent without one (chunked) is counted as it
 * streams and cancelled as soon as it passes the limit.
 *
 * @module
 */
import { isTracingOn, withSpan } from "../telemetry/telemetry.ts";

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
  const { maxBytes, timeoutMilliseconds, signal } = options;
  const reader = openBounded(stream, options);
  if (!reader) return new Uint8Array(0);
  const read: StoppableRead = { reader };
  const timer = timeoutMilliseconds === undefined
    ? undefined
    : setTimeout(() => stopRead(read, "too-slow"), timeoutMilliseconds);
  const onAbort = () => stopRead(read, "aborted");
  signal?.addEventListener("abort", onAbort);
  try {
    return await readAll(reader, read, maxBytes);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/** A read in progress, and why it was stopped from outside, if it was. */
interface StoppableRead {
  /** The stream's reader; none for a body the platform reads whole (see `readWhole`). */
  reader?: ReadableStreamDefaultReader<Uint8Array>;
  /** Gives up a whole read: set by `readWhole`. */
  onStop?: () => void;
  stopped?: "too-slow" | "aborted";
}

/**
 * Stops a read from outside: the reader's pending read ends, and `readAll` throws why; or a whole
 * read is given up, and `readWhole` throws why.
 */
function stopRead(read: StoppableRead, problem: "too-slow" | "aborted"): void {
  read.stopped ??= problem;
  read.reader?.cancel().catch(() => {});
  read.onStop?.();
}

/** A declared length as a number of bytes; `undefined` when absent or not a whole number. */
function toDeclaredBytes(declaredLength: string | null | undefined): number | undefined {
  const declared = declaredLength?.trim();
  return declared && /^\d+$/.test(declared) ? Number(declared) : undefined;
}

/**
 * Reads a request's body whole as the platform reads it (`arrayBuffer()`), for a body whose
 * declared length is within the limit: the platform then holds no more than that (it frames the
 * body by its length), and one read of the platform's costs a busy endpoint far less than reading
 * the body's stream chunk by chunk. A read stopped from outside is given up at once; the
 * platform's read ends with the body or its connection, and nothing waits for it.
 *
 * @throws {BodyError} The problem the read was stopped for, `too-large` (a body longer than the
 * limit after all), or `unreadable`.
 */
async function readWhole(
  request: Request,
  read: StoppableRead,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const stopped = new Promise<never>((_, reject) => {
    read.onStop = () => reject(new BodyError(read.stopped ?? "aborted", maxBytes));
  });
  let buffer: ArrayBuffer;
  try {
    buffer = await Promise.race([request.arrayBuffer(), stopped]);
  } catch (error) {
    if (error instanceof BodyError) throw error;
    throw new BodyError(read.stopped ?? "unreadable", maxBytes, { cause: error });
  }
  if (buffer.byteLength > maxBytes) throw new BodyError("too-large", maxBytes);
  return new Uint8Array(buffer);
}

/**
 * The checks before a read: a declared length over the limit, or a signal already aborted,
 * refuse the stream (cancelled); otherwise its reader, or `undefined` when there is no stream.
 *
 * @throws {BodyError} `too-large` or `aborted`.
 */
function openBounded(
  stream: ReadableStream<Uint8Array> | null,
  options: BoundedReadOptions,
): ReadableStreamDefaultReader<Uint8Array> | undefined {
  const { maxBytes, declaredLength, signal } = options;
  const declared = toDeclaredBytes(declaredLength);
  if (declared !== undefined && declared > maxBytes) {
    // Not awaited: the cancel of a cloned body settles only once every clone is cancelled.
    stream?.cancel().catch(() => {});
    throw new BodyError("too-large", maxBytes);
  }
  if (!stream) return undefined;
  if (signal?.aborted) {
    stream.cancel().catch(() => {});
    throw new BodyError("aborted", maxBytes);
  }
  return stream.getReader();
}

/**
 * Reads a stream to its end within `maxBytes`.
 *
 * @throws {BodyError} `too-large`, the problem the read was stopped for, or `unreadable`.
 */
async function readAll(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  read: StoppableRead,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let result: ReadableStreamReadResult<Uint8Array>;
    try {
      result = await reader.read();
    } catch (error) {
      throw new BodyError(read.stopped ?? "unreadable", maxBytes, { cause: error });
    }
    if (read.stopped) throw new BodyError(read.stopped, maxBytes);
    if (result.done) break;
    size += result.value.byteLength;
    if (size > maxBytes) {
      // Not awaited, as above.
      reader.cancel().catch(() => {});
      throw new BodyError("too-large", maxBytes);
    }
    chunks.push(result.value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Options of {@linkcode createBodyReader}. */
export interface BodyReaderOptions {
  /** The longest each body may take to arrive, in milliseconds. */
  timeoutMilliseconds: number;
  /** Stops every read in progress, and refuses every later one, once aborted. */
  signal?: AbortSignal;
  /**
   * How often the reads in progress are checked against their time, in milliseconds: a body is
   * given up between its time and its time plus this. @default {250}
   */
  checkMilliseconds?: number;
}

/**
 * Reads one stream, or one request's body, as {@linkcode readBounded} does, with the time and
 * signal of its reader. A request's body whose `Content-Length` is within `maxBytes` (and that has
 * no `Transfer-Encoding`) is read whole by the platform (`arrayBuffer()`), which costs a busy
 * endpoint far less than reading its stream chunk by chunk; any other is read as a stream.
 * `declaredLength` defaults to a request's `Content-Length`.
 */
export type BodyReader = (
  source: ReadableStream<Uint8Array> | Request | null,
  options: { maxBytes: number; declaredLength?: string | null },
) => Promise<Uint8Array<ArrayBuffer>>;

/**
 * Creates a reader of many streams and request bodies whose reads share one timer and one abort
 * listener (as Node's HTTP server checks its connections' timeouts on one interval): a timer and a
 * listener set up and taken down for each read cost a busy endpoint more than reading a small body.
 * The timer runs only while reads are in progress (and until its next tick after the last).
 *
 * @example Reading bodies within a time
 * ```ts
 * import assert from "node:assert/strict";
 * import { BodyError, createBodyReader } from "./read_body.ts";
 *
 * const read = createBodyReader({ timeoutMilliseconds: 100, checkMilliseconds: 20 });
 * const bytes = await read(new Blob(["hello"]).stream(), { maxBytes: 5 });
 * assert.equal(new TextDecoder().decode(bytes), "hello");
 * await assert.rejects(
 *   read(new ReadableStream({ start() {} }), { maxBytes: 5 }),
 *   (error) => error instanceof BodyError && error.problem === "too-slow",
 * );
 * ```
 *
 * @param options The time each read has, the signal that stops them all, the check interval.
 * @returns The reader; it throws as {@linkcode readBounded} does.
 */
export function createBodyReader(options: BodyReaderOptions): BodyReader {
  const { timeoutMilliseconds, signal, checkMilliseconds = 250 } = options;
  const inProgress = new Map<StoppableRead, number>();
  let timer: ReturnType<typeof setInterval> | undefined;
  // The interval stops at its first tick with no read in progress (not as soon as the last read
  // ends: a busy endpoint would start and stop it with almost every request).
  const check = () => {
    if (inProgress.size === 0) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    const now = Date.now();
    for (const [read, deadline] of inProgress) if (now >= deadline) stopRead(read, "too-slow");
  };
  signal?.addEventListener("abort", () => {
    for (const read of inProgress.keys()) stopRead(read, "aborted");
  }, { once: true });
  /** Runs a read under the shared time and signal. */
  async function watch(
    read: StoppableRead,
    reading: () => Promise<Uint8Array<ArrayBuffer>>,
  ): Promise<Uint8Array<ArrayBuffer>> {
    inProgress.set(read, Date.now() + timeoutMilliseconds);
    timer ??= setInterval(check, checkMilliseconds);
    try {
      return await reading();
    } finally {
      inProgress.delete(read);
    }
  }

  /** Reads a stream under the shared time and signal, as `readBounded` reads it. */
  async function readStream(
    stream: ReadableStream<Uint8Array> | null,
    options: { maxBytes: number; declaredLength?: string | null },
  ): Promise<Uint8Array<ArrayBuffer>> {
    const reader = openBounded(stream, { ...options, signal });
    if (!reader) return new Uint8Array(0);
    const read: StoppableRead = { reader };
    return await watch(read, () => readAll(reader, read, options.maxBytes));
  }

  async function readSource(
    source: ReadableStream<Uint8Array> | Request | null,
    { maxBytes, declaredLength }: { maxBytes: number; declaredLength?: string | null },
  ): Promise<Uint8Array<ArrayBuffer>> {
    if (!(source instanceof Request)) return await readStream(source, { maxBytes, declaredLength });
    const declared = declaredLength ?? source.headers.get("Content-Length");
    // A body framed by its length alone (no Transfer-Encoding beside it) is read whole: neither
    // the stream nor its reader is made, which costs more than the whole read.
    if (
      !signal?.aborted && (toDeclaredBytes(declared) ?? Infinity) <= maxBytes &&
      !source.headers.has("Transfer-Encoding")
    ) {
      const read: StoppableRead = {};
      return await watch(read, () => readWhole(source, read, maxBytes));
    }
    return await readStream(source.body, { maxBytes, declaredLength: declared });
  }

  // With a tracer provider (checked once, here), each read has a span of its own.
  if (!isTracingOn()) return readSource;
  return (source, options) => traceBodyRead(() => readSource(source, options));
}

/**
 * Runs a body's read in a span `read body`, with the body's size once read
 * (`http.request.body.size`, bytes): a slow sender's body is where a request's time goes.
 */
function traceBodyRead(
  read: () => Promise<Uint8Array<ArrayBuffer>>,
): Promise<Uint8Array<ArrayBuffer>> {
  return withSpan("read body", {}, async (span) => {
    const bytes = await read();
    span?.setAttribute("http.request.body.size", bytes.byteLength);
    return bytes;
  });
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
  const read = () =>
    readBounded(request.body, {
      maxBytes,
      declaredLength: request.headers.get("Content-Length"),
      timeoutMilliseconds,
    });
  return isTracingOn() ? traceBodyRead(read) : read();
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
