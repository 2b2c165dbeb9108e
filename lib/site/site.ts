/**
 * The prepared site as the routes see it (built by `build_site.ts`, which the handler loads with
 * the first content request: the Markdown renderer is not part of start-up), the
 * pages built per request in its template, and the paths of the site's documents.
 *
 * @module
 */
import { AGENT_SKILLS_PATH } from "../contract/contract.ts";
import type { Corpus, CorpusPage, Language } from "./corpus.ts";
import type { ContentFormat } from "../http/negotiate_format.ts";
import type { PageView } from "./render_page.ts";
import { type HeaderPair, type Representation, toRepresentation } from "../http/representation.ts";
import { CONTENT_SECURITY_POLICY } from "../http/security_headers.ts";

/** The media type of the Markdown representations. */
export const MARKDOWN_TYPE = "text/markdown; charset=utf-8";

/** The media type of the HTML representations. */
export const HTML_TYPE = "text/html; charset=utf-8";

/** How long a browser or shared cache may keep a page without asking again. */
export const PAGE_CACHE = "public, max-age=300";

/** The security fields of every HTML answer (see lib/http/security_headers.ts). */
export const HTML_SECURITY_HEADERS: readonly HeaderPair[] = [
  ["Content-Security-Policy", CONTENT_SECURITY_POLICY],
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "strict-origin-when-cross-origin"],
];

/** A text answer of the site before it is prepared: its body and headers, without `ETag`. */
export interface SiteText {
  /** The body. */
  readonly body: string;
  /** The headers. */
  readonly headers: readonly HeaderPair[];
}

/** A rough token count for `X-Markdown-Tokens`: about four characters per token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** An asset's representations: for its plain URL, and for its versioned URL (kept a year). */
export interface SiteAsset {
  /** Its version, the `?v=` of its versioned URL. */
  version: string;
  /** The answer at `/assets/<name>`: cached briefly. */
  current: Representation;
  /** The answer at `/assets/<name>?v=<version>`: immutable. */
  pinned: Representation;
}

/** A file loaded on its first request: its version, known beforehand, and its loader. */
export interface SiteFile {
  /** Its version, the `?v=` of its versioned URL. */
  version: string;
  /** Loads its module (once for all its files) and answers its representations. */
  load(): Promise<SiteAsset>;
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
  /** Renders inline Markdown (a notice, the contact form's privacy line) to HTML. */
  renderInlineMarkdown(markdown: string): string;
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

/**
 * The path of a page's Markdown twin: `/md` followed by the page's path (`/md/servicos`,
 * `/md/en/services`; the Portuguese home page's is `/md/`).
 */
export function toMarkdownPath(pagePath: string): string {
  return pagePath === "/" ? "/md/" : "/md" + pagePath;
}

/** Replaces `{base}` with the public origin. */
export function fillBase(text: string, baseUrl: string): string {
  return text.replaceAll("{base}", baseUrl);
}

/**
 * Fills a notice's text: `{base}` with the public origin, each other `{name}` from `values`
 * (placeholders without a value stay as they are).
 *
 * @param text The text, inline Markdown. @param baseUrl The public origin.
 * @param values Values of the placeholders.
 */
export function fillNotice(
  text: string,
  baseUrl: string,
  values: Readonly<Record<string, string>> = {},
): string {
  return fillBase(text, baseUrl).replace(/\{(\w+)\}/g, (all, name: string) => values[name] ?? all);
}

/** The path of a skill's SKILL.md: `/.well-known/agent-skills/<name>/SKILL.md`. */
export function toSkillPath(name: string): string {
  return `${AGENT_SKILLS_PATH}/${name}/SKILL.md`;
}

/**
 * Renders a page built per request (a form's outcome, a booking link's page) in the site's
 * template: not cacheable, not indexed unless the view says so, with the site's security headers.
 *
 * @param site The site.
 * @param language The page's language.
 * @param view Its title, the content of `<main>` (already HTML) and, for a page that has one,
 * the path of its version in the other language (the header's language switch leads there;
 * otherwise to the other language's home page), the assets of its scripts, if any, and whether
 * it may be indexed (no robots meta: a booking's page opened by its link's cookie).
 * @param headers Fields that replace the defaults of the same name, e.g. `Referrer-Policy`.
 * @returns The HTML representation.
 */
export function buildDocumentPage(
  site: Site,
  language: Language,
  view: {
    title: string;
    mainHtml: string;
    otherLanguagePath?: string;
    scripts?: readonly string[];
    indexable?: boolean;
  },
  headers: readonly HeaderPair[] = [],
): Representation {
  const html = site.renderHtml({
    language,
    title: view.title,
    description: view.title,
    mainHtml: view.mainHtml,
    ...(view.otherLanguagePath ? { otherLanguagePath: view.otherLanguagePath } : {}),
    ...(view.scripts ? { scripts: view.scripts } : {}),
    ...(view.indexable ? { indexable: true } : {}),
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
  const text = fillNotice(notice.text, site.baseUrl, values);
  return buildDocumentPage(site, language, {
    title: notice.title,
    mainHtml: `<h1>${site.renderInlineMarkdown(notice.title)}</h1>\n<p>${
      site.renderInlineMarkdown(text)
    }</p>`,
  });
}
