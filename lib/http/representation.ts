/**
 * Prepared responses of the site: a representation's bytes, entity tag and headers, computed
 * once, and the one function that answers with it, `If-None-Match` included (RFC 9110,
 * sections 13.1.2 and 15.4.5).
 *
 * @module
 */
import { buildEtag, matchesEtag } from "./etag.ts";

/** A header name and value. */
export type HeaderPair = readonly [string, string];

/** A prepared representation: its bytes, entity tag and the headers of a 200 answer. */
export interface Representation {
  /** The body, UTF-8. */
  readonly body: Uint8Array<ArrayBuffer>;
  /** The strong entity tag of the body. */
  readonly etag: string;
  /** Every header of the answer, `ETag` included. */
  readonly headers: readonly HeaderPair[];
  /** The headers a 304 answer repeats: `ETag`, `Vary`, `Cache-Control`, `Content-Language`. */
  readonly notModifiedHeaders: readonly HeaderPair[];
}

const encoder = new TextEncoder();

/** The headers a 304 answer carries (RFC 9110, section 15.4.5), lower case. */
const NOT_MODIFIED_HEADERS: ReadonlySet<string> = new Set([
  "etag",
  "vary",
  "cache-control",
  "content-language",
]);

/**
 * How long a cache may keep a discovery document (the OpenAPI document, the catalogs, the
 * server card): an hour, revalidated with its ETag afterwards.
 */
export const DISCOVERY_CACHE = "public, max-age=3600";

/**
 * Prepares a representation.
 *
 * @param text The body.
 * @param headers The answer's headers, without `ETag` (added here).
 * @returns The representation.
 */
export function toRepresentation(text: string, headers: readonly HeaderPair[]): Representation {
  const body = encoder.encode(text);
  const etag = buildEtag(body);
  const all: HeaderPair[] = [...headers, ["ETag", etag]];
  return {
    body,
    etag,
    headers: all,
    notModifiedHeaders: all.filter(([name]) => NOT_MODIFIED_HEADERS.has(name.toLowerCase())),
  };
}

/** Options of {@linkcode respond}. */
export interface RespondOptions {
  /** The status. @default {200} */
  status?: number;
  /** Headers set after the representation's, replacing any of the same name. */
  headers?: readonly HeaderPair[];
}

/**
 * Answers with a representation: 304 without a body when the request's `If-None-Match` matches
 * the entity tag of a 200 answer, else the representation itself.
 *
 * @param request The request.
 * @param representation The prepared representation.
 * @param options Status and extra headers.
 */
export function respond(
  request: Request,
  representation: Representation,
  options: RespondOptions = {},
): Response {
  const status = options.status ?? 200;
  const condition = status === 200 ? request.headers.get("If-None-Match") : null;
  const notModified = condition !== null && matchesEtag(condition, representation.etag);
  const response = notModified
    ? new Response(null, { status: 304 })
    : status === 200
    ? new Response(representation.body)
    : new Response(representation.body, { status });
  // One set per header is cheaper in Deno than a headers record in the init (see jsonResponse).
  const headers = response.headers;
  const list = notModified ? representation.notModifiedHeaders : representation.headers;
  for (const [name, value] of list) headers.set(name, value);
  if (options.headers) {
    for (const [name, value] of options.headers) headers.set(name, value);
  }
  return response;
}
