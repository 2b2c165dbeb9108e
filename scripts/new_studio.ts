/**
 * `deno task new-studio`: turns the sample studio of a content folder (Traço, in Lisbon) into a new
 * studio, the first step of adopting the project (docs/adopting.md):
 *
 * - `site.yaml`: the facts `name`, `email`, `address`, `country` and `city` (one name per
 *   language), edited in place, its comments and layout kept;
 * - `schedule.json`: the time zone, the country of the public holidays, the meeting place (a video
 *   call on the studio's own domain, or the studio's address) and no closed dates;
 * - the sample's case studies (pages whose layout is `case`, and their pictures) give way to one
 *   example case study in both languages, marked as an example to replace, with a photo drawn from
 *   the studio's name; the work index pages describe the studio's work, not the sample's.
 *
 * The pages say the facts as placeholders (`{{name}}`, `{{city}}`…), so they need no edit to name
 * the new studio; what they tell of the sample's team and history is the adopter's to rewrite.
 *
 * Usage: `deno task new-studio --name <name> --email <address> --city <city>
 * --time-zone <IANA zone> [--address <address>] [--country <XX>] [--city-en <city>]
 * [--content <folder>] [--force]`. On a terminal, it asks for what is missing; otherwise it fails
 * with its usage. It refuses a content folder whose studio is no longer the sample unless `--force`.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Document, parse, parseDocument, type YAMLSeq } from "yaml";
import { isEmailAddress } from "../lib/contract/text_formats.ts";

/** The sample studio's name, as `site.yaml` says it on a fresh clone. */
export const SAMPLE_NAME = "Traço";

/** The content folder of the checkout, `content/`. */
const DEFAULT_CONTENT_FOLDER = fileURLToPath(new URL("../content/", import.meta.url));

/** The example case study's page (in `pt/` and `en/`) and photo (in `assets/`). */
const EXAMPLE_PAGE = "work_example.md";
const EXAMPLE_PHOTO = "work-example-cover.jpg";

/** The example photo's size, in pixels: as wide as the largest rendition (1600). */
const PHOTO_SIZE = { width: 1600, height: 1000 };

/** The languages of the content, each a folder of pages. */
const LANGUAGES = ["pt", "en"] as const;

const USAGE = [
  "Usage: deno task new-studio --name <name> --email <address> --city <city>",
  "         --time-zone <IANA zone> [--address <address>] [--country <XX>] [--city-en <city>]",
  "         [--content <folder>] [--force]",
  "",
  'Example: deno task new-studio --name "Ateliê Sol" --email ola@sol.example --city "São Paulo"',
  '         --time-zone America/Sao_Paulo --address "Rua Augusta 10, 01305-000 São Paulo"',
  "         --country BR",
].join("\n");

/** What the new studio is: its facts, as given on the command line. */
export interface NewStudioOptions {
  /** The studio's name, as its pages say it (`{{name}}`). */
  name: string;
  /** The studio's public e-mail address (`{{email}}`); its domain names the video-call link. */
  email: string;
  /** The studio's city, in Portuguese (`{{city}}` of the `pt` pages). */
  city: string;
  /** The city in English. @default {city} */
  cityEn?: string;
  /** The IANA time zone of the opening hours, e.g. `America/Sao_Paulo`. */
  timeZone: string;
  /** The studio's street address. @default {city} (and no visits offered in the meeting place) */
  address?: string;
  /**
   * The country, ISO 3166-1 alpha-2 (`BR`): the public holidays the schedule closes and the
   * address's country in the pages' structured data.
   * @default the only country that uses `timeZone` (date-holidays' data)
   */
  country?: string;
  /** Changes a studio that is no longer the sample. @default {false} */
  force?: boolean;
}

/** What {@linkcode newStudio} changed, for its report. */
export interface NewStudioReport {
  /** The country it used, and whether it was given or found from the time zone. */
  country: { code: string; from: "given" | "time zone" };
  /** The files it removed, relative to the content folder. */
  removed: string[];
  /** The files it wrote, relative to the content folder. */
  written: string[];
}

/** A value the starter cannot use, or a content folder it must not change: said to the person. */
export class NewStudioError extends Error {
  /** Whether the command line was at fault: the command's usage follows the message. */
  readonly usage: boolean;

  /**
   * @param message What is wrong, and what to do.
   * @param options `usage`: the command line was at fault. @default {false}
   */
  constructor(message: string, options: { usage?: boolean } = {}) {
    super(message);
    this.name = "NewStudioError";
    this.usage = options.usage ?? false;
  }
}

/**
 * Turns the sample studio of a content folder into a new one (see the module's documentation).
 * Every value is checked before a file changes.
 *
 * @param options The new studio's facts.
 * @param folder The content folder. @default {content/ of the checkout}
 * @returns What it found, removed and wrote.
 * @throws {NewStudioError} When a value is not valid, or the folder's studio is no longer the
 * sample and `force` is not set.
 */
export async function newStudio(
  options: NewStudioOptions,
  folder: string = DEFAULT_CONTENT_FOLDER,
): Promise<NewStudioReport> {
  folder = resolve(folder) + "/";
  const facts = {
    name: toName(options.name),
    email: toEmail(options.email),
    city: toText("--city", options.city),
    cityEn: toText("--city-en", options.cityEn?.trim() || options.city),
    timeZone: toTimeZone(options.timeZone),
    address: options.address?.trim() ? toText("--address", options.address) : undefined,
  };
  const given = options.country?.trim();
  const country = given ? await toCountry(given) : await findCountryOfZone(facts.timeZone);
  if (!country) {
    throw new NewStudioError(
      `No single country uses the time zone "${facts.timeZone}": give one with --country`,
    );
  }
  const studio = { ...facts, country };
  const site = buildSiteYaml(await readSampleSettings(folder, options.force ?? false), studio);
  const schedule = buildScheduleJson(await readContentFile(folder, "schedule.json"), studio);
  const caseStudies = await findCaseStudies(folder);
  const photo = await drawExamplePhoto(folder, studio.name);
  // Everything is read and checked: from here on, only writes.
  await writeFile(folder + "site.yaml", site);
  await writeFile(folder + "schedule.json", schedule);
  for (const file of caseStudies) await rm(folder + file, { force: true });
  const written = [
    "site.yaml",
    "schedule.json",
    ...await writeExample(folder, studio, photo),
    ...await describeWork(folder),
  ];
  return {
    country: { code: country, from: given ? "given" : "time zone" },
    removed: caseStudies.filter((file) => !written.includes(file)),
    written,
  };
}

/**
 * The content folder's site.yaml, as text, while its studio is the sample.
 *
 * @param force Read it whatever studio it names.
 * @throws {NewStudioError} When it names another studio than the sample, unless `force`.
 */
async function readSampleSettings(folder: string, force: boolean): Promise<string> {
  const text = await readContentFile(folder, "site.yaml");
  const current = parse(text)?.name;
  if (current !== SAMPLE_NAME && !force) {
    throw new NewStudioError(
      `The content folder's studio is "${current}", not the sample "${SAMPLE_NAME}": ` +
        "it was set up already; pass --force to set it up again",
    );
  }
  return text;
}

/** A file of the content folder, as text. @throws {NewStudioError} When it is not there. */
async function readContentFile(folder: string, file: string): Promise<string> {
  try {
    return await readFile(folder + file, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
    throw new NewStudioError(`No ${file} in "${folder}": name the content folder with --content`);
  }
}

/** The new studio's facts, checked. */
interface StudioFacts {
  name: string;
  email: string;
  city: string;
  cityEn: string;
  timeZone: string;
  address: string | undefined;
  country: string;
}

/** A text given for an option, trimmed: refused when empty or on several lines. */
function toText(option: string, value: string | undefined): string {
  const text = value?.trim() ?? "";
  if (!text) throw new NewStudioError(`Missing ${option}`);
  if (/[\r\n]/.test(text)) throw new NewStudioError(`Invalid ${option} "${text}": one line only`);
  return text;
}

/** The studio's name: a line of at most 80 characters, without the placeholders' braces. */
function toName(value: string | undefined): string {
  const name = toText("--name", value);
  if (name.length > 80 || /[{}]/.test(name)) {
    throw new NewStudioError(`Invalid --name "${name}": at most 80 characters, no braces`);
  }
  return name;
}

/** The studio's e-mail address, by the rule of the API's fields (WHATWG's). */
function toEmail(value: string | undefined): string {
  const email = toText("--email", value);
  if (!isEmailAddress(email) || !email.split("@")[1].includes(".")) {
    throw new NewStudioError(
      `Invalid --email "${email}": an e-mail address on a domain, such as "ola@studio.example"`,
    );
  }
  return email;
}

/** An IANA time zone, spelt as the runtime's time-zone data spells it (`America/Sao_Paulo`). */
function toTimeZone(value: string | undefined): string {
  const given = toText("--time-zone", value);
  let timeZone: string;
  try {
    timeZone = new Intl.DateTimeFormat("en", { timeZone: given }).resolvedOptions().timeZone;
  } catch {
    timeZone = "";
  }
  // An offset ("+03:00") is a valid Intl zone but follows no summer time: a city's zone does.
  if (!timeZone || /^[+-]/.test(timeZone)) {
    throw new NewStudioError(
      `Invalid --time-zone "${given}": an IANA time zone such as "America/Sao_Paulo"`,
    );
  }
  return timeZone;
}

/** A country code: two letters (ISO 3166-1 alpha-2), upper case. */
function toCountryCode(value: string): string {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) {
    throw new NewStudioError(
      `Invalid --country "${value.trim()}": two letters of ISO 3166-1, such as "BR" or "PT"`,
    );
  }
  return code;
}

/** A country whose public holidays date-holidays knows, upper case. */
async function toCountry(value: string): Promise<string> {
  const code = toCountryCode(value);
  const { default: Holidays } = await import("date-holidays");
  if (!(code in new Holidays().getCountries())) {
    throw new NewStudioError(`Invalid --country "${code}": no public holidays are known for it`);
  }
  return code;
}

/**
 * The one country whose time zones (date-holidays' data) include a zone, or `undefined` when none
 * or several do (`Europe/Zurich`: Switzerland and Liechtenstein).
 *
 * @param timeZone An IANA time zone.
 */
async function findCountryOfZone(timeZone: string): Promise<string | undefined> {
  const { default: Holidays } = await import("date-holidays");
  const countries = Object.keys(new Holidays().getCountries()).filter((code) =>
    (new Holidays(code).getTimezones() ?? []).includes(timeZone)
  );
  return countries.length === 1 ? countries[0] : undefined;
}

/**
 * YAML text with the values of some top-level keys replaced and every other byte kept (comments,
 * folding, flow styles, which the `yaml` package would write its own way): its Document API finds
 * where each value lies in the text (the node's range). A key the text lacks is added after
 * `after`'s line, or at the end.
 *
 * @param replacements The keys and their new values, written as YAML (see {@linkcode toYamlValue}).
 */
function replaceYamlValues(
  text: string,
  replacements: Readonly<Record<string, string>>,
  after?: string,
): string {
  const doc = parseDocument(text);
  const edits: { start: number; end: number; text: string }[] = [];
  for (const [key, value] of Object.entries(replacements)) {
    const node = doc.get(key, true) as { range?: [number, number, number] } | undefined;
    if (node?.range) {
      const [start, end] = node.range;
      // A block scalar's range ends after its line break, a plain scalar's before it.
      const lineBreak = text.slice(start, end).endsWith("\n") ? "\n" : "";
      edits.push({ start, end, text: value.replace(/\n$/, "") + lineBreak });
      continue;
    }
    const anchor = after ? doc.get(after, true) as { range?: [number, number, number] } : undefined;
    const lineEnd = anchor?.range ? text.indexOf("\n", anchor.range[1]) : -1;
    const at = lineEnd >= 0 ? lineEnd + 1 : text.length;
    edits.push({ start: at, end: at, text: `${key}: ${value}\n` });
  }
  // From the end of the text back, so that each edit's offsets still hold.
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  }
  return text;
}

/**
 * A value written as YAML for {@linkcode replaceYamlValues}: a string on one line (quoted when it
 * must be), or a mapping of strings in flow style (`{ pt: Lisboa, en: Lisbon }`).
 */
function toYamlValue(value: string | Record<string, string>): string {
  const flow = typeof value !== "string";
  return new Document(value, { flow }).toString({ lineWidth: 0 }).trimEnd();
}

/** A long text as a folded block scalar (`>-`), its lines within 100 columns. */
function toFoldedYaml(text: string, indent: string): string {
  return `>-\n${wrapText(text, indent)}\n`;
}

/** Text wrapped at spaces into lines of at most 100 columns, each starting with `indent`. */
function wrapText(text: string, indent = ""): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && indent.length + line.length + 1 + word.length > 100) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return [...lines, indent + line].join("\n");
}

/** site.yaml with the studio's facts, its comments and layout kept. */
function buildSiteYaml(text: string, studio: StudioFacts): string {
  const facts = {
    name: studio.name,
    email: studio.email,
    address: studio.address ?? studio.city,
    country: studio.country,
  };
  const replaced = replaceYamlValues(text, {
    ...Object.fromEntries(Object.entries(facts).map(([key, value]) => [key, toYamlValue(value)])),
    city: toYamlValue({ pt: studio.city, en: studio.cityEn }),
  }, "address");
  const written = parse(replaced) as Record<string, unknown>;
  for (const [key, value] of Object.entries(facts)) {
    if (written[key] !== value) {
      throw new Error(`site.yaml: the starter wrote "${key}" as ${JSON.stringify(written[key])}`);
    }
  }
  return replaced;
}

/** schedule.json with the studio's zone, holidays and meeting place, and no closed dates. */
function buildScheduleJson(text: string, studio: StudioFacts): string {
  const schedule = JSON.parse(text) as Record<string, unknown>;
  const link = `https://meet.${studio.email.split("@")[1]}/conversa`;
  // The English address names the city in English, as the sample's does ("Lisboa", "Lisbon").
  const addressEn = studio.address?.replaceAll(studio.city, studio.cityEn);
  schedule.timeZone = studio.timeZone;
  schedule.closedDates = [];
  schedule.holidayCountry = studio.country;
  schedule.meetingPlace = studio.address
    ? {
      pt: `Videochamada: ${link} (ou no estúdio, ${studio.address}, se preferir)`,
      en: `Video call: ${link} (or at the studio, ${addressEn}, if you prefer)`,
    }
    : { pt: `Videochamada: ${link}`, en: `Video call: ${link}` };
  return toJsonText(schedule) + "\n";
}

/**
 * JSON laid out as schedule.json is: two-space indents, and an array of scalars or of arrays of
 * scalars (the opening hours, the closed dates) on one line.
 */
function toJsonText(value: unknown, indent = ""): string {
  const isScalarValue = (item: unknown) => item === null || typeof item !== "object";
  const isFlat = (item: unknown) =>
    isScalarValue(item) || (Array.isArray(item) && item.every(isScalarValue));
  if (Array.isArray(value) && value.every(isFlat)) {
    return `[${value.map((item) => toJsonText(item)).join(", ")}]`;
  }
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const inner = indent + "  ";
  const lines = Array.isArray(value)
    ? value.map((item) => inner + toJsonText(item, inner))
    : Object.entries(value).map(([key, item]) =>
      `${inner}${JSON.stringify(key)}: ${toJsonText(item, inner)}`
    );
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return lines.length ? `${open}\n${lines.join(",\n")}\n${indent}${close}` : open + close;
}

/** A page's front matter, as text and parsed, and the text after it. */
function splitPage(
  file: string,
  text: string,
): { data: Record<string, unknown>; front: string; rest: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text);
  if (!match) throw new NewStudioError(`content/${file}: no front matter between --- lines`);
  return { data: parse(match[1]) ?? {}, front: match[1], rest: text.slice(match[0].length) };
}

/** The Markdown pages of each language, as paths relative to the content folder. */
async function listPages(folder: string): Promise<string[]> {
  const pages: string[] = [];
  for (const language of LANGUAGES) {
    const names = (await readdir(folder + language)).filter((name) => name.endsWith(".md"));
    pages.push(...names.sort().map((name) => `${language}/${name}`));
  }
  return pages;
}

/**
 * The case studies (pages whose layout is `case`) and the pictures they show that no other page
 * shows.
 *
 * @returns Their files, relative to the content folder: the pages, then the pictures.
 */
async function findCaseStudies(folder: string): Promise<string[]> {
  const pages: string[] = [];
  const pictures = new Set<string>();
  const kept = new Set<string>();
  for (const page of await listPages(folder)) {
    const { data } = splitPage(page, await readFile(folder + page, "utf8"));
    const project = data.project as { cover?: { src?: string }; gallery?: { src?: string }[] };
    const shown = project ? [project.cover, ...(project.gallery ?? [])] : [];
    const sources = shown.map((picture) => picture?.src).filter((src) => typeof src === "string");
    for (const src of sources) (data.layout === "case" ? pictures : kept).add(src);
    if (data.layout === "case") pages.push(page);
  }
  const unshared = [...pictures].filter((src) => !kept.has(src)).sort();
  return [...pages, ...unshared.map((src) => "assets/" + src)];
}

/**
 * The work index pages (layout `work`) describe the studio's work, not the sample's projects.
 *
 * @returns The pages written, relative to the content folder.
 */
async function describeWork(folder: string): Promise<string[]> {
  const descriptions: Record<string, string> = {
    pt: "Projetos recentes da {{name}}, de websites a identidades de marca e produtos digitais.",
    en: "Recent projects by {{name}}, from websites to brand identities and digital products.",
  };
  const written: string[] = [];
  for (const page of await listPages(folder)) {
    const text = await readFile(folder + page, "utf8");
    const { data, front, rest } = splitPage(page, text);
    if (data.layout !== "work") continue;
    const description = toFoldedYaml(descriptions[page.slice(0, 2)], "  ");
    const edited = replaceYamlValues(front, { description });
    await writeFile(folder + page, `---\n${edited}\n---\n${rest}`);
    written.push(page);
  }
  return written;
}

/** The example case study's texts, by language. */
const EXAMPLE_TEXTS = {
  pt: {
    path: "/trabalho/exemplo",
    title: "Exemplo de projeto",
    description: "Um projeto de exemplo, a substituir por um caso de estudo real da {{name}}.",
    client: "Cliente de exemplo",
    tags: ["Website", "Identidade de marca"],
    summary: "Um exemplo a substituir: o que o projeto mudou para o cliente, numa frase.",
    alt: (name: string) => `Imagem de exemplo: o nome ${name} sobre um gradiente de cor.`,
    body: [
      "# Exemplo de projeto",
      "**Este projeto é um exemplo, a substituir.** Escreva um caso de estudo real: copie este " +
      "ficheiro (`content/pt/work_example.md`, com o seu par em `content/en/`), mude o caminho, " +
      "o título e o campo `project`, ponha as fotografias em `content/assets/` e apague este.",
      "## O problema",
      "O que o cliente precisava, e porquê.",
      "## A nossa abordagem",
      "O que a {{name}} fez, e as decisões que contaram.",
      "## Resultados",
      "- Um número que mostre o que mudou",
    ],
  },
  en: {
    path: "/en/work/example",
    title: "Example project",
    description: "An example project, to replace with a real case study by {{name}}.",
    client: "Example client",
    tags: ["Website", "Brand identity"],
    summary: "An example to replace: what the project changed for the client, in one sentence.",
    alt: (name: string) => `Example picture: the name ${name} on a colour gradient.`,
    body: [
      "# Example project",
      "**This project is an example, to replace.** Write a real case study: copy this file " +
      "(`content/en/work_example.md`, with its pair in `content/pt/`), change its path, title " +
      "and `project` field, put the photos in `content/assets/` and delete this one.",
      "## The problem",
      "What the client needed, and why.",
      "## Our approach",
      "What {{name}} did, and the decisions that mattered.",
      "## Results",
      "- A figure that shows what changed",
    ],
  },
} as const;

/**
 * Writes the example case study, both languages, and its photo.
 *
 * @returns The files written, relative to the content folder.
 */
async function writeExample(
  folder: string,
  studio: StudioFacts,
  photo: Uint8Array,
): Promise<string[]> {
  const today = Temporal.Now.plainDateISO(studio.timeZone);
  const written: string[] = [];
  for (const language of LANGUAGES) {
    const texts = EXAMPLE_TEXTS[language];
    const front = new Document({
      path: texts.path,
      title: texts.title,
      description: texts.description,
      updated: today.toString(),
      order: 6.1,
      section: "studio",
      layout: "case",
      project: {
        client: texts.client,
        year: String(today.year),
        tags: texts.tags,
        summary: texts.summary,
        selected: true,
        cover: { src: EXAMPLE_PHOTO, alt: texts.alt(studio.name) },
      },
    });
    (front.getIn(["project", "tags"], true) as YAMLSeq).flow = true;
    const yaml = front.toString({ lineWidth: 100, flowCollectionPadding: false });
    const body = texts.body.map((paragraph) => wrapText(paragraph)).join("\n\n");
    const page = `---\n${yaml}---\n\n${body}\n`;
    await writeFile(`${folder}${language}/${EXAMPLE_PAGE}`, page);
    written.push(`${language}/${EXAMPLE_PAGE}`);
  }
  await writeFile(`${folder}assets/${EXAMPLE_PHOTO}`, photo);
  written.push(`assets/${EXAMPLE_PHOTO}`);
  return written;
}

/** A colour of tokens.yaml, or the fallback when the file or the colour is not there. */
async function readColor(folder: string, scheme: string, name: string, fallback: string) {
  const tokens = parse(await readFile(folder + "tokens.yaml", "utf8").catch(() => "")) as {
    colors?: Record<string, Record<string, unknown>>;
  } | null;
  const color = tokens?.colors?.[scheme]?.[name];
  return typeof color === "string" && /^#[0-9a-f]{3,8}$/i.test(color) ? color : fallback;
}

/** Escapes text for an SVG text node. */
function escapeXml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * The example's photo: a JPEG of {@linkcode PHOTO_SIZE}, a gradient from the tokens' accent to
 * their dark background with the studio's name drawn over it (an SVG overlay, rendered by sharp).
 */
async function drawExamplePhoto(folder: string, name: string): Promise<Uint8Array> {
  const { default: sharp } = await import("sharp");
  const { width, height } = PHOTO_SIZE;
  const from = await readColor(folder, "light", "accent", "#b23a16");
  const to = await readColor(folder, "dark", "background", "#141312");
  const gradient = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/>` +
    `<stop offset="1" stop-color="${to}"/></linearGradient></defs>` +
    `<rect width="${width}" height="${height}" fill="url(#g)"/></svg>`;
  // About 0.6 em a character: a long name gets a smaller size to fit 1,360 px.
  const fontSize = Math.min(144, Math.floor(1360 / (0.6 * [...name].length)));
  const overlay = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<g fill="#ffffff" font-family="Instrument Sans, Arial, Helvetica, sans-serif">` +
    `<text x="120" y="${height / 2 + fontSize / 3}" font-size="${fontSize}" font-weight="700">` +
    `${escapeXml(name)}</text>` +
    `<text x="124" y="${height - 120}" font-size="44" opacity="0.85">` +
    "Exemplo de projeto · Example project</text></g></svg>";
  const bytes = await sharp(Buffer.from(gradient))
    .composite([{ input: Buffer.from(overlay), top: 0, left: 0 }])
    .jpeg({ quality: 82, mozjpeg: true })
    .toBuffer();
  return new Uint8Array(bytes);
}

/** The options, as the command line gives them. */
interface CommandLine {
  values: Partial<Record<keyof NewStudioOptions, string>>;
  force: boolean;
  help: boolean;
  folder: string;
}

/** Reads the command line. @throws {NewStudioError} For an unknown option or a stray argument. */
function readCommandLine(args: string[]): CommandLine {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        name: { type: "string" },
        email: { type: "string" },
        city: { type: "string" },
        "city-en": { type: "string" },
        "time-zone": { type: "string" },
        address: { type: "string" },
        country: { type: "string" },
        content: { type: "string" },
        force: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw new NewStudioError((error as Error).message, { usage: true });
  }
  const { values } = parsed;
  return {
    values: {
      name: values.name,
      email: values.email,
      city: values.city,
      cityEn: values["city-en"],
      timeZone: values["time-zone"],
      address: values.address,
      country: values.country,
    },
    force: values.force ?? false,
    help: values.help ?? false,
    folder: resolve(values.content ?? DEFAULT_CONTENT_FOLDER) + "/",
  };
}

/** Asks on the terminal until `check` takes the answer; an empty answer takes `fallback`. */
function ask(question: string, check: (text: string) => unknown, fallback?: string): string {
  for (;;) {
    const answer = prompt(fallback ? `${question} [${fallback}]:` : `${question}:`);
    if (answer === null) throw new NewStudioError("No answer: nothing was changed");
    const text = answer.trim() || fallback || "";
    try {
      check(text);
      return text;
    } catch (error) {
      console.error((error as Error).message);
    }
  }
}

/** Asks for what the command line left out (on a terminal), or fails naming it. */
async function completeOptions(line: CommandLine): Promise<NewStudioOptions> {
  const { values } = line;
  if (!Deno.stdin.isTerminal()) {
    const missing = (["name", "email", "city", "timeZone"] as const).filter((key) => !values[key]);
    const flags = missing.map((key) => key === "timeZone" ? "--time-zone" : `--${key}`);
    if (missing.length) throw new NewStudioError(`Missing ${flags.join(", ")}`, { usage: true });
    return { ...values, force: line.force } as NewStudioOptions;
  }
  const name = values.name ?? ask("The studio's name", toName);
  const email = values.email ?? ask("Its public e-mail address", toEmail);
  const city = values.city ?? ask("Its city, in Portuguese", (text) => toText("--city", text));
  const cityEn = values.cityEn ??
    ask("Its city, in English", (text) => toText("--city-en", text), city);
  const timeZone = values.timeZone ??
    ask("Its IANA time zone (e.g. America/Sao_Paulo)", toTimeZone);
  const address = values.address ??
    ask("Its street address (empty: none, the pages say the city)", () => true);
  let country = values.country;
  if (!country) {
    const found = await findCountryOfZone(toTimeZone(timeZone));
    country = ask("Its country, for the public holidays (e.g. BR)", toCountryCode, found);
  }
  return { name, email, city, cityEn, timeZone, address, country, force: line.force };
}

/** What to do next, for the person who ran the starter. */
function buildNextSteps(folder: string, name: string): string {
  const shown = folder.replace(resolve(Deno.cwd()) + "/", "");
  return [
    "Next:",
    `  1. Rewrite the pages of ${shown}pt/ and ${shown}en/ (about, services, process, privacy,`,
    "     contact…): they still tell the sample studio's team, history and clients. They say",
    "     {{name}}, {{email}}, {{address}}, {{city}}, {{zone}}, {{timeZone}} and {{hours}}:",
    "     keep those, the build fills them in.",
    `  2. Replace the example case study (${shown}pt/${EXAMPLE_PAGE}, ${shown}en/${EXAMPLE_PAGE}`,
    `     and ${shown}assets/${EXAMPLE_PHOTO}) with ${name}'s own work and photos.`,
    `  3. Colours, typeface and logo: ${shown}tokens.yaml and ${shown}assets/logo.svg.`,
    `  4. Opening hours and meeting length: ${shown}schedule.json.`,
    "  5. deno task build, then deno task start, and open http://localhost:8000/",
    "     (deno task check:content checks every page and link).",
    "  The whole way, from here to a deployment: docs/adopting.md",
  ].join("\n");
}

/** What the starter did, for the person who ran it. */
function buildSummary(report: NewStudioReport, options: NewStudioOptions, folder: string): string {
  const shown = folder.replace(resolve(Deno.cwd()) + "/", "");
  const country = report.country.from === "given"
    ? report.country.code
    : `${report.country.code}, the country of the time zone`;
  const pages = report.removed.filter((file) => file.endsWith(".md"));
  const pictures = report.removed.filter((file) => file.startsWith("assets/"));
  return [
    `${options.name.trim()} is set up in ${shown} (country ${country}):`,
    "  site.yaml: name, e-mail, address, country and city",
    "  schedule.json: time zone, public holidays, meeting place; no closed dates",
    `  the sample's case studies removed: ${pages.length} pages, ${pictures.length} pictures`,
    "  written:",
    ...report.written.map((file) => `    ${shown}${file}`),
    ...(options.address?.trim()
      ? []
      : ["  no street address given: site.yaml's address is the city, change it there"]),
  ].join("\n");
}

/** Runs the starter from the command line. @returns The exit code. */
async function main(args: string[]): Promise<number> {
  try {
    const line = readCommandLine(args);
    if (line.help) {
      console.log(USAGE);
      return 0;
    }
    // Before any question: a studio set up already is refused unless forced.
    await readSampleSettings(line.folder, line.force);
    const options = await completeOptions(line);
    const report = await newStudio(options, line.folder);
    console.log(buildSummary(report, options, line.folder));
    console.log("\n" + buildNextSteps(line.folder, options.name.trim()));
    return 0;
  } catch (error) {
    if (!(error instanceof NewStudioError)) throw error;
    console.error(error.usage ? `${error.message}\n\n${USAGE}` : error.message);
    return error.usage ? 2 : 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
