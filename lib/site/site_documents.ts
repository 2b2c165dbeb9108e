/**
 * The site's answers that depend on nothing in a request: each page as HTML and as Markdown, the
 * 404 pages, llms.txt, llms-full.txt, robots.txt, the sitemap and the files under `/assets/`. The
 * studio's own are rendered by the build (`build/site/`, Fresh's model: the build prepares, the
 * run time only reads what it left), one small module per page, so a cold isolate's first page
 * imports that page's module and neither the corpus nor the Markdown renderer. The public origin
 * is not known at build time: the build renders with {@linkcode PREBUILT_BASE_URL}, and the
 * first request for an answer puts the configured origin in its place, once, before its entity
 * tag is computed. A corpus passed to `createHandler` has no build: its answers come from the site
 * built on the first request ({@linkcode createSiteDocuments}).
 *
 * @module
 */
import type { Corpus, Language, LoadFiles } from "./corpus.ts";
import { type HeaderPair, type Representation, toRepresentation } from "../http/representation.ts";
import { buildEtag } from "../http/etag.ts";
import { loadOnce } from "../load_once.ts";
import { buildLazyFiles, fromBase64, toSiteAsset } from "./site_assets.ts";
import { estimateTokens, type Site, type SiteAsset, type SiteText } from "./site.ts";

/**
 * The origin the build renders the studio's answers with, in every absolute link (canonical,
 * alternates, `og:image`, JSON-LD, the Markdown twins, llms.txt, the sitemap); replaced by the
 * configured origin when an answer is first served. The `.invalid` top-level domain never
 * resolves (RFC 2606), so it cannot be mistaken for a real origin.
 */
export const PREBUILT_BASE_URL = "https://studio-website.invalid";

/** A text the build prepared, with the entity tag of its body as the build rendered it. */
export interface PrebuiltText extends SiteText {
  /** The strong entity tag of `body` (with {@linkcode PREBUILT_BASE_URL} in its links). */
  readonly etag: string;
}

/** A page prepared by the build: its two answers as text. */
export interface PrebuiltPage {
  /** The HTML answer. */
  html: PrebuiltText;
  /** The Markdown answer. */
  markdown: PrebuiltText;
}

/** The documents prepared by the build, but llms-full.txt (a module of its own). */
export interface PrebuiltDocuments {
  /** The 404 answers by language and format. */
  notFound: Record<Language, PrebuiltPage>;
  /** llms.txt by language. */
  llms: Record<Language, PrebuiltText>;
  /** robots.txt. */
  robots: PrebuiltText;
  /** sitemap.xml. */
  sitemap: PrebuiltText;
}

/** An asset prepared by the build (the stylesheet with its files' versioned URLs, a font). */
export interface PrebuiltAsset {
  /** Its version, the `?v=` of its versioned URL. */
  version: string;
  /** The body: text, or base64 when `encoding` says so. */
  body: string;
  /** `base64` for a binary file. */
  encoding?: "base64";
  /** Its headers (type, `nosniff`), without caching. */
  headers: readonly HeaderPair[];
}

/** What the build's `build/site/site.generated.ts` exports: loaders of the prepared answers. */
export interface PrebuiltSite {
  /** Each page's module, by path. */
  pages: Readonly<Record<string, () => Promise<PrebuiltPage>>>;
  /** The documents' module. */
  documents: () => Promise<PrebuiltDocuments>;
  /** llms-full.txt's module. */
  llmsFull: () => Promise<PrebuiltText>;
  /** Each asset's module, by file name. */
  assets: Readonly<Record<string, () => Promise<PrebuiltAsset>>>;
  /** The files read on first use (pictures' renditions, sharing cards), as `Corpus.files`. */
  files: Corpus["files"];
  /** Reads a file, as `Corpus.loadFiles`. */
  loadFiles: LoadFiles;
}

/** A page's two prepared answers. */
export interface PageAnswers {
  /** The HTML answer. */
  html: Representation;
  /** The Markdown answer. */
  markdown: Representation;
}

/** The site's answers that depend on nothing in a request, each prepared once. */
export interface SiteDocuments {
  /** The page at a path, or `undefined` when there is none. */
  page(path: string): Promise<PageAnswers | undefined>;
  /** The 404 page of a language. */
  notFound(language: Language): Promise<PageAnswers>;
  /** llms.txt of a language. */
  llms(language: Language): Promise<Representation>;
  /** llms-full.txt. */
  llmsFull(): Promise<Representation>;
  /** robots.txt. */
  robots(): Promise<Representation>;
  /** sitemap.xml. */
  sitemap(): Promise<Representation>;
  /** A file under `/assets/`, or `undefined` when there is none. */
  asset(name: string): Promise<SiteAsset | undefined>;
}

/**
 * Puts the public origin in a prepared text and prepares it: bytes, entity tag, and compressed
 * variants on first use. `X-Markdown-Tokens` follows the body's new length. The entity tag is
 * that of the build's tag and the origin together, which name the body as surely as its bytes
 * (the body is the build's with the origin put in), without hashing the page again on the
 * first visitor's request.
 *
 * @param text The text as the build rendered it.
 * @param baseUrl The public origin.
 * @returns The representation.
 */
export function fillPrebuiltText(text: PrebuiltText, baseUrl: string): Representation {
  const body = text.body.replaceAll(PREBUILT_BASE_URL, baseUrl);
  const headers = text.headers.map(([name, value]): HeaderPair =>
    name === "X-Markdown-Tokens"
      ? [name, String(estimateTokens(body))]
      : [name, value.replaceAll(PREBUILT_BASE_URL, baseUrl)]
  );
  const etag = buildEtag(new TextEncoder().encode(`${text.etag} ${baseUrl}`));
  return toRepresentation(body, headers, etag);
}

/**
 * Adds to a text the build rendered the entity tag of its body (see {@linkcode PrebuiltText}).
 *
 * @param text The text, with {@linkcode PREBUILT_BASE_URL} in its links.
 * @returns The text and its tag.
 */
export function toPrebuiltText(text: SiteText): PrebuiltText {
  return { ...text, etag: buildEtag(new TextEncoder().encode(text.body)) };
}

/**
 * The answers of the site the build prepared, for a public origin: each module is imported by
 * the first request for one of its answers, and each answer is filled in and prepared once.
 *
 * @param load Imports the build's site module.
 * @param baseUrl The public origin.
 * @returns The answers.
 */
export function createPrebuiltDocuments(
  load: () => Promise<PrebuiltSite>,
  baseUrl: string,
): SiteDocuments {
  const site = loadOnce(load);
  const fill = (text: PrebuiltText) => fillPrebuiltText(text, baseUrl);
  const fillPage = (page: PrebuiltPage): PageAnswers => ({
    html: fill(page.html),
    markdown: fill(page.markdown),
  });
  const pages = new Map<string, () => Promise<PageAnswers | undefined>>();
  const assets = new Map<string, () => Promise<SiteAsset | undefined>>();
  const documents = loadOnce(async () => {
    const prepared = await (await site()).documents();
    return {
      notFound: { pt: fillPage(prepared.notFound.pt), en: fillPage(prepared.notFound.en) },
      llms: { pt: fill(prepared.llms.pt), en: fill(prepared.llms.en) },
      robots: fill(prepared.robots),
      sitemap: fill(prepared.sitemap),
    };
  });
  const llmsFull = loadOnce(async () => fill(await (await site()).llmsFull()));
  const files = loadOnce(async () => buildLazyFiles(await site()));
  /** One loader per path or name, made on its first request; unknown ones answer `undefined`. */
  const memo = <T>(
    cache: Map<string, () => Promise<T | undefined>>,
    key: string,
    make: (prebuilt: PrebuiltSite) => (() => Promise<T>) | undefined,
  ) => {
    let loader = cache.get(key);
    if (!loader) {
      loader = loadOnce(async () => {
        const made = make(await site());
        return made ? await made() : undefined;
      });
      cache.set(key, loader);
    }
    return loader();
  };
  return {
    page: (path) =>
      memo(pages, path, (prebuilt) => {
        const loadPage = Object.hasOwn(prebuilt.pages, path) ? prebuilt.pages[path] : undefined;
        return loadPage && (async () => fillPage(await loadPage()));
      }),
    notFound: async (language) => (await documents()).notFound[language],
    llms: async (language) => (await documents()).llms[language],
    llmsFull,
    robots: async () => (await documents()).robots,
    sitemap: async () => (await documents()).sitemap,
    asset: async (name) => {
      const asset = await memo(assets, name, (prebuilt) => {
        const loadAsset = Object.hasOwn(prebuilt.assets, name) ? prebuilt.assets[name] : undefined;
        return loadAsset && (async () => {
          const prepared = await loadAsset();
          const body = prepared.encoding === "base64" ? fromBase64(prepared.body) : prepared.body;
          return toSiteAsset(prepared.version, body, prepared.headers);
        });
      });
      return asset ?? await (await files()).get(name)?.load();
    },
  };
}

/**
 * The answers of a site built by the handler (a corpus passed to `createHandler`, which has no
 * build): the same interface over `Services.site`.
 *
 * @param site The site, built on first use.
 * @returns The answers.
 */
export function createSiteDocuments(site: () => Promise<Site>): SiteDocuments {
  return {
    page: async (path) => (await site()).pages.get(path),
    notFound: async (language) => (await site()).notFound[language],
    llms: async (language) => (await site()).llms[language],
    llmsFull: async () => (await site()).llmsFull,
    robots: async () => (await site()).robots,
    sitemap: async () => await (await site()).sitemap(),
    asset: async (name) => {
      const built = await site();
      return built.assets.get(name) ?? await built.files.get(name)?.load();
    },
  };
}
