/**
 * JSON responses of the API.
 *
 * @module
 */

/** The media type of the API's JSON bodies (RFC 8259 defines no charset parameter). */
export const JSON_TYPE = "application/json";

/**
 * Builds a JSON response.
 *
 * @param body A JSON-serialisable value, or an already serialised JSON text.
 * @param init Status (default 200) and headers.
 * @returns The response, with `Content-Type: application/json`.
 */
export function jsonResponse(
  body: unknown,
  init: { status?: number; headers?: HeadersInit; contentType?: string } = {},
): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", init.contentType ?? JSON_TYPE);
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return new Response(text, { status: init.status ?? 200, headers });
}
