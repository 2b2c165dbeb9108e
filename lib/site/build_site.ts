/**
 * The site built from a corpus: every page's HTML and Markdown representations, the 404 pages,
 * llms.txt, llms-full.txt, the sitemap, robots.txt and the assets, each rendered, encoded and
 * tagged once, so a content request costs a lookup and a copy. The handler imports this module
 * with its first content request (see `Services.site`): the Markdown renderer and what it builds
 * are not part of start-up (issue 15).
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
import { buildLlmsFullTxt, buildLlmsTxt } from "./build_llms_txt.ts";
import { buildRobotsTxt } from "./build_robots_txt.ts";
import { buildSitemap } from "./build_sitemap.ts";
import type { ContentFormat } from "../http/negotiate_format.ts";
import { renderContactForm } from "./render_contact_form.ts";
import { renderInlineMarkdown, renderMarkdown } from "./render_markdown.ts";
import { findPage, renderPage } from "./render_page.ts";
import { type HeaderPair, type Representation, toRepresentation } from "../http/representation.ts";
import { rewriteMarkdown } from "./rewrite_markdown.ts";
import { expandWorkCards, renderCaseStudy, renderHero, toPageMarkdown } from "./render_work.ts";
import { formatLink } from "../http/versioning.ts";
import { loadOnce } from "../load_once.ts";
import {
  HTML_SECURITY_HEADERS,
  HTML_TYPE,
  MARKDOWN_TYPE,
  PAGE_CACHE,
  type Site,
  type SiteAsset,
  type SiteFile,
  type SitePage,
  toMarkdownPath,
} from "./site.ts";

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

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
}

/**
 * The lazily loaded files of a corpus: each module is imported and its files decoded once, on the
 * first request for any of them ({@linkcode loadOnce}: a failed load is tried again later).
 */
function buildLazyFiles(corpus: Corpus): Map<string, SiteFile> {
  const files = new Map<string, SiteFile>();
  const loadFiles = corpus.loadFiles;
  if (!loadFiles) return files;
  const entries = Object.entries(corpus.files ?? {});
  const modules = new Map(
    [...new Set(entries.map(([, file]) => file.module))].map((module) => [
      module,
      loadOnce(async () => {
        const encoded = await loadFiles(module);
        const assets = new Map<string, SiteAsset>();
        for (const [name, file] of entries) {
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
      }),
    ]),
  );
  for (const [name, file] of entries) {
    const loadModule = modules.get(file.module);
    if (!loadModule) continue;
    files.set(name, {
      version: file.version,
      load: async () => {
        const asset = (await loadModule()).get(name);
        if (!asset) throw new Error(`No file "${name}" in module "${file.module}"`);
        return asset;
      },
    });
  }
  return files;
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
      extraHtml = renderContactForm(
        corpus.languages[language].form,
        page.path,
        {},
        renderInlineMarkdown,
      );
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
    renderInlineMarkdown,
  };
}
