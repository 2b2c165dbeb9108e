/**
 * The site's content as data: the Markdown pages of both languages, the studio's facts and the
 * interface text, as `scripts/build_content.ts` compiles them from `content/` into
 * `build/corpus.generated.ts`. A library user may pass a corpus of their own to
 * `createHandler({ content })`; `checkCorpus` (`check_corpus.ts`) checks it once, when the handler
 * is created.
 *
 * This module is the corpus's shape only: its validators, which share the interfaces' names, live
 * in `check_corpus.ts`, because a value and a type of one name in one module are one symbol to
 * `deno doc`, which would publish each struct (and superstruct's types) with its interface.
 *
 * @module
 */

/** The site's languages: Portuguese (PT-PT) at bare paths, English under `/en`. */
export const LANGUAGES = ["pt", "en"] as const;

/** One of the site's languages. */
export type Language = typeof LANGUAGES[number];

/** The llms.txt section a page is listed under (`optional` is llmstxt.org's "Optional"). */
export const PAGE_SECTIONS = ["studio", "services", "contact", "agents", "optional"] as const;

/** An llms.txt section. */
export type PageSection = typeof PAGE_SECTIONS[number];

/**
 * What the HTML template makes of a page: a page of text, the contact form or the booking form
 * after it, the home page (a wide hero), the work index (a grid of case studies) or a case study.
 */
export const PAGE_LAYOUTS = ["page", "contact", "booking", "home", "work", "case"] as const;

/** A page layout. */
export type PageLayout = typeof PAGE_LAYOUTS[number];

/**
 * The formats a picture's renditions are encoded in, best first: `<picture>` offers AVIF and WebP
 * as `<source>`s in this order, and a photo's JPEG renditions are its `<img>`, which every browser
 * shows.
 */
export const PICTURE_TYPES = ["image/avif", "image/webp", "image/jpeg"] as const;

/** A picture's encoded format. */
export type PictureType = typeof PICTURE_TYPES[number];

/**
 * A rendition of a picture: one format at one width, a file of {@linkcode Corpus.files} (its bytes
 * are loaded on demand, not with the corpus).
 */
export interface CorpusRendition {
  /** The file's name, e.g. `work-mare-alta-cover-960.avif`. */
  name: string;
  /** Its media type. */
  type: PictureType;
  /** Its width, in pixels. */
  width: number;
  /** Its height, in pixels. */
  height: number;
}

/**
 * A picture of the corpus: a drawing (an SVG asset) or a photo (JPEG, PNG, WebP or AVIF, served
 * only as its renditions), its intrinsic size and its text alternative.
 */
export interface CorpusPicture {
  /**
   * Its source's file name, e.g. `work-mare-alta-cover.svg`: an SVG is an asset, the `<img>`'s
   * fallback; a photo's source is not served.
   */
  src: string;
  /** What the picture shows, for people who cannot see it. */
  alt: string;
  /** Intrinsic width, in CSS pixels. */
  width: number;
  /** Intrinsic height, in CSS pixels. */
  height: number;
  /** An optional caption. */
  caption?: string;
  /**
   * Its raster renditions (AVIF and WebP at a few widths, and JPEG for a photo), served through
   * `<picture>`.
   */
  renditions?: CorpusRendition[];
  /**
   * A photo's fallback: its largest JPEG rendition, a file of {@linkcode Corpus.files}, which the
   * `<img>` shows and the Markdown links. Absent for an SVG, its own fallback.
   */
  fallback?: string;
}

/** The facts of a case study (front matter `project` of a page whose layout is `case`). */
export interface CorpusProject {
  /** The client's name. */
  client: string;
  /** The year or years of the work, e.g. `2025` or `2024–2026`. */
  year: string;
  /** What the studio did. */
  tags: string[];
  /** One sentence for the card. */
  summary: string;
  /** Whether the home page shows it among the selected work. */
  selected: boolean;
  /** The cover: the card's picture and the case study's hero. */
  cover: CorpusPicture;
  /** The gallery. */
  gallery: CorpusPicture[];
}

/** One page in one language. */
export interface CorpusPage {
  /** Identifier shared by a page and its translation, e.g. `services`. */
  id: string;
  /** The page's language. */
  language: Language;
  /** The page's path: bare for Portuguese (`/servicos`), under `/en` for English. */
  path: string;
  /** The `<title>`, usually the H1's text too. */
  title: string;
  /** A short name for navigation and links (the title, unless the front matter gives one). */
  label: string;
  /** One or two sentences: the meta description and the note in llms.txt. */
  description: string;
  /** Last change of the page, `YYYY-MM-DD` (the sitemap's `lastmod`). */
  updated: string;
  /** Position in listings (llms.txt, llms-full.txt, sitemap). */
  order: number;
  /** The llms.txt section it is listed under. */
  section: PageSection;
  /** What the HTML template adds after the Markdown. */
  layout: PageLayout;
  /** Whether it is listed in the sitemap and llms.txt and may be indexed (a thank-you page is not). */
  indexed: boolean;
  /** The body in Markdown, starting with its H1. */
  markdown: string;
  /** A case study's facts and pictures. */
  project?: CorpusProject;
  /** The page's sharing card (`og:image`): a file of {@linkcode Corpus.files}. */
  card?: string;
}

/** The text of a page that has no path of its own (the 404 page). */
export interface PageText {
  /** The `<title>`. */
  title: string;
  /** The meta description. */
  description: string;
  /** The body in Markdown, starting with its H1. */
  markdown: string;
}

/** A titled message shown to people, its text in inline Markdown. */
export interface Notice {
  /** The page's title and H1. */
  title: string;
  /** One paragraph of inline Markdown; `{name}` placeholders are filled when it is shown. */
  text: string;
}

/** The contact form's labels and messages. */
export interface ContactFormText {
  /** The id of the page a person sees after sending the form. */
  thanksPage: string;
  /** The form's `<legend>`. */
  legend: string;
  /** The label of the first `Name` field (the first name; the form posts two `Name` fields). */
  firstName: string;
  /** The label of the second `Name` field (the last name, optional). */
  lastName: string;
  /** The label of `Email`. */
  email: string;
  /** The label of `Category`, the kind of work. */
  category: string;
  /** The label of the empty choice of `Category`. */
  categoryNone: string;
  /** The choices of `Category`: the value sent and its label. */
  categories: Array<{ value: string; label: string }>;
  /** The label of `Message`. */
  message: string;
  /** The hint under `Message`: what to write. */
  messageHint: string;
  /** The word after a required field's label. */
  required: string;
  /** The send button's words. */
  submit: string;
  /** Inline Markdown under the form. */
  privacy: string;
  /** The heading of the list of problems after a failed submission. */
  errorSummary: string;
  /** Messages per kind of field problem; `{min}` and `{max}` are replaced by the bounds. */
  problems: Record<"missing" | "type" | "length" | "format" | "enum", string>;
  /** The body did not parse. */
  badForm: Notice;
  /** The body was larger than the form takes; `{max}` is the bound in KiB. */
  tooLarge: Notice;
  /** The write quota is exhausted; `{seconds}` is the wait. */
  rateLimited: Notice;
  /** The inquiry could not be stored. */
  noBackend: Notice;
  /** The form was posted from a page of another origin; `{base}` is the site's origin. */
  originRejected: Notice;
}

/** The booking widget's labels and messages (its script reads them from a JSON data block). */
export interface BookingText {
  /** While a month's free times load. */
  loading: string;
  /** The name of the month bar (its `aria-label`). */
  month: string;
  /** The link to the previous month. */
  previousMonth: string;
  /** The link to the next month. */
  nextMonth: string;
  /** The `<legend>` of the month's free times, grouped by day. */
  days: string;
  /** A month without free times. */
  noSlots: string;
  /** The free times could not be read. */
  slotsFailed: string;
  /** The widget's heading. */
  chooseTime: string;
  /**
   * The note naming the times' zone: `{zone}` is filled with the schedule's zone named for people
   * in the page's language, `{timeZone}` with its IANA id, e.g. "Times in {zone} ({timeZone})."
   */
  timeZone: string;
  /** The label of the attendee's name. */
  name: string;
  /** The label of the attendee's e-mail address, where the invitation goes. */
  email: string;
  /** The label of the company (optional). */
  company: string;
  /** The label of the topic: what the conversation is about. */
  topic: string;
  /** The hint under the topic: what to write, and how much (at least 10 characters). */
  topicHint: string;
  /** The word after an optional field's label. */
  optional: string;
  /** The booking button's words. */
  submit: string;
  /** Shown while the booking is sent. */
  sending: string;
  /** 201 `accepted`; `{time}` and `{attendee}` are filled in. */
  accepted: string;
  /** 201 `pending`; `{time}` and `{attendee}` are filled in. */
  pending: string;
  /** 409: the time was taken. */
  conflict: string;
  /** 503 or a lost answer: check the mailbox before any retry. */
  uncertain: string;
  /** 400; `{fields}` names the fields. */
  invalid: string;
  /** 403; `{base}` is the site's origin. */
  originRejected: string;
  /** 429; `{seconds}` is the wait. */
  rateLimited: string;
  /** 429: the attendee's address had its bookings of the day; `{attendee}` is the address. */
  attendeeLimited: string;
  /** 503 when nothing was booked: a calendar or the store could not be read. */
  unavailable: string;
  /** 400: the form's body did not parse (the page without JavaScript). */
  unreadable: string;
  /** 413: the form's body was too large; `{max}` is the bound in KiB. */
  tooLarge: string;
  /** Any other failure. */
  failed: string;
  /** Sent without a time chosen. */
  missingTime: string;
}

/** The labels of the case studies and of the work cards. */
export interface WorkText {
  /** The term of a case study's client, among its facts. */
  client: string;
  /** The term of the year or years of the work. */
  year: string;
  /** The term of what the studio did (the project's tags). */
  services: string;
  /** The gallery's heading. */
  gallery: string;
  /** The heading above the next project's card. */
  next: string;
  /** The heading of the call to book at the end of a case study. */
  callTitle: string;
  /** The call's text. */
  callText: string;
  /** The words of the call's link to the booking page. */
  callLink: string;
}

/** Everything the site says in one language besides its pages. */
export interface LanguageSettings {
  /** BCP 47 tag for `lang`, `hreflang` and the sitemap: `pt-PT`, `en`. */
  tag: string;
  /** The language's name in itself, for the language switch: `Português`, `English`. */
  label: string;
  /** One line under the studio's name. */
  tagline: string;
  /** The site summary: llms.txt's blockquote. */
  summary: string;
  /** Page ids in the main navigation. */
  nav: string[];
  /** The page id of the navigation's call to action (booking). */
  callToAction: string;
  /** Page ids linked in the footer. */
  footer: string[];
  /** Interface text of the template. */
  text: {
    skipLink: string;
    navLabel: string;
    markdownLink: string;
    machineLinks: string;
    /** The footer link to the API reference page, among the links for software. */
    apiReference?: string;
    methodNotAllowed: Notice;
    /** The name of a scrolling code block, for keyboard and screen-reader users. */
    codeLabel?: string;
  };
  /** The labels of the case studies and work cards. */
  work?: WorkText;
  /** The contact form. */
  form: ContactFormText;
  /** The booking widget. */
  booking: BookingText;
  /** llms.txt: the free-form part after the summary, each section's H2, the API links' titles. */
  llms: {
    intro: string;
    sections: Record<PageSection, string>;
    apiLinks:
      & Record<"openapi" | "index" | "catalog" | "full" | "otherLanguage", string>
      & { reference?: string };
    /** The "Agent interfaces" section: its H2 and the titles of the MCP endpoint, card, skills. */
    agentInterfaces: Record<"heading" | "mcp" | "serverCard" | "skills", string>;
  };
  /** The 404 page. */
  notFound: PageText;
}

/**
 * An Agent Skill (agentskills.io): one `SKILL.md`, served under
 * `/.well-known/agent-skills/<name>/SKILL.md` and listed in the skills index with its digest.
 */
export interface CorpusSkill {
  /** The skill's name, its folder's: 1 to 64 lower-case letters, digits and single hyphens. */
  name: string;
  /** What the skill does and when to use it, at most 1024 characters (front matter). */
  description: string;
  /** The whole file, front matter included: what is served, once `{base}` is filled in. */
  markdown: string;
}

/** A skill name of the Agent Skills specification. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A static file: text, or bytes in base64. */
export interface CorpusAsset {
  /** Its media type. */
  type: string;
  /** Its text, or its bytes in base64 when `encoding` is `base64`. */
  body: string;
  /** How `body` holds bytes. @default {undefined} (text) */
  encoding?: "base64";
}

/**
 * The studio's look as the template needs it (the stylesheet and icons are assets, built from
 * the design tokens of `content/tokens.yaml`).
 */
export interface CorpusDesign {
  /** The logo's SVG markup, inlined in the header (drawn in `currentColor`). */
  logoSvg: string;
  /** The web font's asset name, preloaded by every page. */
  font: string;
  /** `theme-color` of each scheme. */
  themeColors: { light: string; dark: string };
  /** The site-wide sharing card (`og:image` of a page without its own): asset name and size. */
  card: { name: string; width: number; height: number };
  /**
   * The `sizes` of the pictures, per place, matching the stylesheet's grid (built from the
   * tokens): `wide` (a case study's hero), `card` (the grid of work) and `gallery` (by the
   * number of its pictures: one, two, three, four or more).
   */
  pictureSizes?: { wide: string; card: string; gallery: string[] };
}

/**
 * A file whose bytes are not part of the corpus (a picture's rendition, a sharing card): the
 * corpus names its type and version, and {@linkcode Corpus.loadFiles} reads its bytes when it is
 * first asked for.
 */
export interface CorpusFile {
  /** Its media type. */
  type: string;
  /** A hash of what it was made from: its URL's `?v=`, so a new file gets a new URL. */
  version: string;
}

/**
 * Reads one file of {@linkcode Corpus.files} by name (the studio's build reads it from
 * `build/files/`).
 *
 * @param name The file's name, a key of `Corpus.files`.
 * @returns Its bytes.
 * @throws {Error} When it cannot be read (the handler answers 500, and tries again next time).
 */
export type LoadFiles = (name: string) => Promise<Uint8Array<ArrayBuffer>>;

/** The whole corpus: the studio's facts, both languages' settings, every page and the assets. */
export interface Corpus {
  /** The studio's name. */
  name: string;
  /** The studio's public e-mail address. */
  email: string;
  /** The studio's postal address, as written in its country. */
  address: string;
  /** The studio's country, an ISO 3166-1 alpha-2 code (`PT`): the address's, in JSON-LD. */
  country?: string;
  /** Settings per language. */
  languages: Record<Language, LanguageSettings>;
  /** Every page of both languages, in a stable order (Portuguese first, then by `order`). */
  pages: CorpusPage[];
  /** Static files served under `/assets/`, by file name (`site.css`, `booking.js`). */
  assets: Record<string, CorpusAsset>;
  /** The studio's look: logo, font, theme colours, sharing card. */
  design?: CorpusDesign;
  /** The Agent Skills published under `/.well-known/agent-skills/`, if any. */
  skills?: CorpusSkill[];
  /**
   * Files served under `/assets/` whose bytes stay out of the corpus until first asked for
   * (pictures' renditions, sharing cards), by file name. Used only with `loadFiles`.
   */
  files?: Record<string, CorpusFile>;
  /**
   * Reads a file of `files` (the generated corpus reads `build/files/`). Without it the site shows
   * the pictures' SVG sources, no photo, and the site-wide sharing card.
   */
  loadFiles?: LoadFiles;
}
