/**
 * The site's one HTML template: language attribute, title and description, canonical and
 * alternate-language links, the sharing tags (Open Graph, Twitter card), the icons, manifest and
 * `theme-color` of each scheme, the preloaded web font, the link to the page's Markdown twin, a
 * skip link, the navigation with the studio's logo and the language switch, and a footer with
 * the studio's details; a workspace behind a sign-in (the team's desk) has a header of its own
 * and no footer.
 *
 * @module
 */
import { renderJsonLd } from "./build_json_ld.ts";
import { API_REFERENCE_PATHS } from "../contract/contract.ts";
import type { Corpus, CorpusPage, Language } from "./corpus.ts";
import { escapeHtml } from "../mail/mail.ts";

/** What one HTML page shows. */
export interface PageView {
  /** The corpus the page belongs to. */
  corpus: Corpus;
  /** The page's language. */
  language: Language;
  /** The public origin, for absolute canonical and alternate links. */
  baseUrl: string;
  /** The page's own title, without the studio's name. */
  title: string;
  /** The meta description. */
  description: string;
  /** The content of `<main>`, already HTML. */
  mainHtml: string;
  /** The page of the corpus shown, for canonical and alternate links and the current nav item. */
  page?: CorpusPage;
  /** The page in the other language. */
  translation?: CorpusPage;
  /**
   * Where the language switch leads on a page outside the corpus (the team's desk leads to the
   * other language's desk); without it, and without a translation, to the other home page.
   */
  otherLanguagePath?: string;
  /** Path of the page's Markdown twin. */
  markdownPath?: string;
  /**
   * A page outside the corpus that may be indexed: the template writes no robots meta on it (a
   * booking's page opened by its link's cookie, whose URL shows nothing without the cookie).
   */
  indexable?: boolean;
  /** URLs of the assets by file name (`site.css` → `/assets/site.css?v=…`). */
  assetUrls: Readonly<Record<string, string>>;
  /** Scripts to load, by asset name. */
  scripts?: readonly string[];
  /**
   * A workspace behind a sign-in (the team's desk), which has a header of its own: the studio's
   * logo and name with the workspace's, the language switch and the workspace's tools (who is
   * signed in, signing out), without the public navigation, its call to action or the footer.
   */
  workspace?: Workspace;
}

/** The header of a workspace behind a sign-in: see {@linkcode PageView.workspace}. */
export interface Workspace {
  /** Its name beside the studio's, e.g. `Desk`. */
  name: string;
  /** Where the logo leads: the workspace's first page. */
  homePath: string;
  /** Its tools at the header's end, already HTML (e.g. the member and a sign-out form). */
  toolsHtml?: string;
}

/** Finds the page with `id` in `language`; the corpus was checked, so it exists. */
export function findPage(corpus: Corpus, id: string, language: Language): CorpusPage {
  const page = corpus.pages.find((item) => item.id === id && item.language === language);
  if (!page) throw new Error(`No page "${id}" in "${language}"`);
  return page;
}

const OTHER: Record<Language, Language> = { pt: "en", en: "pt" };

/** The path of a language's home page. */
function toHomePath(language: Language): string {
  return language === "pt" ? "/" : "/en";
}

/** An asset's versioned URL, or its plain one when the site has no version for it. */
function toAssetUrl(view: PageView, name: string): string {
  return view.assetUrls[name] ?? `/assets/${name}`;
}

/**
 * The `<head>`'s links and sharing tags of a page of the corpus: canonical, the alternate
 * languages of an indexed page, Open Graph and, with the studio's design, the sharing card.
 */
function renderPageLinks(view: PageView, page: CorpusPage): string[] {
  const { corpus, language, baseUrl, translation } = view;
  const design = corpus.design;
  const url = baseUrl + page.path;
  const links = [`<link rel="canonical" href="${url}">`];
  if (translation && page.indexed) {
    const byLanguage = { [language]: page, [OTHER[language]]: translation };
    for (const code of ["pt", "en"] as const) {
      links.push(
        `<link rel="alternate" hreflang="${corpus.languages[code].tag}" href="${
          baseUrl + byLanguage[code].path
        }">`,
      );
    }
    links.push(
      `<link rel="alternate" hreflang="x-default" href="${baseUrl + byLanguage.pt.path}">`,
    );
  }
  links.push(
    `<meta property="og:title" content="${escapeHtml(view.title)}">`,
    `<meta property="og:description" content="${escapeHtml(view.description)}">`,
    `<meta property="og:url" content="${url}">`,
    '<meta property="og:type" content="website">',
    `<meta property="og:site_name" content="${escapeHtml(corpus.name)}">`,
    `<meta property="og:locale" content="${corpus.languages[language].tag.replace("-", "_")}">`,
  );
  // The page's own card where the site can serve it (its title drawn on it), else the studio's
  // card (the size is the same); none when the site cannot serve that either (a corpus whose
  // files have no loader).
  const own = page.card !== undefined && page.card in view.assetUrls ? page.card : undefined;
  const cardName = own ?? design?.card.name;
  if (design && cardName !== undefined && cardName in view.assetUrls) {
    const card = baseUrl + toAssetUrl(view, cardName);
    links.push(
      `<meta property="og:image" content="${card}">`,
      `<meta property="og:image:type" content="image/png">`,
      `<meta property="og:image:width" content="${design.card.width}">`,
      `<meta property="og:image:height" content="${design.card.height}">`,
      `<meta property="og:image:alt" content="${
        escapeHtml(own ? `${view.title} · ${corpus.name}` : corpus.name)
      }">`,
      '<meta name="twitter:card" content="summary_large_image">',
      `<meta name="twitter:title" content="${escapeHtml(view.title)}">`,
      `<meta name="twitter:description" content="${escapeHtml(view.description)}">`,
      `<meta name="twitter:image" content="${card}">`,
    );
  }
  return links;
}

/** The `<head>`'s elements: title, description, theme, structured data, links, styles, scripts. */
function renderHead(view: PageView): string[] {
  const { corpus, language, baseUrl, page } = view;
  const settings = corpus.languages[language];
  const isHome = page?.path === toHomePath(language);
  const title = isHome ? `${corpus.name} · ${view.title}` : `${view.title} · ${corpus.name}`;
  const design = corpus.design;
  const head = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<meta name="description" content="${escapeHtml(view.description)}">`,
  ];
  if (design) {
    head.push(
      '<meta name="color-scheme" content="light dark">',
      `<meta name="theme-color" media="(prefers-color-scheme: light)" content="${design.themeColors.light}">`,
      `<meta name="theme-color" media="(prefers-color-scheme: dark)" content="${design.themeColors.dark}">`,
      `<link rel="preload" href="${
        toAssetUrl(view, design.font)
      }" as="font" type="font/woff2" crossorigin>`,
    );
  }
  if (!view.indexable && (!page || !page.indexed)) {
    head.push('<meta name="robots" content="noindex">');
  }
  head.push(renderJsonLd(view));
  if (page) head.push(...renderPageLinks(view, page));
  if (design) {
    head.push(
      '<link rel="icon" href="/favicon.ico" sizes="32x32">',
      `<link rel="icon" href="${toAssetUrl(view, "favicon.svg")}" type="image/svg+xml">`,
      `<link rel="apple-touch-icon" href="${toAssetUrl(view, "apple-touch-icon.png")}">`,
      `<link rel="manifest" href="${toAssetUrl(view, "site.webmanifest")}">`,
    );
  }
  if (view.markdownPath) {
    head.push(
      `<link rel="alternate" type="text/markdown" href="${baseUrl + view.markdownPath}" title="${
        escapeHtml(settings.text.markdownLink)
      }">`,
    );
  }
  head.push(`<link rel="stylesheet" href="${view.assetUrls["site.css"]}">`);
  for (const script of view.scripts ?? []) {
    head.push(`<script src="${view.assetUrls[script]}" defer></script>`);
  }
  return head;
}

/** A link of the navigation or the footer, marked current on its page or its section's. */
function renderNavLink(page: CorpusPage | undefined, target: CorpusPage, className?: string) {
  // The page itself, or (a case study under the work index) the section it belongs to.
  const current = page?.path === target.path
    ? ' aria-current="page"'
    : page?.path.startsWith(target.path + "/") && target.path !== "/en"
    ? ' aria-current="true"'
    : "";
  const classes = className ? ` class="${className}"` : "";
  return `<a href="${target.path}"${classes}${current}>${escapeHtml(target.label)}</a>`;
}

/** The language switch: the other language's name (its code on a phone). */
function renderLanguageSwitch(view: PageView): string {
  const { corpus, language, translation } = view;
  const other = corpus.languages[OTHER[language]];
  const switchTarget = translation?.path ?? view.otherLanguagePath ?? toHomePath(OTHER[language]);
  return `<a class="lang" href="${
    escapeHtml(switchTarget)
  }" hreflang="${other.tag}" lang="${other.tag}"><span class="lang-name">${
    escapeHtml(other.label)
  }</span><span class="lang-code">${escapeHtml(other.tag.split("-")[0].toUpperCase())}</span></a>`;
}

/** The studio's logo, for the brand link; none without a design. */
function renderLogo(view: PageView): string {
  const design = view.corpus.design;
  return design ? design.logoSvg.replace(/^<svg\b/, '<svg aria-hidden="true"') : "";
}

/** A workspace's header: the brand with the workspace's name, the language switch, its tools. */
function renderWorkspaceHeader(view: PageView, workspace: Workspace): string[] {
  return [
    '<header class="site-header workspace-header">',
    `<a class="brand" href="${escapeHtml(workspace.homePath)}">${renderLogo(view)}<span>${
      escapeHtml(view.corpus.name)
    }</span><span class="workspace-name">${escapeHtml(workspace.name)}</span></a>`,
    renderLanguageSwitch(view),
    workspace.toolsHtml ? `<div class="workspace-tools">${workspace.toolsHtml}</div>` : "",
    "</header>",
  ].filter(Boolean);
}

/**
 * The site's header: the studio's logo and name, the language switch, the navigation and the
 * call to action (the booking page); a workspace's own header instead on a workspace's page.
 */
function renderHeader(view: PageView): string[] {
  if (view.workspace) return renderWorkspaceHeader(view, view.workspace);
  const { corpus, language, page } = view;
  const settings = corpus.languages[language];
  const nav = settings.nav.map((id) =>
    `<li>${renderNavLink(page, findPage(corpus, id, language))}</li>`
  );
  // The call to action stands apart from the navigation, so that a phone's first row shows it
  // beside the studio's name rather than at the end of a row of links.
  const callToAction = renderNavLink(
    page,
    findPage(corpus, settings.callToAction, language),
    "cta",
  );
  return [
    '<header class="site-header">',
    `<a class="brand" href="${toHomePath(language)}">${renderLogo(view)}<span>${
      escapeHtml(corpus.name)
    }<small>${escapeHtml(settings.tagline)}</small></span></a>`,
    renderLanguageSwitch(view),
    `<nav aria-label="${escapeHtml(settings.text.navLabel)}"><ul>${nav.join("")}</ul></nav>`,
    callToAction,
    "</header>",
  ];
}

/** The site's footer: the studio's details, the footer's links and the links for software. */
function renderFooter(view: PageView): string[] {
  const { corpus, language, page } = view;
  const settings = corpus.languages[language];
  const footerLinks = settings.footer.map((id) =>
    `<li>${renderNavLink(page, findPage(corpus, id, language))}</li>`
  );
  const machine = [
    view.markdownPath
      ? `<a href="${view.markdownPath}" type="text/markdown">${
        escapeHtml(settings.text.markdownLink)
      }</a>`
      : "",
    `<a href="${language === "pt" ? "" : "/en"}/llms.txt">llms.txt</a>`,
    `<a href="${API_REFERENCE_PATHS[language]}">${
      escapeHtml(settings.text.apiReference ?? "API")
    }</a>`,
    '<a href="/sitemap.xml">sitemap.xml</a>',
  ].filter(Boolean).join(" · ");
  return [
    '<footer class="site-footer">',
    `<p><strong>${escapeHtml(corpus.name)}</strong> · ${escapeHtml(settings.tagline)}<br>${
      escapeHtml(corpus.address)
    } · <a href="mailto:${escapeHtml(corpus.email)}">${escapeHtml(corpus.email)}</a></p>`,
    `<ul>${footerLinks.join("")}</ul>`,
    `<p class="small">${escapeHtml(settings.text.machineLinks)}: ${machine}</p>`,
    "</footer>",
  ];
}

/**
 * Renders a complete HTML document.
 *
 * @param view The page's content and context.
 * @returns The document, `<!doctype html>` first.
 */
export function renderPage(view: PageView): string {
  const settings = view.corpus.languages[view.language];
  return [
    "<!doctype html>",
    `<html lang="${settings.tag}">`,
    "<head>",
    ...renderHead(view),
    "</head>",
    `<body class="layout-${view.workspace ? "workspace" : view.page?.layout ?? "page"}">`,
    `<a class="skip" href="#main">${escapeHtml(settings.text.skipLink)}</a>`,
    ...renderHeader(view),
    '<main id="main" tabindex="-1">',
    view.mainHtml.trim(),
    "</main>",
    ...(view.workspace ? [] : renderFooter(view)),
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
