/**
 * The site built from a corpus: every page's HTML and Markdown representations, the 404 pages,
 * llms.txt, llms-full.txt, the sitemap, robots.txt and the assets, each rendered, encoded and
 * tagged once, so a content request costs a lookup and a copy.
 *
 * @module
 */
import {
  API_BASE_PATH,
  API_CATALOG_PATH,
  API_REFERENCE_PATHS,
  LLMS_PATH,
  MCP_SERVER_CARD_PATH,
  MCP_SERVER_CARD_TYPE,
  OPENAPI_PATH,
  OPENAPI_TYPE,
} from "../contract/contract.ts";
import type { Corpus, CorpusPage, Language } from "./corpus.ts";
import { buildLlmsFullTxt, buildLlmsTxt, fillBase, toMarkdownPath } from "./build_llms_txt.ts";
import { buildRobotsTxt } from "./build_robots_txt.ts";
import { buildSitemap } from "./build_sitemap.ts";
import type { ContentFormat } from "../http/negotiate_format.ts";
import { renderContactForm } from "./render_contact_form.ts";
import { renderInlineMarkdown, renderMarkdown } from "./render_markdown.ts";
import { findPage, type PageView, renderPage } from "./render_page.ts";
import { type HeaderPair, type Representation, toRepresentation } from "../http/representation.ts";
import { rewriteMarkdown } from "./rewrite_markdown.ts";
import { expandWorkCards, renderCaseStudy, renderHero, toPageMarkdown } from "./render_work.ts";
import { formatLink } from "../http/versioning.ts";
import { CONTENT_SECURITY_POLICY } from "../http/security_headers.ts";

/** The media type of the Markdown representations. */
export const MARKDOWN_TYPE = "text/markdown; charset=utf-8";

/** The media type of the HTML representations. */
export const HTML_TYPE = "text/html; charset=utf-8";

/** How long a browser or shared cache may keep a page without asking again. */
const PAGE_CACHE = "public, max-age=300";

const HTML_SECURITY_HEADERS: readonly HeaderPair[] = [
  ["Content-Security-Policy", CONTENT_SECURITY_POLICY],
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "strict-origin-when-cross-origin"],
];

/** An asset's representations: for its plain URL, and for its versioned URL (kept a year). */
export interface SiteAsset {
  /** Its version, the `?v=` of its versioned URL. */
  version: string;
  /** The answer at `/assets/<name>`: cached briefly. */
  current: Representation;
  /** The answer at `/assets/<name>?v=<version>`: immutable. */
  pinned: Representation;
}

/** How long a browser or shared cache may keep a versioned asset: a year, never revalidated. */
const PINNED_CACHE = "public, max-age=31536000, immutable";

/**
 * An asset's two representations from its bytes; its version is the one given (a lazily loaded
 * file's, known before its bytes), else the start of its entity tag.
 */
function toSiteAsset(
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

/** A file loaded on its first request: its version, known beforehand, and its loader. */
export interface SiteFile {
  /** Its version, the `?v=` of its versioned URL. */
  version: string;
  /** Loads its module (once for all its files) and answers its representations. */
  load(): Promise<SiteAsset>;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
}

/**
 * The lazily loaded files of a corpus: each module's promise is kept, so its import and the
 * decoding of its files happen once, on the first request for any of them; a failed load is
 * forgotten, so a later request tries again.
 */
function buildLazyFiles(corpus: Corpus): Map<string, SiteFile> {
  const files = new Map<string, SiteFile>();
  const loadFiles = corpus.loadFiles;
  if (!loadFiles) return files;
  const modules = new Map<string, Promise<ReadonlyMap<string, SiteAsset>>>();
  const loadModule = (module: string) => {
    let loading = modules.get(module);
    if (!loading) {
      loading = loadFiles(module).then((encoded) => {
        const assets = new Map<string, SiteAsset>();
        for (const [name, file] of Object.entries(corpus.files ?? {})) {
          if (file.module !== module) continue;
          const text = encoded[name];
          if (text === undefined) throw new Error(`Module "${module}" holds no file "${name}"`);
          assets.set(
            name,
            toSiteAsset(file.version, fromBase64(text), [
              ["Content-Type", file.type],
              ["X-Content-Type-Options", "nosniff"],
            ]),
          );
        }
        return assets;
      });
      loading.catch(() => modules.delete(module));
      modules.set(module, loading);
    }
    return loading;
  };
  for (const [name, file] of Object.entries(corpus.files ?? {})) {
    files.set(name, {
      version: file.version,
      load: async () => {
        const asset = (await loadModule(file.module)).get(name);
        if (!asset) throw new Error(`No file "${name}" in module "${file.module}"`);
        return asset;
      },
    });
  }
  return files;
}

/** A page of the site with its prepared representations. */
export interface SitePage {
  /** The page. */
  page: CorpusPage;
  /** The same page in the other language. */
  translation: CorpusPage;
  /** The path of its Markdown twin. */
  markdownPath: string;
  /** The HTML of its Markdown body, without the template. */
  bodyHtml: string;
  /** The HTML answer. */
  html: Representation;
  /** The Markdown answer (also served at `markdownPath`). */
  markdown: Representation;
}

/** The whole site, prepared. */
export interface Site {
  /** The corpus it was built from. */
  corpus: Corpus;
  /** The public origin. */
  baseUrl: string;
  /** The pages by path. */
  pages: ReadonlyMap<string, SitePage>;
  /** The 404 answers by language and format. */
  notFound: Readonly<
    Record<Language, Readonly<Record<Exclude<ContentFormat, "text">, Representation>>>
  >;
  /** llms.txt by language. */
  llms: Readonly<Record<Language, Representation>>;
  /** llms-full.txt. */
  llmsFull: Representation;
  /** sitemap.xml, built on the first request for it (its XML library is loaded then). */
  sitemap(): Promise<Representation>;
  /** robots.txt. */
  robots: Representation;
  /** The assets by file name, each with its long-lived variant for versioned URLs. */
  assets: ReadonlyMap<string, SiteAsset>;
  /**
   * The files whose bytes are loaded on their first request (pictures' renditions, sharing
   * cards; see `Corpus.files`), by file name: `load()` imports their module once.
   */
  files: ReadonlyMap<string, SiteFile>;
  /** Renders an HTML document in the site's template (for answers built per request). */
  renderHtml(view: Omit<PageView, "corpus" | "baseUrl" | "assetUrls">): string;
}

/** The language a path belongs to: English under `/en` (and `/md/en`), else Portuguese. */
export function toLanguage(pathname: string): Language {
  const path = pathname.startsWith("/md/") ? pathname.slice(3) : pathname;
  return path === "/en" || path.startsWith("/en/") || path.startsWith("/en.") ? "en" : "pt";
}

/**
 * The page path a Markdown twin path names: `/md/servicos` and `/md/servicos.md` name
 * `/servicos`; `/md`, `/md/` and `/md/index.md` name `/`.
 *
 * @param pathname A path starting with `/md`.
 * @returns The page path, or `undefined` when it cannot name one.
 */
export function toPagePath(pathname: string): string | undefined {
  let rest = pathname.slice(3);
  if (rest && !rest.startsWith("/")) return undefined;
  if (rest.endsWith(".md")) rest = rest.slice(0, -3);
  if (rest === "/index" || rest.endsWith("/index")) rest = rest.slice(0, -6);
  if (rest.endsWith("/")) rest = rest.slice(0, -1);
  return rest || "/";
}

/** Builds the YAML front matter of a Markdown twin: title, description, language, addresses. */
function buildFrontMatter(
  corpus: Corpus,
  page: CorpusPage,
  translation: CorpusPage,
  baseUrl: string,
) {
  return [
    "---",
    `title: ${JSON.stringify(page.title)}`,
    `description: ${JSON.stringify(page.description)}`,
    `language: ${corpus.languages[page.language].tag}`,
    `canonical: ${baseUrl + page.path}`,
    "alternate:",
    `  ${corpus.languages[translation.language].tag}: ${baseUrl + translation.path}`,
    `updated: ${page.updated}`,
    "---",
    "",
    "",
  ].join("\n");
}

/** A rough token count for `X-Markdown-Tokens`: about four characters per token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Builds the site of a corpus: renders every page in both formats and every document.
 *
 * @param corpus The checked corpus.
 * @param baseUrl The public origin.
 * @returns The prepared site.
 */
export function buildSite(corpus: Corpus, baseUrl: string): Site {
  const assets = new Map<string, SiteAsset>();
  const assetUrls: Record<string, string> = {};
  const files = buildLazyFiles(corpus);
  for (const [name, file] of files) assetUrls[name] = `/assets/${name}?v=${file.version}`;
  // Stylesheets last: their `url(/assets/…)` references become the versioned, immutable URLs of
  // the files they name (the web font), so a changed font changes the stylesheet's URL too.
  const entries = Object.entries(corpus.assets).sort(([, a], [, b]) =>
    Number(a.type.startsWith("text/css")) - Number(b.type.startsWith("text/css"))
  );
  for (const [name, asset] of entries) {
    const headers: HeaderPair[] = [
      ["Content-Type", asset.type],
      ["X-Content-Type-Options", "nosniff"],
    ];
    let body: string | Uint8Array<ArrayBuffer> = asset.body;
    if (asset.encoding === "base64") {
      body = fromBase64(asset.body);
    } else if (asset.type.startsWith("text/css")) {
      body = asset.body.replace(
        /url\((["']?)\/assets\/([a-z0-9_.-]+)\1\)/g,
        (all, _quote, file: string) => assetUrls[file] ? `url(${assetUrls[file]})` : all,
      );
    }
    const prepared = toSiteAsset(undefined, body, headers);
    assets.set(name, prepared);
    assetUrls[name] = `/assets/${name}?v=${prepared.version}`;
  }

  const renderHtml: Site["renderHtml"] = (view) =>
    renderPage({ ...view, corpus, baseUrl, assetUrls });

  // What an agent with nothing but the origin needs (RFC 8631, RFC 9727): the API catalog, the
  // REST and MCP descriptions, the documentation for people, the health, and llms.txt.
  const homeLinks = (language: Language) =>
    [
      formatLink(baseUrl + API_CATALOG_PATH, "api-catalog"),
      `${formatLink(baseUrl + OPENAPI_PATH, "service-desc")}; type="${OPENAPI_TYPE}"`,
      `${
        formatLink(baseUrl + MCP_SERVER_CARD_PATH, "service-desc")
      }; type="${MCP_SERVER_CARD_TYPE}"`,
      `${formatLink(baseUrl + API_REFERENCE_PATHS[language], "service-doc")}; type="text/html"`,
      `${formatLink(`${baseUrl}${API_BASE_PATH}/health`, "status")}; type="application/json"`,
      formatLink(baseUrl + LLMS_PATH, "describedby"),
    ].join(", ");

  const pages = new Map<string, SitePage>();
  for (const page of corpus.pages) {
    const language = page.language;
    const translation = findPage(corpus, page.id, language === "pt" ? "en" : "pt");
    const markdownPath = toMarkdownPath(page.path);
    const isHome = page.path === "/" || page.path === "/en";
    const common: HeaderPair[] = [
      ["Vary", page.layout === "contact" ? "Accept, Cookie" : "Accept"],
      ["Cache-Control", PAGE_CACHE],
      ["Content-Language", corpus.languages[language].tag],
      ...(isHome ? [["Link", homeLinks(language)] as const] : []),
    ];
    let extraHtml = "";
    if (page.layout === "contact") {
      extraHtml = renderContactForm(corpus.languages[language].form, page.path);
    }
    let bodyHtml = expandWorkCards(
      renderMarkdown(page.markdown, { codeLabel: corpus.languages[language].text.codeLabel }),
      corpus,
      language,
      assetUrls,
    );
    if (page.layout === "home") bodyHtml = renderHero(bodyHtml);
    if (page.layout === "case") bodyHtml = renderCaseStudy(corpus, page, bodyHtml, assetUrls);
    const html = renderHtml({
      language,
      title: page.title,
      description: page.description,
      mainHtml: bodyHtml + extraHtml,
      page,
      translation,
      markdownPath,
    });
    const markdown = buildFrontMatter(corpus, page, translation, baseUrl) +
      rewriteMarkdown(toPageMarkdown(corpus, page), { baseUrl });
    const markdownHeaders: HeaderPair[] = [
      ["Content-Type", MARKDOWN_TYPE],
      ...common.map(([name, value]): HeaderPair =>
        name === "Vary" ? [name, "Accept"] : [name, value]
      ),
      ["X-Markdown-Tokens", String(estimateTokens(markdown))],
      ["X-Robots-Tag", "noindex"],
      ["X-Content-Type-Options", "nosniff"],
    ];
    if (!isHome) markdownHeaders.push(["Link", formatLink(baseUrl + page.path, "canonical")]);
    pages.set(page.path, {
      page,
      translation,
      markdownPath,
      bodyHtml,
      html: toRepresentation(html, [
        ["Content-Type", HTML_TYPE],
        ...common,
        ...HTML_SECURITY_HEADERS,
      ]),
      markdown: toRepresentation(markdown, markdownHeaders),
    });
  }

  const notFound = {} as Record<Language, Record<Exclude<ContentFormat, "text">, Representation>>;
  for (const language of ["pt", "en"] as const) {
    const text = corpus.languages[language].notFound;
    const common: HeaderPair[] = [
      ["Vary", "Accept"],
      ["Cache-Control", "no-store"],
      ["Content-Language", corpus.languages[language].tag],
    ];
    const markdown = rewriteMarkdown(text.markdown, { baseUrl });
    notFound[language] = {
      html: toRepresentation(
        renderHtml({
          language,
          title: text.title,
          description: text.description,
          mainHtml: renderMarkdown(text.markdown),
        }),
        [["Content-Type", HTML_TYPE], ...common, ...HTML_SECURITY_HEADERS],
      ),
      markdown: toRepresentation(markdown, [
        ["Content-Type", MARKDOWN_TYPE],
        ...common,
        ["X-Markdown-Tokens", String(estimateTokens(markdown))],
        ["X-Robots-Tag", "noindex"],
      ]),
    };
  }

  const text = (body: string, type: string) =>
    toRepresentation(body, [
      ["Content-Type", type],
      ["Cache-Control", PAGE_CACHE],
      ["X-Content-Type-Options", "nosniff"],
    ]);
  const plain = "text/plain; charset=utf-8";
  let sitemap: Promise<Representation> | undefined;
  return {
    corpus,
    baseUrl,
    pages,
    notFound,
    llms: {
      pt: text(buildLlmsTxt(corpus, "pt", baseUrl), plain),
      en: text(buildLlmsTxt(corpus, "en", baseUrl), plain),
    },
    llmsFull: text(buildLlmsFullTxt(corpus, baseUrl), plain),
    sitemap: () =>
      sitemap ??= buildSitemap(corpus, baseUrl).then(
        (xml) => text(xml, "application/xml; charset=utf-8"),
        (error) => {
          sitemap = undefined;
          throw error;
        },
      ),
    robots: text(buildRobotsTxt(baseUrl), plain),
    assets,
    files,
    renderHtml,
  };
}

/**
 * Renders a page built per request (a form's outcome, a booking link's page) in the site's
 * template: not cacheable, not indexed, with the site's security headers.
 *
 * @param site The site.
 * @param language The page's language.
 * @param view Its title and the content of `<main>`, already HTML.
 * @param headers Fields that replace the defaults of the same name, e.g. `Referrer-Policy`.
 * @returns The HTML representation.
 */
export function buildDocumentPage(
  site: Site,
  language: Language,
  view: { title: string; mainHtml: string },
  headers: readonly HeaderPair[] = [],
): Representation {
  const html = site.renderHtml({
    language,
    title: view.title,
    description: view.title,
    mainHtml: view.mainHtml,
  });
  const replaced = new Set(headers.map(([name]) => name.toLowerCase()));
  const fields: HeaderPair[] = [
    ["Content-Type", HTML_TYPE],
    ["Cache-Control", "no-store"],
    ["Content-Language", site.corpus.languages[language].tag],
    ...HTML_SECURITY_HEADERS,
  ];
  return toRepresentation(html, [
    ...fields.filter(([name]) => !replaced.has(name.toLowerCase())),
    ...headers,
  ]);
}

/**
 * Renders a page that tells a person what happened (a refused or failed form, a method the
 * path does not accept), in the site's template.
 *
 * @param site The site.
 * @param language The page's language.
 * @param notice Its title and inline-Markdown text, where `{name}` placeholders are filled from
 * `values` and `{base}` is the public origin.
 * @param values Values of the placeholders.
 * @returns The HTML representation (not cacheable).
 */
export function buildNoticePage(
  site: Site,
  language: Language,
  notice: { title: string; text: string },
  values: Record<string, string> = {},
): Representation {
  const text = fillBase(notice.text, site.baseUrl)
    .replace(/\{(\w+)\}/g, (all, name: string) => values[name] ?? all);
  return buildDocumentPage(site, language, {
    title: notice.title,
    mainHtml: `<h1>${renderInlineMarkdown(notice.title)}</h1>\n<p>${
      renderInlineMarkdown(text)
    }</p>`,
  });
}
