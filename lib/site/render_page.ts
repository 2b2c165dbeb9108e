/**
 * The site's one HTML template: language attribute, title and description, canonical and
 * alternate-language links, the sharing tags (Open Graph, Twitter card), the icons, manifest and
 * `theme-color` of each scheme, the preloaded web font, the link to the page's Markdown twin, a
 * skip link, the navigation with the studio's logo and the language switch, and a footer with
 * the studio's details.
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
  /** Path of the page's Markdown twin. */
  markdownPath?: string;
  /** URLs of the assets by file name (`site.css` → `/assets/site.css?v=…`). */
  assetUrls: Readonly<Record<string, string>>;
  /** Scripts to load, by asset name. */
  scripts?: readonly string[];
}

/** Finds the page with `id` in `language`; the corpus was checked, so it exists. */
export function findPage(corpus: Corpus, id: string, language: Language): CorpusPage {
  const page = corpus.pages.find((item) => item.id === id && item.language === language);
  if (!page) throw new Error(`No page "${id}" in "${language}"`);
  return page;
}

const OTHER: Record<Language, Language> = { pt: "en", en: "pt" };

/**
 * Renders a complete HTML document.
 *
 * @param view The page's content and context.
 * @returns The document, `<!doctype html>` first.
 */
export function renderPage(view: PageView): string {
  const { corpus, language, baseUrl, page, translation } = view;
  const settings = corpus.languages[language];
  const other = corpus.languages[OTHER[language]];
  const home = language === "pt" ? "/" : "/en";
  const isHome = page?.path === home;
  const title = isHome ? `${corpus.name} · ${view.title}` : `${view.title} · ${corpus.name}`;
  const design = corpus.design;
  const assetUrl = (name: string) => view.assetUrls[name] ?? `/assets/${name}`;
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
        assetUrl(design.font)
      }" as="font" type="font/woff2" crossorigin>`,
    );
  }
  if (!page || !page.indexed) head.push('<meta name="robots" content="noindex">');
  head.push(renderJsonLd(view));
  if (page) {
    const url = baseUrl + page.path;
    head.push(`<link rel="canonical" href="${url}">`);
    if (translation && page.indexed) {
      const byLanguage = { [language]: page, [OTHER[language]]: translation };
      for (const code of ["pt", "en"] as const) {
        head.push(
          `<link rel="alternate" hreflang="${corpus.languages[code].tag}" href="${
            baseUrl + byLanguage[code].path
          }">`,
        );
      }
      head.push(
        `<link rel="alternate" hreflang="x-default" href="${baseUrl + byLanguage.pt.path}">`,
      );
    }
    head.push(
      `<meta property="og:title" content="${escapeHtml(view.title)}">`,
      `<meta property="og:description" content="${escapeHtml(view.description)}">`,
      `<meta property="og:url" content="${url}">`,
      '<meta property="og:type" content="website">',
      `<meta property="og:site_name" content="${escapeHtml(corpus.name)}">`,
      `<meta property="og:locale" content="${settings.tag.replace("-", "_")}">`,
    );
    if (design) {
      // The page's own card where the site can serve it (its title drawn on it), else the
      // studio's card; the size is the same.
      const own = page.card !== undefined && page.card in view.assetUrls ? page.card : undefined;
      const card = baseUrl + assetUrl(own ?? design.card.name);
      head.push(
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
  }
  if (design) {
    head.push(
      '<link rel="icon" href="/favicon.ico" sizes="32x32">',
      `<link rel="icon" href="${assetUrl("favicon.svg")}" type="image/svg+xml">`,
      `<link rel="apple-touch-icon" href="${assetUrl("apple-touch-icon.png")}">`,
      `<link rel="manifest" href="${assetUrl("site.webmanifest")}">`,
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

  const link = (target: CorpusPage, className?: string) => {
    // The page itself, or (a case study under the work index) the section it belongs to.
    const current = page?.path === target.path
      ? ' aria-current="page"'
      : page?.path.startsWith(target.path + "/") && target.path !== "/en"
      ? ' aria-current="true"'
      : "";
    const classes = className ? ` class="${className}"` : "";
    return `<a href="${target.path}"${classes}${current}>${escapeHtml(target.label)}</a>`;
  };
  const nav = settings.nav.map((id) => `<li>${link(findPage(corpus, id, language))}</li>`);
  nav.push(`<li>${link(findPage(corpus, settings.callToAction, language), "cta")}</li>`);
  const switchTarget = translation?.path ?? (language === "pt" ? "/en" : "/");
  const header = [
    '<header class="site-header">',
    `<a class="brand" href="${home}">${
      design ? design.logoSvg.replace(/^<svg\b/, '<svg aria-hidden="true"') : ""
    }<span>${escapeHtml(corpus.name)}<small>${escapeHtml(settings.tagline)}</small></span></a>`,
    `<a class="lang" href="${switchTarget}" hreflang="${other.tag}" lang="${other.tag}">${
      escapeHtml(other.label)
    }</a>`,
    `<nav aria-label="${escapeHtml(settings.text.navLabel)}"><ul>${nav.join("")}</ul></nav>`,
    "</header>",
  ];

  const footerLinks = settings.footer.map((id) =>
    `<li>${link(findPage(corpus, id, language))}</li>`
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
  const footer = [
    '<footer class="site-footer">',
    `<p><strong>${escapeHtml(corpus.name)}</strong> · ${escapeHtml(settings.tagline)}<br>${
      escapeHtml(corpus.address)
    } · <a href="mailto:${escapeHtml(corpus.email)}">${escapeHtml(corpus.email)}</a></p>`,
    `<ul>${footerLinks.join("")}</ul>`,
    `<p class="small">${escapeHtml(settings.text.machineLinks)}: ${machine}</p>`,
    "</footer>",
  ];

  return [
    "<!doctype html>",
    `<html lang="${settings.tag}">`,
    "<head>",
    ...head,
    "</head>",
    `<body class="layout-${page?.layout ?? "page"}">`,
    `<a class="skip" href="#main">${escapeHtml(settings.text.skipLink)}</a>`,
    ...header,
    '<main id="main" tabindex="-1">',
    view.mainHtml.trim(),
    "</main>",
    ...footer,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
