/**
 * Reading request bodies within a size limit, without ever holding more than the limit in memory:
 * a declared `Content-Length` over the limit is refused before reading, and a body sent without
 * one (chunked) is counted as it streams and cancelled as soon as it passes the limit.
 *
 * @module
 */

/** Why a body could not be read. */
export type BodyProblem = "too-large" | "unreadable";

/** A body that could not be read within the limit. */
export class BodyError extends Error {
  /** `too-large`: over the limit; `unreadable`: the stream failed or was aborted. */
  readonly problem: BodyProblem;
  /** The limit in bytes. */
  readonly maxBytes: number;

  /**
   * @param problem What went wrong.
   * @param maxBytes The limit in bytes.
   */
  constructor(problem: BodyProblem, maxBytes: number) {
    super(problem === "too-large" ? `Body exceeds ${maxBytes} bytes` : "Body could not be read");
    this.name = "BodyError";
    this.problem = problem;
    this.maxBytes = maxBytes;
  }
}

/**
 * Reads a request body as bytes, refusing anything larger than `maxBytes`.
 *
 * @param request The request; its body is consumed (or cancelled when too large).
 * @param maxBytes The largest body accepted, in bytes.
 * @returns The body; empty when there is none.
 * @throws {BodyError} `too-large` when the declared or streamed size passes `maxBytes`;
 * `unreadable` when the stream fails.
 */
export async function readBody(
  request: Request,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = request.headers.get("Content-Length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => {});
    throw new BodyError("too-large", maxBytes);
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let result: ReadableStreamReadResult<Uint8Array>;
    try {
      result = await reader.read();
    } catch {
      throw new BodyError("unreadable", maxBytes);
    }
    if (result.done) break;
    size += result.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new BodyError("too-large", maxBytes);
    }
    chunks.push(result.value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
