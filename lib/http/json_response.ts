/**
 * JSON responses, and the answers of API operations that become them.
 *
 * @module
 */

/** The media type of the API's JSON bodies (RFC 8259 defines no charset parameter). */
export const JSON_TYPE = "application/json";

/**
 * What an API operation answers: a JSON body with its status and its own headers. The
 * pipeline's last stage builds the `Response` from it in one construction, together with the
 * headers every `/api/` response carries (`API-Version`, the rate-limit fields, links): a
 * `Response` built whole from a header record is the cheapest kind in Deno, and one whose
 * headers are changed afterwards loses that.
 */
export interface JsonAnswer {
  /** A JSON-serialisable value, or an already serialised JSON text. */
  body: unknown;
  /** The status. @default {200} */
  status?: number;
  /** The operation's own headers (name → value), e.g. `Cache-Control`. */
  headers?: Record<string, string>;
}

/**
 * Builds a JSON response in one construction.
 *
 * @param body A JSON-serialisable value, or an already serialised JSON text.
 * @param init Status (default 200), headers (name → value), and the media type (default
 * `application/json`).
 * @returns The response, with `Content-Type` set.
 */
export function jsonResponse(
  body: unknown,
  init: { status?: number; headers?: Record<string, string>; contentType?: string } = {},
): Response {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const headers: Record<string, string> = { "Content-Type": init.contentType ?? JSON_TYPE };
  if (init.headers) {
    for (const name in init.headers) headers[name] = init.headers[name];
  }
  return new Response(text, { status: init.status ?? 200, headers });
}
