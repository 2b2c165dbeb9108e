/**
 * The site's files as answers: an asset's two representations (its plain URL, briefly cached, and
 * its versioned URL, kept a year) and the files whose bytes are read with their first request. Both
 * the site built per handler and the site prepared by the build use them.
 *
 * @module
 */
import type { Corpus } from "./corpus.ts";
import { type HeaderPair, toRepresentation } from "../http/representation.ts";
import { loadOnce } from "../load_once.ts";
import { PAGE_CACHE, type SiteAsset, type SiteFile } from "./site.ts";

/** How long a browser or shared cache may keep a versioned asset: a year, never revalidated. */
const PINNED_CACHE = "public, max-age=31536000, immutable";

/**
 * An asset's two representations from its bytes; its version is the one given (a lazily loaded
 * file's, known before its bytes), else the start of its entity tag.
 *
 * @param version The version, or `undefined` to take it from the bytes.
 * @param body The bytes, or UTF-8 text.
 * @param headers Its headers (type, `nosniff`), without caching (added here).
 * @returns The asset.
 */
export function toSiteAsset(
  version: string | undefined,
  body: string | Uint8Array<ArrayBuffer>,
  headers: readonly HeaderPair[],
): SiteAsset {
  const current = toRepresentation(body, [...headers, ["Cache-Control", PAGE_CACHE]]);
  return {
    version: version ?? current.etag.slice(1, 9),
    current,
    pinned: toRepresentation(body, [...headers, ["Cache-Control", PINNED_CACHE]]),
  };
}

/** Decodes the base64 that generated modules keep binary files in. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
}

/**
 * The lazily read files of a site (pictures' renditions, sharing cards): each file's bytes are
 * read once, on its first request ({@linkcode loadOnce}: a failed read is tried again later).
 *
 * @param source The files by name (`Corpus.files`) and what reads them.
 * @returns Each file's version and loader, by name.
 */
export function buildLazyFiles(
  source: Pick<Corpus, "files" | "loadFiles">,
): Map<string, SiteFile> {
  const files = new Map<string, SiteFile>();
  const loadFiles = source.loadFiles;
  if (!loadFiles) return files;
  for (const [name, file] of Object.entries(source.files ?? {})) {
    files.set(name, {
      version: file.version,
      load: loadOnce(async () =>
        toSiteAsset(file.version, await loadFiles(name), [
          ["Content-Type", file.type],
          ["X-Content-Type-Options", "nosniff"],
        ])
      ),
    });
  }
  return files;
}
