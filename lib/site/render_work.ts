/**
 * The studio's work on the site: the cards of the work index and of the home page (a line
 * `@work all` or `@work selected` in a page's Markdown), the case studies (pages whose layout is
 * `case`: a head with the facts, the hero picture, the story, the gallery, the next project and a
 * call to book) and the Markdown of both, for the pages' twins and llms-full.txt.
 *
 * @module
 */
import {
  type Corpus,
  type CorpusPage,
  type CorpusPicture,
  type Language,
  PICTURE_TYPES,
  type PictureType,
} from "./corpus.ts";
import { escapeHtml } from "../mail/mail.ts";
import { findPage } from "./render_page.ts";

/** A line of a page's Markdown that stands for cards of work. */
const WORK_DIRECTIVE = /^@work (all|selected)[ \t]*$/gm;

/** The case studies of a language, in their order; `selected` keeps those marked for the home. */
export function listProjects(
  corpus: Corpus,
  language: Language,
  which: "all" | "selected" = "all",
): CorpusPage[] {
  return corpus.pages.filter((page) =>
    page.language === language && page.layout === "case" && page.project &&
    (which === "all" || page.project.selected)
  );
}

/**
 * The Markdown a page publishes: its own, with each `@work` line turned into a list of case
 * studies, and for a case study its facts after the H1 and its gallery at the end.
 *
 * @param corpus The corpus. @param page The page.
 * @returns Markdown, links still relative.
 */
export function toPageMarkdown(corpus: Corpus, page: CorpusPage): string {
  let markdown = page.markdown.replace(
    WORK_DIRECTIVE,
    (_line, which: "all" | "selected") =>
      listProjects(corpus, page.language, which).map((item) =>
        `- **[${item.title}](${item.path})**: ${item.project?.summary} _(${item.project?.year})_`
      ).join("\n"),
  );
  const project = page.project;
  const text = corpus.languages[page.language].work;
  if (project && text) {
    const facts = [
      `- ${text.client}: ${project.client}`,
      `- ${text.year}: ${project.year}`,
      `- ${text.services}: ${project.tags.join(", ")}`,
    ].join("\n");
    markdown = markdown.replace(/^# .*\n/, (heading) => `${heading}\n${facts}\n`);
    // A photo's source is not served: its largest JPEG rendition stands for it.
    const pictures = [project.cover, ...project.gallery]
      .map((picture) => `![${picture.alt}](/assets/${picture.fallback ?? picture.src})`)
      .join("\n\n");
    markdown = `${markdown.trimEnd()}\n\n## ${text.gallery}\n\n${pictures}\n`;
  }
  return markdown;
}

/** How a picture is shown: where it stands (its `sizes`), and whether it is the hero. */
interface PictureOptions {
  /** The `sizes` of its slot in the layout. @default {"100vw"} */
  sizes?: string;
  /** The page's largest picture, in the first viewport: fetched first, never lazily. */
  hero?: boolean;
  /** Replaces the picture's text alternative (`""` for a decorative picture). */
  alt?: string;
}

/** The format of a photo's `<img>`, which every browser shows; the others are `<source>`s. */
const FALLBACK_TYPE = "image/jpeg";

/**
 * A picture with its intrinsic size: a `<picture>` offering its AVIF and WebP renditions by
 * width (`srcset` and `sizes`), and as the `<img>` fallback an SVG's source or a photo's JPEG
 * renditions; lazy unless it is the hero, which is fetched with high priority. Without
 * renditions, the SVG alone; a photo whose renditions cannot be served (a corpus without its
 * loader of files), nothing.
 */
function renderImage(
  picture: CorpusPicture,
  assetUrls: Readonly<Record<string, string>>,
  options: PictureOptions = {},
): string {
  const url = (name: string) => assetUrls[name] ?? `/assets/${name}`;
  if (picture.fallback && !(picture.fallback in assetUrls)) return "";
  // Only renditions the site can serve (a corpus without its loader has none).
  const renditions = (picture.renditions ?? []).filter((item) => item.name in assetUrls);
  const sizes = options.sizes ?? "100vw";
  const srcset = (type: PictureType) =>
    renditions.filter((item) => item.type === type)
      .map((item) => `${url(item.name)} ${item.width}w`).join(", ");
  const loading = options.hero
    ? ' fetchpriority="high" loading="eager"'
    : ' loading="lazy" decoding="async"';
  const image = `<img src="${url(picture.fallback ?? picture.src)}"${
    picture.fallback ? ` srcset="${srcset(FALLBACK_TYPE)}" sizes="${sizes}"` : ""
  } width="${picture.width}" height="${picture.height}" alt="${
    escapeHtml(options.alt ?? picture.alt)
  }"${loading}>`;
  if (!renditions.length) return image;
  const sources = PICTURE_TYPES.filter((type) => type !== FALLBACK_TYPE).map((type) => {
    const candidates = srcset(type);
    return candidates ? `<source type="${type}" srcset="${candidates}" sizes="${sizes}">` : "";
  });
  return `<picture>${sources.join("")}${image}</picture>`;
}

/**
 * Renders cards of case studies: cover, tags, title (the link) and summary.
 *
 * @param pages The case studies.
 * @param assetUrls The versioned asset URLs.
 * @param options The level of the cards' titles (@default {3}), the covers' `sizes`, and whether
 * the first card opens the page (the work index: its cover is then fetched first, not lazily).
 * @returns A `<ul class="work-grid">`.
 */
export function renderWorkCards(
  pages: readonly CorpusPage[],
  assetUrls: Readonly<Record<string, string>>,
  options: { headingLevel?: 2 | 3; sizes?: string; leading?: boolean } = {},
): string {
  const headingLevel = options.headingLevel ?? 3;
  const cards = pages.map((page, index) => {
    const project = page.project;
    if (!project) return "";
    // The title names the link; the cover's text would repeat it, so the image is decorative.
    return `<li class="card">${
      renderImage(project.cover, assetUrls, {
        alt: "",
        sizes: options.sizes,
        hero: options.leading && index === 0,
      })
    }<h${headingLevel}><a href="${page.path}">${escapeHtml(page.title)}</a></h${headingLevel}><p>${
      escapeHtml(project.summary)
    }</p>${renderTags(project.tags)}</li>`;
  });
  return `<ul class="work-grid">${cards.join("")}</ul>`;
}

function renderTags(tags: readonly string[]): string {
  return `<ul class="tags">${tags.map((tag) => `<li>${escapeHtml(tag)}</li>`).join("")}</ul>`;
}

/**
 * Replaces the paragraphs that `@work` lines became with cards.
 *
 * @param html The page's HTML. @param corpus The corpus. @param language The page's language.
 * @param assetUrls The versioned asset URLs.
 */
export function expandWorkCards(
  html: string,
  corpus: Corpus,
  language: Language,
  assetUrls: Readonly<Record<string, string>>,
): string {
  return html.replace(
    /<p>@work (all|selected)<\/p>\n?/g,
    (_all, which: "all" | "selected") =>
      // The whole index stands under the H1; a selection under a section's H2.
      renderWorkCards(listProjects(corpus, language, which), assetUrls, {
        headingLevel: which === "all" ? 2 : 3,
        sizes: corpus.design?.pictureSizes?.card,
        // The index's first card stands in the first viewport, its cover the page's largest
        // picture; a selection comes after the home page's hero, out of view.
        leading: which === "all",
      }) + "\n",
  );
}

/**
 * Wraps a home page's H1 and the paragraphs before its first H2 in the wide hero.
 *
 * @param html The home page's HTML.
 */
export function renderHero(html: string): string {
  const cut = html.indexOf("<h2");
  const head = cut < 0 ? html : html.slice(0, cut);
  return `<div class="hero">\n${head.trim()}\n</div>\n${cut < 0 ? "" : html.slice(cut)}`;
}

/**
 * Renders a case study: the head (H1, lede and facts), the hero picture, the story, the gallery,
 * the next project and the call to book.
 *
 * @param corpus The corpus. @param page The case study. @param bodyHtml Its Markdown as HTML.
 * @param assetUrls The versioned asset URLs.
 * @returns The content of `<main>`.
 */
export function renderCaseStudy(
  corpus: Corpus,
  page: CorpusPage,
  bodyHtml: string,
  assetUrls: Readonly<Record<string, string>>,
): string {
  const project = page.project;
  const text = corpus.languages[page.language].work;
  if (!project || !text) return bodyHtml;
  const cut = bodyHtml.indexOf("<h2");
  const head = (cut < 0 ? bodyHtml : bodyHtml.slice(0, cut)).replace("<p>", '<p class="lede">');
  const story = cut < 0 ? "" : bodyHtml.slice(cut);
  const fact = (term: string, value: string) =>
    `<div><dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd></div>`;
  const projects = listProjects(corpus, page.language);
  const next = projects[
    (projects.findIndex((item) => item.path === page.path) + 1) %
    projects.length
  ];
  const settings = corpus.languages[page.language];
  const booking = findPage(corpus, settings.callToAction, page.language);
  const sizes = corpus.design?.pictureSizes;
  const gallerySizes = sizes?.gallery[Math.min(project.gallery.length, sizes.gallery.length) - 1];
  const gallery = project.gallery.map((picture) => {
    const image = renderImage(picture, assetUrls, { sizes: gallerySizes });
    return image
      ? `<figure>${image}${
        picture.caption ? `<figcaption>${escapeHtml(picture.caption)}</figcaption>` : ""
      }</figure>`
      : "";
  }).join("");
  const hero = renderImage(project.cover, assetUrls, { hero: true, sizes: sizes?.wide });
  return [
    `<div class="case-head"><div>${head.trim()}</div><dl class="facts">${
      fact(text.client, project.client)
    }${fact(text.year, project.year)}${fact(text.services, project.tags.join(", "))}</dl></div>`,
    hero ? `<figure class="case-hero">${hero}</figure>` : "",
    story.trim(),
    gallery
      ? `<h2 class="wide" id="gallery">${
        escapeHtml(text.gallery)
      }</h2>\n<div class="gallery">${gallery}</div>`
      : "",
    next && next.path !== page.path
      ? `<section class="next-project" aria-labelledby="next-project"><h2 id="next-project">${
        escapeHtml(text.next)
      }</h2>${renderWorkCards([next], assetUrls, { sizes: sizes?.card })}</section>`
      : "",
    `<section class="call" aria-labelledby="call"><h2 id="call">${
      escapeHtml(text.callTitle)
    }</h2><p>${escapeHtml(text.callText)}</p><a href="${booking.path}">${
      escapeHtml(text.callLink)
    }</a></section>`,
  ].filter(Boolean).join("\n");
}
