/**
 * Compression of the answers that are not prepared representations (the OpenAPI document, the API
 * catalog, the API's JSON): a GET answered 200 with a compressible body of 1 KiB or more is sent
 * gzipped when the request's `Accept-Encoding` allows it, with `Vary: Accept-Encoding` and, when
 * it has one, an entity tag of its own. The gzipped bytes of a body already seen are kept (a
 * bounded cache in the closure of the handler), so a document the same for every request is
 * compressed once. Prepared representations compress themselves (see `respond`).
 *
 * @module
 */
import { gzipSync } from "node:zlib";
import { buildEtag } from "./etag.ts";
import { acceptsGzip, MIN_COMPRESSED_BYTES } from "./representation.ts";

const COMPRESSIBLE_TYPE =
  /^(?:text\/|application\/(?:[\w.-]+\+)?(?:json|xml|javascript)\b|image\/svg\+xml)/;

/** How many gzipped bodies are kept. @default {64} */
const DEFAULT_MAX_ENTRIES = 64;

/**
 * Creates the compressor of a handler.
 *
 * @param maxEntries How many gzipped bodies to keep. @default {64}
 * @returns A function that answers with the gzipped response when it applies, else the response.
 */
export function createCompressor(
  maxEntries: number = DEFAULT_MAX_ENTRIES,
): (request: Request, response: Response) => Response | Promise<Response> {
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  async function compress(response: Response): Promise<Response> {
    const body = new Uint8Array(await response.arrayBuffer());
    const headers = new Headers(response.headers);
    const vary = headers.get("Vary");
    if (!vary) headers.set("Vary", "Accept-Encoding");
    else if (!/\bAccept-Encoding\b/i.test(vary)) headers.set("Vary", `${vary}, Accept-Encoding`);
    if (body.length < MIN_COMPRESSED_BYTES) {
      return new Response(body, { status: response.status, headers });
    }
    const key = buildEtag(body) + body.length;
    let gzipped = cache.get(key);
    if (!gzipped) {
      gzipped = new Uint8Array(gzipSync(body, { level: 6 }));
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(key, gzipped);
    }
    headers.set("Content-Encoding", "gzip");
    headers.delete("Content-Length");
    const etag = headers.get("ETag");
    if (etag?.endsWith('"') && !etag.endsWith('-gz"')) {
      headers.set("ETag", etag.slice(0, -1) + '-gz"');
    }
    return new Response(gzipped, { status: response.status, headers });
  }
  return (request, response) => {
    if (
      request.method !== "GET" || response.status !== 200 || response.body === null ||
      response.headers.has("Content-Encoding") ||
      !COMPRESSIBLE_TYPE.test(response.headers.get("Content-Type") ?? "") ||
      /\bno-transform\b/.test(response.headers.get("Cache-Control") ?? "") ||
      !acceptsGzip(request.headers.get("Accept-Encoding"))
    ) {
      return response;
    }
    // A body that fails while read cannot be answered whole: the handler never rejects.
    return compress(response).catch(() => new Response(null, { status: 500 }));
  };
}
