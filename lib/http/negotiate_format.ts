/**
 * Content negotiation of the site's pages (spec, "The site also serves content for software
 * without JavaScript"): HTML by default, Markdown when the request's `Accept` prefers it, under
 * the q-value rules of RFC 9110, section 12.5.1. `negotiator` (a CommonJS package, which on Deno
 * starts the Node compatibility layer) decides; the `Accept` values of browsers and most clients,
 * which name neither Markdown nor plain text and can only mean HTML, are answered without it, so a
 * cold start's first page does not wait for it.
 *
 * @module
 */
import { loadOnce } from "../load_once.ts";

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
 * Whether an `Accept` value can only mean HTML among the offered types: it names neither Markdown
 * nor plain text, and either has no wildcard (so only `text/html` can match) or names `text/html`
 * at full weight (which a wildcard's match of another type cannot beat: an exact match is more
 * specific, RFC 9110, section 12.5.1).
 */
function meansHtml(accept: string): boolean {
  const value = accept.toLowerCase();
  if (value.includes("markdown") || value.includes("plain")) return false;
  if (!value.includes("*")) return true;
  return /(?:^|,)\s*text\/html\s*(?:,|$)/.test(value);
}

/**
 * Chooses the representation of a page for an `Accept` header, with a `negotiator` of its own
 * (see {@linkcode createFormatNegotiator} for one that a handler keeps).
 *
 * @param accept The request's `Accept` value, or `null` when it has none.
 * @returns `"markdown"` when `text/markdown` has the highest preference, `"text"` when
 * `text/plain` has, else `"html"` (also when none is acceptable: a page is better than a 406 for
 * people and crawlers alike).
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
export function negotiateFormat(accept: string | null): Promise<ContentFormat> {
  return createFormatNegotiator()(accept);
}

/**
 * Creates a {@linkcode negotiateFormat} that remembers its answers to the last few hundred
 * distinct `Accept` values (browsers and agents send a handful), for one handler's lifetime.
 *
 * @returns The remembering negotiator.
 */
export function createFormatNegotiator(): (accept: string | null) => Promise<ContentFormat> {
  const remembered = new Map<string, ContentFormat>();
  const loadNegotiator = loadOnce(async () => (await import("negotiator")).default);
  const negotiate = async (accept: string): Promise<ContentFormat> => {
    const Negotiator = await loadNegotiator();
    const chosen = new Negotiator({ headers: { accept } }).mediaType(OFFERED);
    return chosen?.startsWith("text/markdown")
      ? "markdown"
      : chosen === "text/plain"
      ? "text"
      : "html";
  };
  return async (accept) => {
    if (!accept || meansHtml(accept)) return "html";
    let format = remembered.get(accept);
    if (format) return format;
    format = await negotiate(accept);
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(accept, format);
    return format;
  };
}
