/**
 * CORS for the public reads (Fetch standard, "CORS protocol"): the read operations and
 * the public documents answer every origin with `Access-Control-Allow-Origin: *` and expose the
 * fields a client needs (rate limits, version, validators); a preflight for them is answered 204
 * and counted against no quota. Nothing is credentialed, so `*` is exact. POST operations are not
 * granted: browsers call them from the site's own pages (the Origin rule), servers and agents
 * without CORS.
 *
 * @module
 */

/** The response fields a page on another origin may read besides the CORS-safelisted ones. */
export const EXPOSED_HEADERS: readonly string[] = [
  "API-Version",
  "Deprecation",
  "ETag",
  "Link",
  "RateLimit",
  "RateLimit-Limit",
  "RateLimit-Policy",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "Retry-After",
  "Sunset",
];

/** The fields of every answer of a public read. */
export const CORS_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": EXPOSED_HEADERS.join(", "),
});

/** How long a browser may keep a preflight's answer, in seconds (a day). */
export const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

/**
 * Whether a request is a CORS preflight for a read: `OPTIONS` with
 * `Access-Control-Request-Method: GET` or `HEAD`.
 */
export function isReadPreflight(request: Request): boolean {
  if (request.method !== "OPTIONS") return false;
  const method = request.headers.get("Access-Control-Request-Method")?.trim().toUpperCase();
  return method === "GET" || method === "HEAD";
}

/**
 * Answers a preflight for a public read: 204, the methods GET and HEAD, the request headers the
 * page asked for (none is credentialed), for a day.
 *
 * @param request The preflight (see {@linkcode isReadPreflight}).
 * @returns The 204 answer.
 */
export function answerPreflight(request: Request): Response {
  const headers: Record<string, string> = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, HEAD",
    "Access-Control-Max-Age": String(PREFLIGHT_MAX_AGE_SECONDS),
  };
  const requested = request.headers.get("Access-Control-Request-Headers");
  // A field-name list (RFC 9110 tokens): anything else is not echoed.
  if (
    requested && requested.length <= 1000 &&
    /^[\w!#$%&'*+.^`|~-]+(?:\s*,\s*[\w!#$%&'*+.^`|~-]+)*$/.test(requested.trim())
  ) {
    headers["Access-Control-Allow-Headers"] = requested.trim();
  }
  return new Response(null, { status: 204, headers });
}
