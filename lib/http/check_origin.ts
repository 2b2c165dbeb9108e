/**
 * The Origin rule of every POST: a browser names the page a request comes
 * from in `Origin` (RFC 6454 §7, Fetch), so a request whose `Origin` is present but is neither
 * one of the allowed origins nor the request's own origin (its scheme and `Host`: the site's own
 * page, however it was reached, a LAN address or a proxy without `STUDIO_BASE_URL`; also what a
 * browser's `Sec-Fetch-Site: same-origin` says) was sent by another site's page in its visitor's
 * browser (cross-site request forgery) and is refused with 403, as OWASP's "verify origin with
 * standard headers" and Fresh's `csrf` middleware do. Software that sends no `Origin` (curl,
 * agents, servers) is not a browser page and passes; its requests are counted like any other.
 *
 * @module
 */
import { ApiError } from "../contract/api_error.ts";

/**
 * The origin of a request's own URL (`Request.url` is serialised and normalised: the origin ends
 * at the first `/` after the authority, default ports left out as in `Origin`).
 */
function readOwnOrigin(url: string): string {
  const path = url.indexOf("/", url.indexOf("//") + 2);
  return path < 0 ? url : url.slice(0, path);
}

/**
 * Creates the check of a POST's `Origin`.
 *
 * @param allowedOrigins Serialised origins (`https://studio.example`, no path or trailing slash)
 * whose pages may post; by default the site's own (`HandlerOptions.allowedOrigins`).
 * @param baseUrl The site's public origin, named in the hint.
 * @returns A function that returns when the request may proceed, and otherwise throws `ApiError`
 * `validation-failed` with status 403, leaving the body to the answer (the error stage discards
 * it; a form's page reads it, to show the person what they typed).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createOriginCheck } from "./check_origin.ts";
 *
 * const checkOrigin = createOriginCheck(new Set(["https://studio.example"]), "https://studio.example");
 * checkOrigin(new Request("https://studio.example/api/v1/contact", { method: "POST" }));
 * // The page's own origin, reached at another address than the configured one.
 * checkOrigin(new Request("http://192.168.1.20:8000/api/v1/contact", {
 *   method: "POST",
 *   headers: { Origin: "http://192.168.1.20:8000" },
 * }));
 * assert.throws(() =>
 *   checkOrigin(new Request("https://studio.example/api/v1/contact", {
 *     method: "POST",
 *     headers: { Origin: "https://evil.example" },
 *   }))
 * );
 * ```
 */
export function createOriginCheck(
  allowedOrigins: ReadonlySet<string>,
  baseUrl: string,
): (request: Request) => void {
  return (request) => {
    const origin = request.headers.get("Origin");
    if (origin === null || allowedOrigins.has(origin)) return;
    if (origin === readOwnOrigin(request.url)) return;
    if (request.headers.get("Sec-Fetch-Site") === "same-origin") return;
    throw new ApiError("validation-failed", {
      status: 403,
      message: `Origin ${JSON.stringify(origin.slice(0, 200))} is not allowed to post here`,
      hint: `Send it from the studio's site (${baseUrl}/), or from software that sends no Origin`,
    });
  };
}
