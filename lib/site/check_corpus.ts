/**
 * Checks a corpus (see `corpus.ts`) where it enters the service: superstruct validators that
 * mirror the corpus's interfaces, each typed by `Describe` of the interface whose name it shares,
 * and the rules a schema cannot see (translations, unique paths, named pages and files).
 *
 * @module
 */
import {
  array,
  assert,
  boolean,
  define,
  type Describe,
  enums,
  nonempty,
  number,
  object,
  optional,
  pattern,
  record,
  size,
  string,
  type Struct,
} from "superstruct";
import {
  type BookingText,
  type ContactFormText,
  type Corpus,
  type CorpusAsset,
  type CorpusDesign,
  type CorpusFile,
  type CorpusPage,
  type CorpusPicture,
  type CorpusProject,
  type CorpusRendition,
  type CorpusSkill,
  type Language,
  LANGUAGES,
  type LanguageSettings,
  type LoadFiles,
  type Notice,
  PAGE_LAYOUTS,
  PAGE_SECTIONS,
  type PageText,
  PICTURE_TYPES,
  SKILL_NAME_PATTERN,
  type WorkText,
} from "./corpus.ts";

const PATH: Struct<string, null> = pattern(
  string(),
  /^\/(?:[a-z0-9]+(?:-[a-z0-9]+)*(?:\/[a-z0-9]+(?:-[a-z0-9]+)*)*)?$/,
);
const DATE: Struct<string, null> = pattern(string(), /^\d{4}-\d{2}-\d{2}$/);
const TEXT: Struct<string, null> = nonempty(string());

/** The validator of {@linkcode CorpusRendition}. */
const CorpusRendition: Describe<CorpusRendition> = object({
  name: TEXT,
  type: enums(PICTURE_TYPES),
  width: number(),
  height: number(),
});

/** The validator of {@linkcode CorpusPicture}. */
const CorpusPicture: Describe<CorpusPicture> = object({
  src: TEXT,
  alt: TEXT,
  width: number(),
  height: number(),
  caption: optional(string()),
  renditions: optional(array(CorpusRendition)),
  fallback: optional(TEXT),
});

/** The validator of {@linkcode CorpusProject}. */
const CorpusProject: Describe<CorpusProject> = object({
  client: TEXT,
  year: TEXT,
  tags: array(string()),
  summary: TEXT,
  selected: boolean(),
  cover: CorpusPicture,
  gallery: array(CorpusPicture),
});

/** The validator of {@linkcode CorpusPage}. */
const CorpusPage: Describe<CorpusPage> = object({
  id: TEXT,
  language: enums(LANGUAGES),
  path: PATH,
  title: TEXT,
  label: TEXT,
  description: TEXT,
  updated: DATE,
  order: number(),
  section: enums(PAGE_SECTIONS),
  layout: enums(PAGE_LAYOUTS),
  indexed: boolean(),
  markdown: TEXT,
  project: optional(CorpusProject),
  card: optional(TEXT),
});

/** The validator of {@linkcode PageText}. */
const PageText: Describe<PageText> = object({
  title: TEXT,
  description: TEXT,
  markdown: TEXT,
});

const Notice: Describe<Notice> = object({ title: TEXT, text: TEXT });

/** The validator of {@linkcode ContactFormText}. */
const ContactFormText: Describe<ContactFormText> = object({
  thanksPage: string(),
  legend: string(),
  firstName: string(),
  lastName: string(),
  email: string(),
  category: string(),
  categoryNone: string(),
  categories: array(object({ value: string(), label: string() })),
  message: string(),
  messageHint: string(),
  required: string(),
  submit: string(),
  privacy: string(),
  errorSummary: string(),
  problems: object({
    missing: string(),
    type: string(),
    length: string(),
    format: string(),
    enum: string(),
  }),
  badForm: Notice,
  tooLarge: Notice,
  rateLimited: Notice,
  noBackend: Notice,
  originRejected: Notice,
});

/** The validator of {@linkcode BookingText}. */
const BookingText: Describe<BookingText> = object({
  loading: string(),
  month: string(),
  previousMonth: string(),
  nextMonth: string(),
  days: string(),
  noSlots: string(),
  slotsFailed: string(),
  chooseTime: string(),
  timeZone: string(),
  name: string(),
  email: string(),
  company: string(),
  topic: string(),
  topicHint: string(),
  optional: string(),
  submit: string(),
  sending: string(),
  accepted: string(),
  pending: string(),
  conflict: string(),
  uncertain: string(),
  invalid: string(),
  originRejected: string(),
  rateLimited: string(),
  attendeeLimited: string(),
  unavailable: string(),
  unreadable: string(),
  tooLarge: string(),
  failed: string(),
  missingTime: string(),
});

/** The validator of {@linkcode WorkText}. */
const WorkText: Describe<WorkText> = object({
  client: TEXT,
  year: TEXT,
  services: TEXT,
  gallery: TEXT,
  next: TEXT,
  callTitle: TEXT,
  callText: TEXT,
  callLink: TEXT,
});

/** The validator of {@linkcode LanguageSettings}. */
const LanguageSettings: Describe<LanguageSettings> = object({
  tag: TEXT,
  label: TEXT,
  tagline: TEXT,
  summary: TEXT,
  nav: array(string()),
  callToAction: string(),
  footer: array(string()),
  text: object({
    skipLink: string(),
    navLabel: string(),
    markdownLink: string(),
    machineLinks: string(),
    apiReference: optional(string()),
    methodNotAllowed: Notice,
    codeLabel: optional(string()),
  }),
  work: optional(WorkText),
  form: ContactFormText,
  booking: BookingText,
  llms: object({
    intro: TEXT,
    sections: object({
      studio: string(),
      services: string(),
      contact: string(),
      agents: string(),
      optional: string(),
    }),
    apiLinks: object({
      openapi: string(),
      index: string(),
      catalog: string(),
      full: string(),
      otherLanguage: string(),
      reference: optional(string()),
    }),
    agentInterfaces: object({
      heading: TEXT,
      mcp: TEXT,
      serverCard: TEXT,
      skills: TEXT,
    }),
  }),
  notFound: PageText,
});

/** The validator of {@linkcode CorpusSkill}. */
const CorpusSkill: Describe<CorpusSkill> = object({
  name: pattern(size(string(), 1, 64), SKILL_NAME_PATTERN),
  description: size(string(), 1, 1024),
  markdown: TEXT,
});

/** The validator of {@linkcode CorpusAsset}. */
const CorpusAsset: Describe<CorpusAsset> = object({
  type: string(),
  body: string(),
  encoding: optional(enums(["base64"])),
});

/** The validator of {@linkcode CorpusDesign}. */
const CorpusDesign: Describe<CorpusDesign> = object({
  logoSvg: TEXT,
  font: TEXT,
  themeColors: object({ light: TEXT, dark: TEXT }),
  card: object({ name: TEXT, width: number(), height: number() }),
  pictureSizes: optional(object({ wide: TEXT, card: TEXT, gallery: array(TEXT) })),
});

/** The validator of {@linkcode CorpusFile}. */
const CorpusFile: Describe<CorpusFile> = object({
  type: TEXT,
  version: pattern(string(), /^[0-9a-f]{8,64}$/),
});

const LoadFiles = define<LoadFiles>("LoadFiles", (value) => typeof value === "function");

/** The validator of {@linkcode Corpus}. */
const Corpus: Describe<Corpus> = object({
  name: TEXT,
  email: TEXT,
  address: TEXT,
  country: optional(pattern(string(), /^[A-Z]{2}$/)),
  languages: object({ pt: LanguageSettings, en: LanguageSettings }),
  pages: array(CorpusPage),
  assets: record(string(), CorpusAsset),
  design: optional(CorpusDesign),
  skills: optional(array(CorpusSkill)),
  files: optional(record(string(), CorpusFile)),
  loadFiles: optional(LoadFiles),
});

/** Problems with a corpus that its schema cannot see. */
export class CorpusError extends Error {
  /** @param message What is wrong. */
  constructor(message: string) {
    super(message);
    this.name = "CorpusError";
  }
}

/**
 * Checks a corpus: its shape, then that every page has its translation, paths are unique and in
 * the right language's space (`/en…` for English only), every page id named by the settings
 * exists in both languages, every file a page names is in `files`, and a photo's fallback is one of
 * its JPEG renditions.
 *
 * @param corpus The corpus to check.
 * @returns The same corpus, typed.
 * @throws {CorpusError} On the first problem found.
 */
export function checkCorpus(corpus: unknown): Corpus {
  try {
    assert(corpus, Corpus);
  } catch (error) {
    throw new CorpusError(`Invalid corpus: ${error instanceof Error ? error.message : error}`);
  }
  const paths = new Set<string>();
  const ids: Record<Language, Set<string>> = { pt: new Set(), en: new Set() };
  for (const page of corpus.pages) {
    if (paths.has(page.path)) throw new CorpusError(`Duplicate path "${page.path}"`);
    paths.add(page.path);
    const english = page.path === "/en" || page.path.startsWith("/en/");
    if (english !== (page.language === "en")) {
      throw new CorpusError(
        `Page "${page.id}" (${page.language}) has path "${page.path}" outside its language's space`,
      );
    }
    if (ids[page.language].has(page.id)) {
      throw new CorpusError(`Duplicate page "${page.id}" in "${page.language}"`);
    }
    ids[page.language].add(page.id);
  }
  for (const language of LANGUAGES) {
    const other = language === "pt" ? "en" : "pt";
    for (const id of ids[language]) {
      if (!ids[other].has(id)) {
        throw new CorpusError(`Page "${id}" has no "${other}" translation`);
      }
    }
    const settings = corpus.languages[language];
    const named = [...settings.nav, settings.callToAction, ...settings.footer];
    for (const id of [...named, settings.form.thanksPage]) {
      if (!ids[language].has(id)) {
        throw new CorpusError(`Settings of "${language}" name page "${id}", which does not exist`);
      }
    }
  }
  const skills = new Set<string>();
  for (const skill of corpus.skills ?? []) {
    if (skills.has(skill.name)) throw new CorpusError(`Duplicate skill "${skill.name}"`);
    skills.add(skill.name);
  }
  for (const page of corpus.pages) {
    const pictures = page.project ? [page.project.cover, ...page.project.gallery] : [];
    for (const picture of pictures) {
      const fallback = picture.renditions?.find((item) => item.name === picture.fallback);
      if (picture.fallback && fallback?.type !== "image/jpeg") {
        throw new CorpusError(
          `Page "${page.path}" shows picture "${picture.src}" with fallback "${picture.fallback}", which is not one of its JPEG renditions`,
        );
      }
    }
    const names = [
      ...pictures.flatMap((picture) => picture.renditions ?? []).map((item) => item.name),
      ...(page.card ? [page.card] : []),
    ];
    for (const name of names) {
      if (!corpus.files?.[name]) {
        throw new CorpusError(`Page "${page.path}" names file "${name}", which is not in files`);
      }
    }
  }
  for (const home of ["/", "/en"]) {
    if (!paths.has(home)) throw new CorpusError(`The corpus has no home page at "${home}"`);
  }
  return corpus;
}
