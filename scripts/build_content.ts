/**
 * Compiles the site's content into `build/corpus.generated.ts`, so the handler needs no file
 * system at run time (Deno Deploy, Node and Bun alike):
 *
 * - `content/site.yaml`: the studio's facts and each language's interface text;
 * - `content/pt/<id>.md` and `content/en/<id>.md`: one page per file, with YAML front matter,
 *   paired with its translation by file name (`not_found.md` is the 404 page);
 * - `content/assets/*`: the logo and the case studies' pictures (a photo is not served: only its
 *   renditions), served under `/assets/`, beside the service's own page scripts
 *   (`lib/site/browser/*.js`, `SERVICE_FOLDER`) and the browser libraries they use
 *   (`VENDORED_SCRIPTS`, read from their npm packages);
 * - `content/skills/<name>/SKILL.md`: the Agent Skills, served whole under
 *   `/.well-known/agent-skills/<name>/SKILL.md` (front matter: `name`, the folder's, and
 *   `description`, nothing else).
 *
 * - `content/tokens.yaml`: the design tokens, with the service's rules (`lib/site/style/*.css`,
 *   `site.css` first) and the studio's own, optional `content/style/site.css` after them, built
 *   into the stylesheet, icons, sharing card and manifest (scripts/build_design.ts), with the web
 *   font the tokens name, read from its npm package;
 * - case studies: pages whose layout is `case`, with front matter `project` (client, year, tags,
 *   summary, selected, cover and gallery pictures: JPEG, PNG, WebP, AVIF or SVG files of
 *   `assets/`, whose size is read from them);
 * - the pictures' renditions (AVIF and WebP at a few widths, and JPEG for a photo, without its
 *   metadata) and every page's sharing card, whose bytes are files under `build/files/`, read only
 *   when one is first asked for (scripts/build_pictures.ts, build_cards.ts).
 *
 * `{{name}}`, `{{email}}`, `{{address}}`, `{{city}}` and `{{country}}` in any text are replaced by
 * the facts of site.yaml, and `{{timeZone}}`, `{{zone}}`, `{{hours}}` and `{{meetingMinutes}}` by
 * what `content/schedule.json` says (the zone's IANA id, its name for people, the weekly opening
 * hours and the meeting's length, in each page's language).
 *
 * Usage: a step of `deno task build` (writes the modules and files, encoding again only the
 * pictures and cards whose inputs changed); `deno task build --check` exits 1 when a module or
 * file is out of date.
 *
 * @module
 */
import { renderSiteIndexModule, SITE_INDEX_MODULE_PATH } from "./build_site_index.ts";
import { writePrebuiltSite } from "./prerender_site.ts";
import { renderScheduleModule, SCHEDULE_MODULE_PATH } from "./build_schedule.ts";
import { BUILD_FOLDER, CONTENT_FOLDER, writeGeneratedModule } from "./_generated_module.ts";
import { readdir, readFile } from "node:fs/promises";
import { resolvePackageFile } from "./_package_file.ts";
import { buildDesign, buildPictureSizes, type DesignTokens, readTokens } from "./build_design.ts";
import { buildCardTree, CARD_SIZE, type CardFonts, renderCard } from "./build_cards.ts";
import {
  FILE_READER_MODULE_PATH,
  type FileGroupPlan,
  hashParts,
  PICTURE_FORMATS,
  planPhoto,
  planPicture,
  readPhotoSize,
  renderFileReaderModule,
  toPictureKind,
  toVersion,
  writeFileGroups,
} from "./build_pictures.ts";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parse } from "yaml";
import {
  array,
  boolean,
  create,
  defaulted,
  enums,
  type Infer,
  nonempty,
  number,
  object,
  optional,
  pattern,
  record,
  string,
  StructError,
  union,
} from "superstruct";
import { readSchedule } from "../lib/availability/read_schedule.ts";
import type { ScheduleSettings } from "../lib/availability/schedule.ts";
import { toZoneName } from "../lib/availability/to_zone_name.ts";
import { formatWeeklyHours } from "../lib/availability/format_weekly_hours.ts";
import { checkCorpus } from "../lib/site/check_corpus.ts";
import { fromBase64 } from "../lib/site/site_assets.ts";
import {
  type Corpus,
  type CorpusFile,
  type CorpusPage,
  type CorpusPicture,
  type CorpusRendition,
  type CorpusSkill,
  LANGUAGES,
  PAGE_LAYOUTS,
  PAGE_SECTIONS,
  type PageText,
} from "../lib/site/corpus.ts";

/** The content folder. */
export { CONTENT_FOLDER };

/** Where the compiled module is written. */
export const CORPUS_MODULE_PATH = BUILD_FOLDER + "corpus.generated.ts";

/** The page file that holds a language's 404 page. */
const NOT_FOUND_FILE = "not_found.md";

/** A source file, its path relative to `content/` with `/` separators. */
export interface SourceFile {
  path: string;
  /** Its text (empty for a binary file). */
  text: string;
  /** Its bytes, for a binary file (the web font, a photo). */
  bytes?: Uint8Array;
  /** A photo's intrinsic size in pixels, upright ({@linkcode readPhotoFile}). */
  size?: { width: number; height: number };
}

const MEDIA_TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  txt: "text/plain; charset=utf-8",
};

const Picture = object({
  src: nonempty(string()),
  alt: nonempty(string()),
  caption: optional(string()),
});

const Project = object({
  client: nonempty(string()),
  year: nonempty(string()),
  tags: array(string()),
  summary: nonempty(string()),
  selected: defaulted(boolean(), false),
  cover: Picture,
  gallery: defaulted(array(Picture), []),
});

const FrontMatter = object({
  path: string(),
  title: nonempty(string()),
  label: optional(string()),
  description: nonempty(string()),
  updated: string(),
  order: number(),
  section: enums(PAGE_SECTIONS),
  layout: defaulted(enums(PAGE_LAYOUTS), "page"),
  indexed: defaulted(boolean(), true),
  project: optional(Project),
});

const NotFoundFrontMatter = object({
  title: nonempty(string()),
  description: nonempty(string()),
  path: optional(string()),
});

const Facts = object({
  name: string(),
  email: string(),
  address: string(),
  // The country, ISO 3166-1 alpha-2: the postal address's in the pages' structured data.
  country: optional(pattern(string(), /^[A-Z]{2}$/)),
  // The city, one name for both languages or one per language: `{ pt: Lisboa, en: Lisbon }`.
  city: optional(union([string(), record(string(), string())])),
});

/** The placeholders of the content, by language: the facts, and what the schedule says. */
type Placeholders = Record<string, string>;

/**
 * The placeholders of one language: `{{name}}`, `{{email}}`, `{{address}}` and `{{city}}` from
 * site.yaml, `{{country}}` (the name of site.yaml's `country` in the language, by
 * `Intl.DisplayNames`: `PT` → "Portugal"), and, when the content has a schedule, `{{timeZone}}`
 * (its IANA id), `{{zone}}` (the zone named for people in the language), `{{hours}}` (the weekly
 * opening hours) and `{{meetingMinutes}}` (the length of a conversation, in minutes: `30`).
 */
function toPlaceholders(
  facts: Infer<typeof Facts>,
  schedule: ScheduleSettings | undefined,
  language: string,
  tag: string,
): Placeholders {
  const { city, country, ...rest } = facts;
  const placeholders: Placeholders = { ...rest };
  const cityName = typeof city === "string" ? city : city?.[language];
  if (cityName !== undefined) placeholders.city = cityName;
  const countryName = country && new Intl.DisplayNames([tag], { type: "region" }).of(country);
  if (countryName) placeholders.country = countryName;
  if (schedule) {
    placeholders.timeZone = schedule.timeZone;
    // A zone's generic name does not change with summer time; the year of the build names it.
    placeholders.zone = toZoneName(schedule.timeZone, { locale: tag, at: Temporal.Now.instant() });
    placeholders.hours = formatWeeklyHours(schedule.weeklyHours, tag);
    placeholders.meetingMinutes = String(schedule.meetingMinutes);
  }
  return placeholders;
}

/** A SKILL.md's front matter: exactly `name` and `description` (`object` refuses any other key). */
const SkillFrontMatter = object({ name: nonempty(string()), description: nonempty(string()) });

/** A problem in the content, naming the file. */
export class ContentError extends Error {
  /** @param file The file, relative to content/. @param message What is wrong. */
  constructor(file: string, message: string) {
    super(`content/${file}: ${message}`);
    this.name = "ContentError";
  }
}

function splitFrontMatter(file: SourceFile): { data: unknown; body: string } {
  const text = file.text.replace(/\r\n/g, "\n");
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!match) throw new ContentError(file.path, "no front matter between --- lines");
  return { data: parse(match[1]), body: text.slice(match[0].length).trim() + "\n" };
}

function describe(error: unknown): string {
  if (error instanceof StructError) {
    return `front matter "${error.path.join(".") || error.key}": ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The named keys of a parsed YAML mapping, those absent left out. */
function pick(value: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => key in value).map((key) => [key, value[key]]));
}

/** Replaces `{{fact}}` with the studio's facts, refusing any unknown name. */
function substitute(file: string, text: string, facts: Placeholders): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_all, name: string) => {
    if (!(name in facts)) {
      throw new ContentError(
        file,
        `unknown placeholder "{{${name}}}" (known: ${
          Object.keys(facts).map((known) => `{{${known}}}`).join(", ")
        })`,
      );
    }
    return facts[name];
  });
}

/** Applies {@linkcode substitute} to every string inside a parsed YAML value. */
function substituteDeep(file: string, value: unknown, facts: Placeholders): unknown {
  if (typeof value === "string") return substitute(file, value, facts);
  if (Array.isArray(value)) return value.map((item) => substituteDeep(file, item, facts));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substituteDeep(file, item, facts)]),
    );
  }
  return value;
}

/**
 * Compiles the content's source files into a checked corpus.
 *
 * @param files Every file under `content/` that belongs to the corpus.
 * @returns The corpus, pages ordered by language (Portuguese first), then `order`.
 * @throws {ContentError} When a file is malformed. @throws {CorpusError} When the whole is not
 * consistent (a page without its translation, a duplicate path).
 */
export function buildCorpus(files: readonly SourceFile[]): Corpus {
  return buildContent(files).corpus;
}

/** The version names of what draws a card: part of every card's key. */
const CARD_RENDERER = "satori@0.63.2 @resvg/resvg-js@2.6.2 sharp@0.35.5 png palette q90";

/**
 * Compiles the content's source files into a checked corpus and the plans of its groups of
 * files (the pictures' renditions and the sharing cards, made by {@linkcode writeFileGroups}).
 *
 * @param files Every file under `content/` that belongs to the corpus.
 * @returns The corpus and the plans, one per group (a picture, a card).
 * @throws {ContentError} When a file is malformed. @throws {CorpusError} When the whole is not
 * consistent.
 */
export function buildContent(
  files: readonly SourceFile[],
): { corpus: Corpus; groups: FileGroupPlan[] } {
  const plans = new Map<string, FileGroupPlan>();
  const toPicture = (page: string, picture: { src: string; alt: string; caption?: string }) =>
    toCorpusPicture(files, page, picture, plans);
  const settingsFile = files.find((file) => file.path === "site.yaml");
  if (!settingsFile) throw new ContentError("site.yaml", "missing");
  const raw = parse(settingsFile.text) as Record<string, unknown>;
  let given: Infer<typeof Facts>;
  try {
    given = create(
      { ...pick(raw, "name", "email", "address", "country", "city") },
      Facts,
    );
  } catch (error) {
    throw new ContentError("site.yaml", describe(error));
  }
  const scheduleFile = files.find((file) => file.path === "schedule.json");
  let schedule: ScheduleSettings | undefined;
  try {
    schedule = scheduleFile ? readSchedule(JSON.parse(scheduleFile.text)) : undefined;
  } catch (error) {
    throw new ContentError("schedule.json", describe(error));
  }
  const rawLanguages = (raw.languages ?? {}) as Record<string, Record<string, unknown>>;
  const placeholdersOf = new Map(
    Object.entries(rawLanguages).map(([language, settings]) => [
      language,
      toPlaceholders(given, schedule, language, String(settings?.tag ?? language)),
    ]),
  );
  // The facts of a file of no language (a skill, the site's own name): the first language's.
  const facts = placeholdersOf.values().next().value ??
    toPlaceholders(given, schedule, "en", "en");
  const factsOf = (language: string) => placeholdersOf.get(language) ?? facts;
  const settings = {
    ...raw,
    languages: Object.fromEntries(
      Object.entries(rawLanguages).map((
        [language, value],
      ) => [language, substituteDeep("site.yaml", value, factsOf(language))]),
    ),
  } as Record<string, unknown>;
  const languages = settings.languages as Record<string, Record<string, unknown>>;
  const pages: CorpusPage[] = [];
  const notFound: Partial<Record<string, PageText>> = {};
  for (const file of files) {
    const match = /^(pt|en)\/([a-z0-9_]+)\.md$/.exec(file.path);
    if (!match) continue;
    const [, language, id] = match as unknown as [string, CorpusPage["language"], string];
    const { data, body } = splitFrontMatter(file);
    const markdown = substitute(file.path, body, factsOf(language));
    try {
      if (id + ".md" === NOT_FOUND_FILE) {
        const front = create(data, NotFoundFrontMatter);
        notFound[language] = {
          title: substitute(file.path, front.title, factsOf(language)),
          description: substitute(file.path, front.description, factsOf(language)),
          markdown,
        };
        continue;
      }
      const { project, ...front } = create(data, FrontMatter);
      pages.push({
        id,
        language,
        ...front,
        ...(project
          ? {
            project: {
              ...project,
              cover: toPicture(file.path, project.cover),
              gallery: project.gallery.map((picture) => toPicture(file.path, picture)),
            },
          }
          : {}),
        title: substitute(file.path, front.title, factsOf(language)),
        label: substitute(file.path, front.label ?? front.title, factsOf(language)),
        description: substitute(file.path, front.description, factsOf(language)),
        markdown,
      });
    } catch (error) {
      if (error instanceof ContentError) throw error;
      throw new ContentError(file.path, describe(error));
    }
  }
  for (const language of LANGUAGES) {
    if (!notFound[language]) throw new ContentError(`${language}/${NOT_FOUND_FILE}`, "missing");
    if (languages?.[language]) languages[language].notFound = notFound[language];
  }
  pages.sort((a, b) =>
    LANGUAGES.indexOf(a.language) - LANGUAGES.indexOf(b.language) || a.order - b.order ||
    (a.id < b.id ? -1 : 1)
  );
  const assets: Corpus["assets"] = {};
  let design: Corpus["design"];
  const tokensFile = files.find((file) => file.path === "tokens.yaml");
  if (tokensFile) {
    let tokens: DesignTokens;
    try {
      tokens = readTokens(parse(tokensFile.text));
    } catch (error) {
      throw new ContentError("tokens.yaml", describe(error));
    }
    const rules = files.find((file) => file.path === "style/site.css");
    if (!rules) throw new ContentError("style/site.css", "missing");
    const font = files.find((file) => file.path === `fonts/${tokens.font.file}`)?.bytes;
    if (!font) throw new ContentError("tokens.yaml", `font "${tokens.font.file}" was not read`);
    const logo = files.find((file) => file.path === tokens.logo);
    if (!logo) throw new ContentError("tokens.yaml", `logo "${tokens.logo}" is missing`);
    const built = buildDesign({
      tokens,
      rules: rules.text,
      fontBytes: font,
      logo: logo.text,
      name: facts.name,
      description: String(languages?.pt?.tagline ?? facts.name),
    });
    for (const [name, asset] of Object.entries(built.assets)) {
      if (asset.encoding !== "base64") {
        assets[name] = asset;
        continue;
      }
      // A binary file (the font, the icons, the site's card) is a file of build/files/, as the
      // pictures are, not base64 in a module: read on its first request.
      const bytes = fromBase64(asset.body);
      plans.set(name, {
        group: name,
        source: "tokens.yaml",
        key: hashParts(asset.type, bytes),
        files: [{ name, type: asset.type }],
        encode: () => Promise.resolve({ [name]: bytes }),
      });
    }
    design = {
      logoSvg: built.logoSvg,
      font: built.font,
      themeColors: built.themeColors,
      card: built.card,
      pictureSizes: buildPictureSizes(tokens),
    };
    const cardFonts = readCardFonts(files, tokens);
    if (cardFonts) {
      for (const page of pages) {
        const plan = planCard({
          group: `card-${page.language}-${page.id}`,
          source: `${page.language}/${page.id}.md`,
          fonts: cardFonts,
          family: tokens.font.family,
          content: {
            name: facts.name,
            // A case study's client and year; another page's short name, unless it is the
            // title again; nothing on the home page, whose title says what the studio does.
            kicker: page.project
              ? `${page.project.client} · ${page.project.year}`
              : page.layout === "home" || page.label === page.title
              ? ""
              : page.label,
            title: page.title,
            description: page.description,
            logo: logo.text,
            colors: tokens.colors.light,
            family: tokens.font.family,
          },
        });
        plans.set(plan.group, plan);
        page.card = plan.files[0].name;
      }
    }
  }
  for (const file of files) {
    const match = /^assets\/([a-z0-9_.-]+)\.([a-z0-9]+)$/.exec(file.path);
    // A photo is served only as its renditions, never as its source (nor its metadata).
    if (!match || toPictureKind(file.path) === "photo") continue;
    const type = MEDIA_TYPES[match[2]];
    if (!type) throw new ContentError(file.path, `no media type known for ".${match[2]}"`);
    if (`${match[1]}.${match[2]}` in assets) {
      throw new ContentError(file.path, "has the name of an asset built from the tokens");
    }
    assets[`${match[1]}.${match[2]}`] = { type, body: file.text };
  }
  const skills: CorpusSkill[] = [];
  for (const file of files) {
    const match = /^skills\/([^/]+)\/SKILL\.md$/.exec(file.path);
    if (!match) continue;
    const { data } = splitFrontMatter(file);
    let front: { name: string; description: string };
    try {
      front = create(data, SkillFrontMatter);
    } catch (error) {
      throw new ContentError(file.path, describe(error));
    }
    if (front.name !== match[1]) {
      throw new ContentError(file.path, `name "${front.name}" is not its folder's, "${match[1]}"`);
    }
    // Agent Skills are written in English, so they say the English facts (the city's name).
    const markdown = substitute(file.path, file.text.replace(/\r\n/g, "\n"), factsOf("en"));
    const description = substitute(file.path, front.description, factsOf("en"));
    skills.push({ name: front.name, description, markdown });
  }
  skills.sort((a, b) => (a.name < b.name ? -1 : 1));
  const groups = [...plans.values()].sort((a, b) => (a.group < b.group ? -1 : 1));
  const fileIndex: Record<string, CorpusFile> = {};
  for (const plan of groups) {
    for (const file of plan.files) {
      fileIndex[file.name] = { type: file.type, version: toVersion(plan.key) };
    }
  }
  const corpus = checkCorpus({
    name: facts.name,
    email: facts.email,
    address: facts.address,
    ...(given.country ? { country: given.country } : {}),
    languages,
    pages,
    assets,
    ...(design ? { design } : {}),
    skills,
    ...(groups.length ? { files: fileIndex } : {}),
  });
  return { corpus, groups };
}

/** The static cuts the tokens name for the cards (`font.card`), if they were read. */
function readCardFonts(files: readonly SourceFile[], tokens: DesignTokens): CardFonts | undefined {
  const card = tokens.font.card;
  if (!card) return undefined;
  const regular = files.find((file) => file.path === `fonts/${card.regular}`)?.bytes;
  const bold = files.find((file) => file.path === `fonts/${card.bold}`)?.bytes;
  if (!regular || !bold) {
    throw new ContentError("tokens.yaml", `the card's fonts of "${card.package}" were not read`);
  }
  return { regular, bold };
}

/** Plans a page's sharing card: its key covers the card's tree, fonts and renderer. */
function planCard(options: {
  group: string;
  source: string;
  content: Parameters<typeof buildCardTree>[0];
  fonts: CardFonts;
  family: string;
}): FileGroupPlan {
  const tree = buildCardTree(options.content);
  const name = `${options.group}.png`;
  return {
    group: options.group,
    source: options.source,
    key: hashParts(
      CARD_RENDERER,
      JSON.stringify(CARD_SIZE),
      JSON.stringify(tree),
      options.fonts.regular,
      options.fonts.bold,
    ),
    files: [{ name, type: "image/png" }],
    encode: async () => ({
      [name]: await renderCard(tree, options.fonts, options.family),
    }),
  };
}

/**
 * A picture of a case study: its file must exist in an accepted format (an SVG, whose size is read
 * from its root, or a photo, whose size was read with it); its renditions' group is planned once,
 * however many pages show it.
 */
function toCorpusPicture(
  files: readonly SourceFile[],
  page: string,
  picture: { src: string; alt: string; caption?: string },
  plans: Map<string, FileGroupPlan>,
): CorpusPicture {
  const kind = toPictureKind(picture.src);
  if (!kind) {
    throw new ContentError(
      page,
      `picture "${picture.src}" is in a format the build does not take: use ${PICTURE_FORMATS}`,
    );
  }
  const file = files.find((item) => item.path === `assets/${picture.src}`);
  if (!file) throw new ContentError(page, `picture "${picture.src}" is not in assets/`);
  let planned: { renditions: CorpusRendition[]; fallback?: string; plan: FileGroupPlan };
  let size: { width: number; height: number };
  if (kind === "photo") {
    if (!file.bytes || !file.size) {
      throw new ContentError(
        file.path,
        "is a photo read without its size: read it with readPhotoFile()",
      );
    }
    size = file.size;
    planned = planPhoto(picture.src, file.bytes, size);
  } else {
    const root = /<svg\b[^>]*>/.exec(file.text)?.[0] ?? "";
    size = {
      width: Number(/\swidth="(\d+)"/.exec(root)?.[1]),
      height: Number(/\sheight="(\d+)"/.exec(root)?.[1]),
    };
    if (!size.width || !size.height) {
      throw new ContentError(file.path, "the root <svg> needs width and height in pixels");
    }
    planned = planPicture(picture.src, file.text, size);
  }
  const { renditions, fallback, plan } = planned;
  const other = plans.get(plan.group);
  if (other && other.source !== plan.source) {
    throw new ContentError(
      file.path,
      `its renditions would have the names of those of "${other.source}": rename one`,
    );
  }
  plans.set(plan.group, plan);
  return { ...picture, ...size, renditions, ...(fallback ? { fallback } : {}) };
}

/**
 * Renders the corpus as the TypeScript module `build/corpus.generated.ts`.
 *
 * @param corpus The compiled corpus.
 * @returns The module's text, stable for the same corpus.
 */
export function renderCorpusModule(corpus: Corpus): string {
  const { loadFiles: _loadFiles, ...data } = corpus;
  const json = JSON.stringify(data, null, 2);
  if (!corpus.files) {
    return [
      ...CORPUS_MODULE_HEADER,
      'import type { Corpus } from "../lib/site/corpus.ts";',
      "",
      "/** The studio's site: pages of both languages, settings and assets (see lib/site/corpus.ts). */",
      `export const CORPUS: Corpus = ${json};`,
      "",
    ].join("\n");
  }
  return [
    ...CORPUS_MODULE_HEADER,
    'import type { Corpus } from "../lib/site/corpus.ts";',
    'import { loadFiles } from "./files.generated.ts";',
    "",
    "/**",
    " * The studio's site: pages of both languages, settings and assets (see lib/site/corpus.ts); the",
    " * files' bytes (pictures' renditions, sharing cards) are read from build/files/ when first asked",
    " * for.",
    " */",
    `export const CORPUS: Corpus = { ...${json}, loadFiles };`,
    "",
  ].join("\n");
}

const CORPUS_MODULE_HEADER = [
  "// Generated by scripts/build_content.ts from content/: do not edit by hand.",
  "// Run `deno task build` after changing the Markdown, site.yaml or assets.",
];

/**
 * Browser scripts served under `/assets/` from their npm packages (scripts/deno.json's imports), by
 * asset name: the package and the file in it. Pages load them before their own scripts.
 */
const VENDORED_SCRIPTS: Readonly<Record<string, { package: string; file: string }>> = {
  // The WebAuthn ceremonies of the team's passkeys (lib/site/browser/passkeys.js uses its global).
  "simplewebauthn-browser.js": {
    package: "@simplewebauthn/browser",
    file: "dist/bundle/index.umd.min.js",
  },
};

/** Reads the vendored scripts from their packages, as assets. */
async function readVendoredScripts(): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  for (const [name, source] of Object.entries(VENDORED_SCRIPTS)) {
    // The packages export only their entry (`script/index.js`); their bundles lie beside it.
    const entry = await resolvePackageFile(source.package);
    const path = fileURLToPath(new URL(`../${source.file}`, pathToFileURL(entry)));
    files.push({ path: `assets/${name}`, text: await readFile(path, "utf8") });
  }
  return files;
}

/**
 * A photo of `content/assets/` as a source file: its bytes and its intrinsic size, upright (sharp
 * reads its header; its EXIF orientation applied).
 *
 * @param path Its path relative to `content/`, e.g. `assets/work-x-cover.jpg`.
 * @param bytes Its file.
 * @returns The source file.
 * @throws {ContentError} When sharp cannot decode it.
 */
export async function readPhotoFile(path: string, bytes: Uint8Array): Promise<SourceFile> {
  try {
    return { path, text: "", bytes, size: await readPhotoSize(bytes) };
  } catch (error) {
    throw new ContentError(path, `is not a photo sharp can read: ${describe(error)}`);
  }
}

/**
 * Reads the corpus's source files from a content folder: site.yaml, the Markdown of each
 * language and the assets (a photo as bytes, with its size), with the vendored scripts among them.
 *
 * @param folder The content folder. @default {CONTENT_FOLDER}
 */
export async function readContentFiles(folder = CONTENT_FOLDER): Promise<SourceFile[]> {
  const files: SourceFile[] = [{
    path: "site.yaml",
    text: await readFile(folder + "site.yaml", "utf8"),
  }];
  // The schedule names the zone and the hours the pages may say (`{{zone}}`, `{{hours}}`).
  const schedule = await readFile(folder + "schedule.json", "utf8").catch(() => undefined);
  if (schedule !== undefined) files.push({ path: "schedule.json", text: schedule });
  for (const name of (await readdir(folder + "skills")).sort()) {
    if (name.startsWith(".")) continue;
    const path = `skills/${name}/SKILL.md`;
    files.push({ path, text: await readFile(folder + path, "utf8") });
  }
  try {
    const tokensText = await readFile(folder + "tokens.yaml", "utf8");
    files.push({ path: "tokens.yaml", text: tokensText });
    files.push({ path: "style/site.css", text: await readStyleRules(folder) });
    const tokens = readTokens(parse(tokensText));
    // The font comes from its npm package (scripts/deno.json's imports).
    const fontPath = await resolvePackageFile(`${tokens.font.package}/files/${tokens.font.file}`);
    files.push({
      path: `fonts/${tokens.font.file}`,
      text: "",
      bytes: new Uint8Array(await readFile(fontPath)),
    });
    const card = tokens.font.card;
    for (const name of card ? [card.regular, card.bold] : []) {
      const path = await resolvePackageFile(`${card?.package}/files/${name}`);
      files.push({ path: `fonts/${name}`, text: "", bytes: new Uint8Array(await readFile(path)) });
    }
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
  for (const subfolder of [...LANGUAGES, "assets"]) {
    const names = (await readdir(folder + subfolder)).sort();
    for (const name of names) {
      if (name.startsWith(".")) continue;
      const path = `${subfolder}/${name}`;
      files.push(
        subfolder === "assets" && toPictureKind(name) === "photo"
          ? await readPhotoFile(path, new Uint8Array(await readFile(folder + path)))
          : { path, text: await readFile(folder + path, "utf8") },
      );
    }
  }
  files.push(...await readServiceScripts(files), ...await readVendoredScripts());
  return files;
}

/**
 * The service's own browser files, which every studio's site uses and no studio's content holds:
 * the page scripts (`browser/`) and the rules (`style/`).
 */
export const SERVICE_FOLDER = fileURLToPath(new URL("../lib/site/", import.meta.url));

/**
 * The stylesheet's rules: the service's (`lib/site/style/site.css`, then its other `.css` files
 * by name), then the studio's own `style/site.css` when its content has one (it may override).
 *
 * @param folder The content folder.
 */
async function readStyleRules(folder: string): Promise<string> {
  const names = (await readdir(SERVICE_FOLDER + "style")).filter((name) => name.endsWith(".css"))
    .sort((a, b) => (a === "site.css" ? -1 : b === "site.css" ? 1 : a < b ? -1 : 1));
  const rules = await Promise.all(
    names.map((name) => readFile(SERVICE_FOLDER + "style/" + name, "utf8")),
  );
  const own = await readFile(folder + "style/site.css", "utf8").catch((error) => {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  });
  return [...rules, ...own === undefined ? [] : [own]].join("\n");
}

/**
 * Reads the service's page scripts (`lib/site/browser/*.js`) as assets.
 *
 * @param content The content's files so far.
 * @throws {ContentError} When the content has an asset of the same name.
 */
async function readServiceScripts(content: readonly SourceFile[]): Promise<SourceFile[]> {
  const names = (await readdir(SERVICE_FOLDER + "browser")).filter((name) => name.endsWith(".js"));
  return await Promise.all(
    names.sort().map(async (name) => {
      const path = `assets/${name}`;
      if (content.some((file) => file.path === path)) {
        throw new ContentError(path, "is a script of the service (lib/site/browser/): rename it");
      }
      return { path, text: await readFile(SERVICE_FOLDER + "browser/" + name, "utf8") };
    }),
  );
}

if (import.meta.main) {
  const { corpus, groups } = buildContent(await readContentFiles());
  // The files first: the corpus names them, so it is written once they are there.
  await writeFileGroups(groups);
  await writeGeneratedModule(FILE_READER_MODULE_PATH, renderFileReaderModule(), "build");
  await writeGeneratedModule(CORPUS_MODULE_PATH, renderCorpusModule(corpus), "build");
  await writeGeneratedModule(
    SITE_INDEX_MODULE_PATH,
    renderSiteIndexModule(corpus),
    "build",
  );
  await writePrebuiltSite(corpus);
  await writeGeneratedModule(SCHEDULE_MODULE_PATH, await renderScheduleModule(), "build");
}
