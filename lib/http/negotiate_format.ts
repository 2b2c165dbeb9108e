/**
 * Content negotiation of the site's pages (spec, "The site also serves content for software
 * without JavaScript"): HTML by default, Markdown when the request's `Accept` prefers it, under
 * the q-value rules of RFC 9110, section 12.5.1 (npm `negotiator`, a CommonJS package loaded by the
 * first page request rather than at start-up, which a cold start that answers the API never pays).
 *
 * @module
 */
import { loadOnce } from "../load_once.ts";

/** `negotiator`, loaded once by the first negotiation (pages' formats, compressed codings). */
export const loadNegotiator = loadOnce(async () => (await import("negotiator")).default);

/**
 * The representations of every page: HTML, or its Markdown, sent as `text/markdown` or, to a
 * client that asks for `text/plain`, as plain text (the same bytes).
 */
export type ContentFormat = "html" | "markdown" | "text";

/**
 * The media types offered, in order of the server's preference: a tie (`*\/*`, `text/*`, or equal
 * q-values) goes to HTML. `text/markdown;charset=utf-8` is listed so that an `Accept` naming the
 * charset parameter still matches.
 */
const OFFERED = ["text/html", "text/markdown", "text/markdown;charset=utf-8", "text/plain"];

/** Most distinct `Accept` values remembered; a flood of odd values only clears the memory. */
const MAX_REMEMBERED = 256;

/**
 * Chooses the representation of a page for an `Accept` header.
 *
 * @param accept The request's `Accept` value, or `null` when it has none.
 * @returns `"markdown"` when `text/markdown` has the highest preference, else `"html"` (also when
 * neither is acceptable: a page is better than a 406 for people and crawlers alike).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { negotiateFormat } from "./negotiate_format.ts";
 *
 * assert.equal(await negotiateFormat("text/markdown;q=0.1, text/html"), "html");
 * assert.equal(await negotiateFormat("text/markdown, *\/*;q=0.8"), "markdown");
 * ```
 */
export async function negotiateFormat(accept: string | null): Promise<ContentFormat> {
  if (!accept) return "html";
  const Negotiator = await loadNegotiator();
  const chosen = new Negotiator({ headers: { accept } }).mediaType(OFFERED);
  return chosen?.startsWith("text/markdown")
    ? "markdown"
    : chosen === "text/plain"
    ? "text"
    : "html";
}

/**
 * Creates a {@linkcode negotiateFormat} that remembers its answers to the last few hundred
 * distinct `Accept` values (browsers and agents send a handful), for one handler's lifetime.
 *
 * @returns The remembering negotiator.
 */
export function createFormatNegotiator(): (accept: string | null) => Promise<ContentFormat> {
  const remembered = new Map<string, ContentFormat>();
  return async (accept) => {
    if (!accept) return "html";
    let format = remembered.get(accept);
    if (format) return format;
    format = await negotiateFormat(accept);
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(accept, format);
    return format;
  };
}
