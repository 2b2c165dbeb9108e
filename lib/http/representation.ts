/**
 * Prepared responses of the site: a representation's bytes, entity tag and headers, computed
 * once, and the one function that answers with it, `If-None-Match` included (RFC 9110,
 * sections 13.1.2 and 15.4.5). A text representation of 1 KiB or more is also served compressed
 * when the request's `Accept-Encoding` allows it (RFC 9110, section 12.5.3): Brotli (RFC 7932,
 * `node:zlib`, which Deno, Node and Bun all provide) where the client takes it, else gzip (the
 * same module); each compressed once, on the first such request, and kept, with an entity
 * tag of its own and `Vary: Accept-Encoding` on all. Negotiation is `negotiator`'s, Brotli first
 * on a tie. Both libraries load with the first request that may be compressed, not at start-up
 * (`node:zlib` starts Deno's Node compatibility layer, `negotiator` is CommonJS: both would
 * lengthen every cold start).
 *
 * @module
 */
import { buildEtag, matchesEtag } from "./etag.ts";
import { loadOnce } from "../load_once.ts";

/** A header name and value. */
export type HeaderPair = readonly [string, string];

/** A prepared representation: its bytes, entity tag and the headers of a 200 answer. */
export interface Representation {
  /** The body: UTF-8 text, or the bytes of a binary file. */
  readonly body: Uint8Array<ArrayBuffer>;
  /** The strong entity tag of the body. */
  readonly etag: string;
  /** Every header of the answer, `ETag` included. */
  readonly headers: readonly HeaderPair[];
  /** The headers a 304 answer repeats: `ETag`, `Vary`, `Cache-Control`, `Content-Language`. */
  readonly notModifiedHeaders: readonly HeaderPair[];
  /** The gzipped variant, made on first use; absent when the body is not worth compressing. */
  readonly gzip?: () => Promise<Representation>;
  /** The Brotli variant, made on first use; absent when the body is not worth compressing. */
  readonly brotli?: () => Promise<Representation>;
}

/** The smallest body worth compressing, in bytes. */
export const MIN_COMPRESSED_BYTES = 1024;

/** Media types whose bodies compress: text, JSON, XML, JavaScript, SVG, the manifest. */
const COMPRESSIBLE_TYPE =
  /^(?:text\/|application\/(?:[\w.-]+\+)?(?:json|xml|javascript)\b|application\/manifest\+json|image\/svg\+xml)/;

const encoder = new TextEncoder();

/** The headers a 304 answer carries (RFC 9110, section 15.4.5), lower case. */
const NOT_MODIFIED_HEADERS: ReadonlySet<string> = new Set([
  "etag",
  "vary",
  "cache-control",
  "content-language",
]);

function toNotModified(headers: readonly HeaderPair[]): HeaderPair[] {
  return headers.filter(([name]) => NOT_MODIFIED_HEADERS.has(name.toLowerCase()));
}

/**
 * How long a cache may keep a discovery document (the OpenAPI document, the catalogs, the
 * server card): an hour, revalidated with its ETag afterwards.
 */
export const DISCOVERY_CACHE = "public, max-age=3600";

/**
 * Prepares a representation.
 *
 * @param content The body: text (encoded as UTF-8) or bytes.
 * @param headers The answer's headers, without `ETag` (added here).
 * @param etag The body's strong entity tag, quoted, when it is known already; else it is
 * computed from the bytes.
 * @returns The representation.
 */
export function toRepresentation(
  content: string | Uint8Array<ArrayBuffer>,
  headers: readonly HeaderPair[],
  etag?: string,
): Representation {
  const body = typeof content === "string" ? encoder.encode(content) : content;
  etag ??= buildEtag(body);
  const type = headers.find(([name]) => name.toLowerCase() === "content-type")?.[1] ?? "";
  if (body.length < MIN_COMPRESSED_BYTES || !COMPRESSIBLE_TYPE.test(type)) {
    const all: HeaderPair[] = [...headers, ["ETag", etag]];
    return { body, etag, headers: all, notModifiedHeaders: toNotModified(all) };
  }
  const vary = headers.find(([name]) => name.toLowerCase() === "vary")?.[1];
  const shared: HeaderPair[] = [
    ...headers.filter(([name]) => name.toLowerCase() !== "vary"),
    [
      "Vary",
      !vary
        ? "Accept-Encoding"
        : /\bAccept-Encoding\b/i.test(vary)
        ? vary
        : `${vary}, Accept-Encoding`,
    ],
  ];
  const all: HeaderPair[] = [...shared, ["ETag", etag]];
  /** A compressed variant: a tag of its own, for it is another representation (RFC 9110, 8.8.3). */
  const variant = (coding: "gzip" | "br", compressed: Uint8Array<ArrayBuffer>): Representation => {
    const taggedEtag = etag.slice(0, -1) + (coding === "gzip" ? '-gz"' : '-br"');
    const fields: HeaderPair[] = [...shared, ["Content-Encoding", coding], ["ETag", taggedEtag]];
    return {
      body: compressed,
      etag: taggedEtag,
      headers: fields,
      notModifiedHeaders: toNotModified(fields),
    };
  };
  return {
    body,
    etag,
    headers: all,
    notModifiedHeaders: toNotModified(all),
    gzip: compressOnFirstUse(body, "gzip", variant),
    brotli: compressOnFirstUse(body, "br", variant),
  };
}

/**
 * A compressed variant of a body, made by its first request: with the runtime's
 * `CompressionStream` where it knows the format, else with `node:zlib`, imported then.
 */
function compressOnFirstUse(
  body: Uint8Array<ArrayBuffer>,
  coding: "gzip" | "br",
  toVariant: (coding: "gzip" | "br", compressed: Uint8Array<ArrayBuffer>) => Representation,
): () => Promise<Representation> {
  const format = coding === "gzip" ? "gzip" : "brotli";
  return loadOnce(async () => {
    const stream = openCompressionStream(format);
    return toVariant(
      coding,
      stream
        ? await compressWithStream(stream, body)
        : compressWithZlib(await import("node:zlib"), body, format),
    );
  });
}

/**
 * The runtime's `CompressionStream` for a format, or `undefined` where it does not know it
 * (Brotli on Node 20 and Bun): made once and used, not made to be asked and made again.
 */
function openCompressionStream(format: "gzip" | "brotli"): CompressionStream | undefined {
  try {
    return new CompressionStream(format as CompressionFormat);
  } catch {
    return undefined;
  }
}

/**
 * Compresses a body with a `CompressionStream` of the runtime's. The body is
 * written straight to the stream's writable side: a `Blob` stream in front would add a reader and
 * a pipe, whose first use a cold isolate's first page would pay.
 */
async function compressWithStream(
  compression: CompressionStream,
  body: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  const writer = compression.writable.getWriter();
  // Settled by reading the other side below, which a failure there reports.
  void writer.write(body).catch(() => {});
  void writer.close().catch(() => {});
  return new Uint8Array(await new Response(compression.readable).arrayBuffer());
}

/**
 * Compresses a body with `node:zlib`: gzip level 9; Brotli at its best quality, or a quicker one
 * for a body of megabytes, the API reference's renderer, so that its first request does not wait
 * long.
 */
function compressWithZlib(
  zlib: typeof import("node:zlib"),
  body: Uint8Array<ArrayBuffer>,
  format: "gzip" | "brotli",
): Uint8Array<ArrayBuffer> {
  if (format === "gzip") return new Uint8Array(zlib.gzipSync(body, { level: 9 }));
  return new Uint8Array(zlib.brotliCompressSync(body, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: body.length > 1_000_000 ? 5 : 11,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  }));
}

/**
 * The weight (q-value, 0 to 1) an `Accept-Encoding` value gives a coding (RFC 9110, section
 * 12.5.3): its own entry's, else that of `*`, else 0; `x-gzip` counts as `gzip`.
 *
 * @param acceptEncoding The request's `Accept-Encoding`.
 * @param coding The coding, lower case.
 */
function weighCoding(acceptEncoding: string, coding: string): number {
  let any = 0;
  for (const item of acceptEncoding.split(",")) {
    const [name, ...parameters] = item.trim().toLowerCase().split(";");
    const weight = parameters.map((parameter) => parameter.trim())
      .find((parameter) => parameter.startsWith("q="));
    const value = weight === undefined ? 1 : Number(weight.slice(2));
    const q = Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 0;
    const entry = name.trim() === "x-gzip" ? "gzip" : name.trim();
    if (entry === coding) return q;
    if (entry === "*") any = q;
  }
  return any;
}

/**
 * The coding to answer a request's `Accept-Encoding` with (RFC 9110, section 12.5.3): Brotli or
 * gzip, whichever the client weighs more, Brotli when it weighs them alike; none when it weighs
 * both 0 or does not list them.
 *
 * @param acceptEncoding The request's `Accept-Encoding`, or `null`.
 * @returns `br`, `gzip`, or `undefined` for the identity.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chooseEncoding } from "./representation.ts";
 *
 * assert.equal(chooseEncoding("gzip, deflate, br, zstd"), "br");
 * assert.equal(chooseEncoding("gzip;q=1, br;q=0.5"), "gzip");
 * assert.equal(chooseEncoding("*;q=0.5, br;q=0"), "gzip");
 * assert.equal(chooseEncoding("identity"), undefined);
 * ```
 */
export function chooseEncoding(acceptEncoding: string | null): "br" | "gzip" | undefined {
  if (!acceptEncoding) return undefined;
  const brotli = weighCoding(acceptEncoding, "br");
  const gzip = weighCoding(acceptEncoding, "gzip");
  if (brotli > 0 && brotli >= gzip) return "br";
  return gzip > 0 ? "gzip" : undefined;
}

/**
 * Whether `Accept-Encoding` allows gzip: `gzip` (or `x-gzip`) listed with a weight above 0, or
 * `*` above 0 with gzip not refused (RFC 9110, section 12.5.3).
 *
 * @param acceptEncoding The request's `Accept-Encoding`, or `null`.
 */
export function acceptsGzip(acceptEncoding: string | null): boolean {
  return acceptEncoding !== null && weighCoding(acceptEncoding, "gzip") > 0;
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
export async function respond(
  request: Request,
  representation: Representation,
  options: RespondOptions = {},
): Promise<Response> {
  const status = options.status ?? 200;
  if (representation.gzip) {
    const coding = chooseEncoding(request.headers.get("Accept-Encoding"));
    if (coding === "br" && representation.brotli) representation = await representation.brotli();
    else if (coding === "gzip") representation = await representation.gzip();
  }
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
