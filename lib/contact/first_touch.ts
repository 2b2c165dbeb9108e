/**
 * First-touch campaign attribution without JavaScript (spec, ContactInquiry `gclid`: "persisted
 * from the first landing, not read only at submit time"): the campaign parameters of the first
 * page a visitor lands on are kept in a first-party cookie, and the contact form's hidden fields
 * are filled from it. The `cookie` package (CommonJS) loads with the first request that needs it,
 * not at start-up, which it would lengthen.
 *
 * @module
 */
import { loadOnce } from "../load_once.ts";
import { ATTRIBUTION_FIELDS, type AttributionField, CONTACT_FIELDS } from "../contract/contract.ts";

/** The cookie's name. */
export const FIRST_TOUCH_COOKIE = "first_touch";

/** How long the cookie is kept: 30 days, the usual attribution window of ad platforms. */
export const FIRST_TOUCH_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

/** Campaign parameters, each cut to its field's bound. */
export type Attribution = Partial<Record<AttributionField, string>>;

function pick(source: URLSearchParams): Attribution | undefined {
  const attribution: Attribution = {};
  let found = false;
  for (const name of ATTRIBUTION_FIELDS) {
    const value = source.get(name)?.trim();
    if (!value) continue;
    attribution[name] = [...value].slice(0, CONTACT_FIELDS[name].maxLength).join("");
    found = true;
  }
  return found ? attribution : undefined;
}

/**
 * The cookie's value is a query string (`utm_source=google&gclid=…`), already percent-encoded by
 * `URLSearchParams` and read back by it: the cookie library must neither encode nor decode it.
 */
function keepAsIs(value: string): string {
  return value;
}

/**
 * Reads campaign parameters from a request URL's query.
 *
 * @param href The request URL.
 * @returns The parameters found, or `undefined` when there are none.
 */
export function readQueryAttribution(href: string): Attribution | undefined {
  const query = href.indexOf("?");
  if (query < 0) return undefined;
  const end = href.indexOf("#", query);
  return pick(new URLSearchParams(href.slice(query + 1, end < 0 ? undefined : end)));
}

/** Reads and writes the first-touch cookie. */
export interface FirstTouch {
  /**
   * Reads the first-touch cookie.
   *
   * @param cookieHeader The request's `Cookie` value.
   * @returns The kept parameters, or `undefined` when there is no such cookie.
   */
  read(cookieHeader: string | null): Promise<Attribution | undefined>;
  /**
   * Builds the `Set-Cookie` value that keeps the first landing's parameters.
   *
   * @param attribution The parameters.
   * @param secure Whether the site is served over HTTPS (adds `Secure`).
   */
  buildCookie(attribution: Attribution, secure: boolean): Promise<string>;
}

/**
 * Creates the first-touch cookie's reader and writer, which load the `cookie` package with the
 * first request that has the cookie or sets it, once for their lifetime (a handler's).
 *
 * @returns The reader and writer.
 */
export function createFirstTouch(): FirstTouch {
  const loadCookie = loadOnce(() => import("cookie"));
  return {
    async read(cookieHeader) {
      // Most pages are asked for without the cookie: skip parsing then.
      if (!cookieHeader || !cookieHeader.includes(FIRST_TOUCH_COOKIE + "=")) return undefined;
      const { parse } = await loadCookie();
      const value = parse(cookieHeader, { decode: keepAsIs })[FIRST_TOUCH_COOKIE];
      return value === undefined ? undefined : pick(new URLSearchParams(value));
    },
    async buildCookie(attribution, secure) {
      const { serialize } = await loadCookie();
      const value = new URLSearchParams(attribution as Record<string, string>).toString();
      return serialize(FIRST_TOUCH_COOKIE, value, {
        encode: keepAsIs,
        path: "/",
        maxAge: FIRST_TOUCH_MAX_AGE_SECONDS,
        sameSite: "lax",
        httpOnly: true,
        secure,
      });
    },
  };
}
