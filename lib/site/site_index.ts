/**
 * The site's index: the paths the site serves and what each page is, without the pages
 * themselves. The route table is built from it when the handler is created, so every route of
 * the site is an entry of the one table while the content (a large module) loads with the site's
 * first request. For the studio's corpus the build writes it (`build/site_index.generated.ts`);
 * for a corpus passed to `createHandler`, {@linkcode buildSiteIndex} derives it.
 *
 * @module
 */
import type { Corpus, PageLayout } from "./corpus.ts";

/** Assets also served at the root, where browsers and chat apps look for them unasked. */
export const ROOT_ASSETS = ["favicon.ico", "apple-touch-icon.png"] as const;

/** A page as the route table needs it. */
export interface SiteIndexPage {
  /** The page's path, e.g. `/en/services`. */
  path: string;
  /** Its layout: `contact` and `booking` pages also take their form's POST. */
  layout: PageLayout;
}

/** The paths of a site. */
export interface SiteIndex {
  /** Every page of both languages, in the corpus's order. */
  pages: readonly SiteIndexPage[];
  /** The {@linkcode ROOT_ASSETS} the corpus has. */
  rootAssets: readonly string[];
}

/**
 * Derives the index of a corpus.
 *
 * @param corpus The site's content.
 * @returns Its pages' paths and layouts, and the root assets it has.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Corpus } from "./corpus.ts";
 * import { buildSiteIndex } from "./site_index.ts";
 *
 * const corpus = {
 *   pages: [{ path: "/en/book", layout: "booking" }],
 *   assets: { "favicon.ico": { type: "image/x-icon", base64: "" } },
 * } as unknown as Corpus; // Only the fields the index reads.
 * const index = buildSiteIndex(corpus);
 * assert.deepEqual(index.pages, [{ path: "/en/book", layout: "booking" }]);
 * assert.deepEqual(index.rootAssets, ["favicon.ico"]);
 * ```
 */
export function buildSiteIndex(corpus: Corpus): SiteIndex {
  return {
    pages: corpus.pages.map(({ path, layout }) => ({ path, layout })),
    // An asset of the corpus, or a file read on first use (the build keeps binary ones as files).
    rootAssets: ROOT_ASSETS.filter((name) => name in corpus.assets || name in (corpus.files ?? {})),
  };
}
