/**
 * The site built from a corpus: every page's HTML and Markdown representations, the 404 pages,
 * llms.txt, llms-full.txt, the sitemap, robots.txt and the assets, each rendered, encoded and
 * tagged once, so a content request costs a lookup and a copy. The handler imports this module
 * with its first content request (see `Services.site`): the Markdown renderer and what it builds
 * are not part of start-up, which every cold isolate would pay.
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
import { buildLazyFiles, fromBase64, toSiteAsset } from "./site_assets.ts";
import {
  estimateTokens,
  HTML_SECURITY_HEADERS,
  HTML_TYPE,
  MARKDOWN_TYPE,
  PAGE_CACHE,
  type Site,
  type SiteAsset,
  type SiteFile,
  type SitePage,
  type SiteText,
  toMarkdownPath,
} from "./site.ts";

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

/** A page rendered: its two answers as text, and what answers built per request reuse. */
export interface RenderedPage extends Omit<SitePage, "html" | "markdown"> {
  /** The HTML answer. */
  html: SiteText;
  /** The Markdown answer. */
  markdown: SiteText;
}

/** Everything of a site that depends on nothing in a request, rendered as text. */
export interface RenderedSite {
  /** Every page, in the corpus's order. */
  pages: RenderedPage[];
  /** The 404 answers by language and format. */
  notFound: Record<Language, Record<Exclude<ContentFormat, "text">, SiteText>>;
  /** llms.txt by language. */
  llms: Record<Language, SiteText>;
  /** llms-full.txt. */
  llmsFull: SiteText;
  /** robots.txt. */
  robots: SiteText;
  /** Renders sitemap.xml, once: its XML library is imported by the first call. */
  renderSitemap(): Promise<SiteText>;
  /** Renders an HTML document in the site's template (for answers built per request). */
  renderHtml: Site["renderHtml"];
}

/**
 * Prepares the assets of a corpus: the files under `/assets/`, stylesheets last, their
 * `url(/assets/…)` references made the versioned, immutable URLs of the files they name (the web
 * font), so a changed font changes the stylesheet's URL too.
 *
 * @param corpus The checked corpus.
 * @returns The assets and lazily loaded files by name, and each one's versioned URL.
 */
export function prepareAssets(corpus: Corpus): {
  assets: Map<string, SiteAsset>;
  files: Map<string, SiteFile>;
  assetUrls: Record<string, string>;
} {
  const assets = new Map<string, SiteAsset>();
  const assetUrls: Record<string, string> = {};
  const files = buildLazyFiles(corpus);
  for (const [name, file] of files) assetUrls[name] = `/assets/${name}?v=${file.version}`;
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
  return { assets, files, assetUrls };
}

/**
 * What an agent with nothing but the origin needs (RFC 8631, RFC 9727): the API catalog, the REST
 * and MCP descriptions, the documentation for people, the health, and llms.txt.
 */
function buildHomeLinks(baseUrl: string, language: Language): string {
  return [
    formatLink(baseUrl + API_CATALOG_PATH, "api-catalog"),
    `${formatLink(baseUrl + OPENAPI_PATH, "service-desc")}; type="${OPENAPI_TYPE}"`,
    `${formatLink(baseUrl + MCP_SERVER_CARD_PATH, "service-desc")}; type="${MCP_SERVER_CARD_TYPE}"`,
    `${formatLink(baseUrl + API_REFERENCE_PATHS[language], "service-doc")}; type="text/html"`,
    `${formatLink(`${baseUrl}${API_BASE_PATH}/health`, "status")}; type="application/json"`,
    formatLink(baseUrl + LLMS_PATH, "describedby"),
  ].join(", ");
}

/** Renders one page of a corpus: its HTML in the template, and its Markdown twin. */
function renderSitePage(
  corpus: Corpus,
  page: CorpusPage,
  baseUrl: string,
  assetUrls: Record<string, string>,
  renderHtml: Site["renderHtml"],
): RenderedPage {
  const language = page.language;
  const translation = findPage(corpus, page.id, language === "pt" ? "en" : "pt");
  const markdownPath = toMarkdownPath(page.path);
  const isHome = page.path === "/" || page.path === "/en";
  const common: HeaderPair[] = [
    ["Vary", page.layout === "contact" ? "Accept, Cookie" : "Accept"],
    ["Cache-Control", PAGE_CACHE],
    ["Content-Language", corpus.languages[language].tag],
    ...(isHome ? [["Link", buildHomeLinks(baseUrl, language)] as const] : []),
  ];
  const extraHtml = page.layout === "contact"
    ? renderContactForm(corpus.languages[language].form, page.path, {}, renderInlineMarkdown)
    : "";
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
  return {
    page,
    translation,
    markdownPath,
    bodyHtml,
    html: {
      body: html,
      headers: [["Content-Type", HTML_TYPE], ...common, ...HTML_SECURITY_HEADERS],
    },
    markdown: { body: markdown, headers: markdownHeaders },
  };
}

/** Renders the 404 page of each language, as HTML and as Markdown. */
function renderNotFound(
  corpus: Corpus,
  baseUrl: string,
  renderHtml: Site["renderHtml"],
): RenderedSite["notFound"] {
  const notFound = {} as RenderedSite["notFound"];
  for (const language of ["pt", "en"] as const) {
    const text = corpus.languages[language].notFound;
    const common: HeaderPair[] = [
      ["Vary", "Accept"],
      ["Cache-Control", "no-store"],
      ["Content-Language", corpus.languages[language].tag],
    ];
    const markdown = rewriteMarkdown(text.markdown, { baseUrl });
    notFound[language] = {
      html: {
        body: renderHtml({
          language,
          title: text.title,
          description: text.description,
          mainHtml: renderMarkdown(text.markdown),
        }),
        headers: [["Content-Type", HTML_TYPE], ...common, ...HTML_SECURITY_HEADERS],
      },
      markdown: {
        body: markdown,
        headers: [
          ["Content-Type", MARKDOWN_TYPE],
          ...common,
          ["X-Markdown-Tokens", String(estimateTokens(markdown))],
          ["X-Robots-Tag", "noindex"],
        ],
      },
    };
  }
  return notFound;
}

/**
 * Renders what of a site depends on nothing in a request: every page in both formats, the 404
 * pages and the documents, as text (the build prepares them ahead from this; `buildSite` from
 * this at run time).
 *
 * @param corpus The checked corpus.
 * @param baseUrl The public origin.
 * @param assetUrls Each asset's versioned URL (see {@linkcode prepareAssets}).
 * @returns The rendered site.
 */
export function renderSite(
  corpus: Corpus,
  baseUrl: string,
  assetUrls: Record<string, string>,
): RenderedSite {
  const renderHtml: Site["renderHtml"] = (view) =>
    renderPage({ ...view, corpus, baseUrl, assetUrls });
  const text = (body: string, type: string): SiteText => ({
    body,
    headers: [
      ["Content-Type", type],
      ["Cache-Control", PAGE_CACHE],
      ["X-Content-Type-Options", "nosniff"],
    ],
  });
  const plain = "text/plain; charset=utf-8";
  return {
    pages: corpus.pages.map((page) => renderSitePage(corpus, page, baseUrl, assetUrls, renderHtml)),
    notFound: renderNotFound(corpus, baseUrl, renderHtml),
    llms: {
      pt: text(buildLlmsTxt(corpus, "pt", baseUrl), plain),
      en: text(buildLlmsTxt(corpus, "en", baseUrl), plain),
    },
    llmsFull: text(buildLlmsFullTxt(corpus, baseUrl), plain),
    robots: text(buildRobotsTxt(baseUrl), plain),
    renderSitemap: loadOnce(async () =>
      text(
        buildSitemap(corpus, { baseUrl, xml: await import("xmlbuilder2") }),
        "application/xml; charset=utf-8",
      )
    ),
    renderHtml,
  };
}

/** Prepares a rendered text: its bytes, entity tag and compressed variants. */
function toTextRepresentation(text: SiteText): Representation {
  return toRepresentation(text.body, text.headers);
}

/**
 * Builds the site of a corpus: renders every page in both formats and every document, and
 * prepares each answer.
 *
 * @param corpus The checked corpus.
 * @param baseUrl The public origin.
 * @returns The prepared site.
 */
export function buildSite(corpus: Corpus, baseUrl: string): Site {
  const { assets, files, assetUrls } = prepareAssets(corpus);
  const rendered = renderSite(corpus, baseUrl, assetUrls);
  const pages = new Map<string, SitePage>();
  for (const { html, markdown, ...entry } of rendered.pages) {
    pages.set(entry.page.path, {
      ...entry,
      html: toTextRepresentation(html),
      markdown: toTextRepresentation(markdown),
    });
  }
  const notFound = {} as Record<Language, Record<Exclude<ContentFormat, "text">, Representation>>;
  for (const language of ["pt", "en"] as const) {
    notFound[language] = {
      html: toTextRepresentation(rendered.notFound[language].html),
      markdown: toTextRepresentation(rendered.notFound[language].markdown),
    };
  }
  return {
    corpus,
    baseUrl,
    pages,
    notFound,
    llms: {
      pt: toTextRepresentation(rendered.llms.pt),
      en: toTextRepresentation(rendered.llms.en),
    },
    llmsFull: toTextRepresentation(rendered.llmsFull),
    sitemap: loadOnce(async () => toTextRepresentation(await rendered.renderSitemap())),
    robots: toTextRepresentation(rendered.robots),
    assets,
    files,
    renderHtml: rendered.renderHtml,
    renderInlineMarkdown,
  };
}
