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
  init: { status?: number; headers?: Record<string, string>; contentType?: string } = {},
): Response {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const response = init.status ? new Response(text, { status: init.status }) : new Response(text);
  // Setting headers one by one is cheaper in Deno than a `headers` record in the init (each
  // record goes through WebIDL conversion), and this runs on every API response.
  const headers = response.headers;
  headers.set("Content-Type", init.contentType ?? JSON_TYPE);
  if (init.headers) {
    for (const name in init.headers) headers.set(name, init.headers[name]);
  }
  return response;
}
