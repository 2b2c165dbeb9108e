/**
 * The security fields of every response, set in one place by the pipeline so that no answer
 * lacks them: a Content-Security-Policy with `frame-ancestors 'none'` on every HTML answer that
 * does not bring its own (site pages, booking links, error pages alike),
 * `X-Content-Type-Options: nosniff` on every answer, and Strict-Transport-Security on every answer
 * when the public base URL is https.
 *
 * @module
 */

/**
 * What the site's HTML may load: its own stylesheet and script, nothing from elsewhere; no page
 * may be framed (clickjacking), forms post only to the site, and `<base>` cannot be injected.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/**
 * Strict-Transport-Security (RFC 6797) for a site served over https: one year, this host only
 * (subdomains and preload lists are the operator's decision, made at the proxy).
 */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000";

/** Applies the security fields to responses of one deployment. */
export interface SecurityHeaders {
  /** The fields every answer carries, as name–value pairs (for header records built whole). */
  fields: ReadonlyArray<readonly [string, string]>;
  /**
   * Adds what a response lacks: every field of `fields`, and the policy when it is HTML.
   * A response whose headers are immutable is copied.
   *
   * @param response A response from a route or the error stage.
   * @returns The same response, or its copy, with the fields.
   */
  apply(response: Response): Response;
}

/**
 * Creates the security fields of a deployment.
 *
 * @param baseUrl The public base URL: with https, every answer carries Strict-Transport-Security.
 * @returns The fields and the function that applies them.
 */
export function createSecurityHeaders(baseUrl: string): SecurityHeaders {
  const fields: Array<readonly [string, string]> = [["X-Content-Type-Options", "nosniff"]];
  if (baseUrl.startsWith("https:")) {
    fields.push(["Strict-Transport-Security", STRICT_TRANSPORT_SECURITY]);
  }
  function setMissing(headers: Headers): void {
    for (const [name, value] of fields) if (!headers.has(name)) headers.set(name, value);
    const type = headers.get("Content-Type");
    if (type?.startsWith("text/html") && !headers.has("Content-Security-Policy")) {
      headers.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    }
  }
  return {
    fields,
    apply(response) {
      try {
        setMissing(response.headers);
        return response;
      } catch {
        // Immutable headers (a fetched response passed on): answer with a copy.
        const copy = new Response(response.body, response);
        setMissing(copy.headers);
        return copy;
      }
    },
  };
}
