/**
 * Reading a form's body so that what a person typed can be shown again whatever went wrong: the
 * body is read up to a limit (a larger one is cut there, not refused unread) and parsed leniently,
 * so a body too large, too slow, cut short or not valid UTF-8 still gives back every field that
 * arrived, the last one as far as it arrived. What is read this way is only ever shown to the
 * person again, escaped; what is stored or sent on goes through the strict readers.
 *
 * @module
 */
import { BODY_TIMEOUT_MILLISECONDS, discardBody, readMediaType } from "./read_body.ts";

/** How much of a body arrived: all of it, or only a prefix and why. */
export type BodyOutcome = "complete" | "too-large" | "too-slow" | "unreadable";

/** The bytes of a body read up to a limit. */
export interface BodyPrefix {
  /** The bytes that arrived, at most the limit. */
  bytes: Uint8Array<ArrayBuffer>;
  /**
   * `complete`: the whole body, within the limit; `too-large`: it went on past the limit (the
   * rest was not read); `too-slow`: it had not ended in time; `unreadable`: the stream failed.
   */
  outcome: BodyOutcome;
}

/** Joins chunks into one array of `size` bytes. */
function concat(chunks: readonly Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk.subarray(0, size - offset), offset);
    offset += Math.min(chunk.byteLength, size - offset);
  }
  return bytes;
}

/**
 * Reads a request's body up to `maxBytes`, keeping what arrived when it is larger, slower or
 * broken: unlike `readBody`, a declared `Content-Length` over the limit does not stop the read
 * (the first `maxBytes` are read, then the rest is cancelled).
 *
 * @example A body over the limit is cut there
 * ```ts
 * import assert from "node:assert/strict";
 * import { readBodyPrefix } from "./read_form_values.ts";
 *
 * const request = new Request("http://localhost/", { method: "POST", body: "a=1&b=22" });
 * const { bytes, outcome } = await readBodyPrefix(request, { maxBytes: 5 });
 * assert.equal(new TextDecoder().decode(bytes), "a=1&b");
 * assert.equal(outcome, "too-large");
 * ```
 *
 * @param request The request; its body is consumed, or cancelled past the limit.
 * @param options `maxBytes`, the largest body read whole; `timeoutMilliseconds`, the longest it
 * may take (@default {@linkcode BODY_TIMEOUT_MILLISECONDS}).
 * @returns The bytes that arrived and whether they are the whole body. Never throws.
 */
export async function readBodyPrefix(
  request: Request,
  options: { maxBytes: number; timeoutMilliseconds?: number },
): Promise<BodyPrefix> {
  const { maxBytes, timeoutMilliseconds = BODY_TIMEOUT_MILLISECONDS } = options;
  if (request.bodyUsed) return { bytes: new Uint8Array(0), outcome: "unreadable" };
  if (!request.body) return { bytes: new Uint8Array(0), outcome: "complete" };
  const reader = request.body.getReader();
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    reader.cancel().catch(() => {});
  }, timeoutMilliseconds);
  const chunks: Uint8Array[] = [];
  let size = 0;
  let outcome: BodyOutcome = "complete";
  try {
    for (;;) {
      const result = await reader.read();
      if (late) {
        outcome = "too-slow";
        break;
      }
      if (result.done) break;
      chunks.push(result.value);
      size += result.value.byteLength;
      if (size > maxBytes) {
        outcome = "too-large";
        // Not awaited: the cancel of a cloned body settles only once every clone is cancelled.
        reader.cancel().catch(() => {});
        break;
      }
    }
  } catch {
    outcome = late ? "too-slow" : "unreadable";
  } finally {
    clearTimeout(timer);
  }
  return { bytes: concat(chunks, Math.min(size, maxBytes)), outcome };
}

/** A form's fields as they arrived, for showing them again. */
export interface FormValues {
  /** The fields in the order sent; a field cut off at the end keeps what arrived of it. */
  fields: URLSearchParams;
  /** Whether the whole body was read and parsed as sent. */
  complete: boolean;
}

/** The longest tail of `text` that begins `delimiter` (a delimiter cut in two by the limit). */
function trimPartialDelimiter(text: string, delimiter: string): string {
  for (let length = Math.min(delimiter.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(delimiter.slice(0, length))) return text.slice(0, -length);
  }
  return text;
}

/**
 * Reads the text fields of a `multipart/form-data` body (RFC 7578) that may be cut short: each
 * part's `name` and content, the last part as far as it arrived; file parts are left out.
 */
function parseMultipartLeniently(text: string, boundary: string, cut: boolean): URLSearchParams {
  const fields = new URLSearchParams();
  const delimiter = `\r\n--${boundary}`;
  // The first delimiter may open the body without the CRLF that precedes the others.
  const sections = ("\r\n" + (cut ? trimPartialDelimiter(text, delimiter) : text))
    .split(delimiter).slice(1);
  for (const section of sections) {
    if (section.startsWith("--")) break;
    const body = section.replace(/^[ \t]*\r\n/, "");
    const headerEnd = body.indexOf("\r\n\r\n");
    if (headerEnd < 0) continue;
    const disposition = /^content-disposition:[ \t]*form-data\b(.*)$/im.exec(
      body.slice(0, headerEnd),
    )?.[1] ?? "";
    const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined || /;\s*filename\*?=/i.test(disposition)) continue;
    // The last part of a cut body is not followed by a delimiter: its content is what arrived.
    fields.append(name.replace(/%22/g, '"'), body.slice(headerEnd + 4));
  }
  return fields;
}

/**
 * Parses a form body's bytes leniently for showing them again: `application/x-www-form-urlencoded`
 * and `multipart/form-data`, bad UTF-8 as U+FFFD, a cut body up to where it was cut.
 *
 * @example A body cut in its last field keeps what arrived of it
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFormValues } from "./read_form_values.ts";
 *
 * const bytes = new TextEncoder().encode("name=Ana&topic=A%20new%20si");
 * const { fields, complete } = parseFormValues(bytes, {
 *   contentType: "application/x-www-form-urlencoded",
 *   outcome: "too-large",
 * });
 * assert.equal(fields.get("name"), "Ana");
 * assert.equal(fields.get("topic"), "A new si");
 * assert.equal(complete, false);
 * ```
 *
 * @param bytes The body, or the part of it that arrived.
 * @param options The request's `Content-Type`, and how much of the body arrived.
 * @returns The fields found (none for another media type); never throws.
 */
export function parseFormValues(
  bytes: Uint8Array,
  options: { contentType: string; outcome: BodyOutcome },
): FormValues {
  const { contentType, outcome } = options;
  const cut = outcome !== "complete";
  const mediaType = contentType.split(";")[0].trim().toLowerCase();
  let text = new TextDecoder().decode(bytes);
  // A character cut in two by the limit decodes as U+FFFD at the very end.
  if (cut) text = text.replace(/\uFFFD$/, "");
  if (mediaType === "application/x-www-form-urlencoded") {
    // An escape cut in two by the limit would read as its literal characters.
    return {
      fields: new URLSearchParams(cut ? text.replace(/%[0-9a-fA-F]?$/, "") : text),
      complete: !cut,
    };
  }
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (mediaType === "multipart/form-data" && boundary) {
    const fields = parseMultipartLeniently(text, boundary[1] ?? boundary[2], cut);
    return { fields, complete: !cut && [...fields.keys()].length > 0 };
  }
  return { fields: new URLSearchParams(), complete: false };
}

/**
 * Reads what a person typed into a form from a request whose body has not been read yet (a post
 * refused before its handler, by its Origin or a quota): the body up to `maxBytes`, parsed
 * leniently ({@linkcode readBodyPrefix}, {@linkcode parseFormValues}).
 *
 * @param request The request; its body is consumed, or cancelled when it is not a form.
 * @param maxBytes The largest body read; past it, the fields that arrived before are kept.
 * @returns The fields found, none when the body is not a form or was already read.
 */
export async function readFormValues(request: Request, maxBytes: number): Promise<FormValues> {
  const { mediaType } = readMediaType(request);
  if (mediaType !== "application/x-www-form-urlencoded" && mediaType !== "multipart/form-data") {
    discardBody(request);
    return { fields: new URLSearchParams(), complete: false };
  }
  const { bytes, outcome } = await readBodyPrefix(request, { maxBytes });
  return parseFormValues(bytes, {
    contentType: request.headers.get("Content-Type") ?? "",
    outcome,
  });
}
