/**
 * The pictures' build step, called by `scripts/build_content.ts`: each SVG picture of a case
 * study becomes AVIF and WebP at a few widths (sharp, rendering the SVG at each width rather
 * than scaling a bitmap), each photo (JPEG, PNG, WebP or AVIF) AVIF, WebP and JPEG at those of
 * the widths it has (sharp: upright, never scaled up, without its metadata), and each page's
 * sharing card a PNG (scripts/build_cards.ts). Their bytes are files under `build/files/`, named
 * as they are served, which the service reads only when one is first asked for
 * (`build/files.generated.ts`), so neither a start nor a page's first request reads them.
 *
 * The files made from one source are a group, whose key (a hash of its source, the encoders'
 * settings and sharp's version) is kept beside them in `<group>.key`, written after its files:
 * the files' URLs are versioned with it, `deno task build` encodes again only the groups whose
 * key changed, and `--check` fails when one is stale.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { type CorpusRendition, PICTURE_TYPES, type PictureType } from "../lib/site/corpus.ts";
import { BUILD_FOLDER } from "./_generated_module.ts";

/** The folder of the generated files (pictures' renditions, sharing cards, binary assets). */
export const FILES_FOLDER = BUILD_FOLDER + "files/";

/** The module that reads a file of `FILES_FOLDER` at run time: `Corpus.loadFiles`. */
export const FILE_READER_MODULE_PATH = BUILD_FOLDER + "files.generated.ts";

/**
 * Widths of a picture's renditions, in pixels: 480 for a card on a desktop's three columns, 720
 * for a phone's full width at 1.75× (Lighthouse's mobile, 412 CSS px: a card or the hero about
 * 372 CSS px, 651 pixels; the next width up, 960, is twice the bytes), 960 for a phone's full
 * width at 2× to 2.6×, 1600 for the hero of a desktop's wide column (1344 CSS px at most).
 */
export const RENDITION_WIDTHS: readonly number[] = [480, 720, 960, 1600];

/**
 * The encoders and their settings; part of every picture's key, so a change here (or a new sharp,
 * whose version this names and a test compares with deno.json's) encodes every picture again.
 */
export const ENCODING = {
  encoder: "sharp@0.35.5",
  "image/avif": { quality: 55, effort: 4 },
  "image/webp": { quality: 80, effort: 5 },
} as const;

/**
 * How a photo is encoded besides {@linkcode ENCODING} (kept apart so the SVG pictures' keys stay
 * theirs): its JPEG fallback, on white where the photo is transparent (JPEG has no alpha). Part of
 * every photo's key.
 */
export const PHOTO_ENCODING = {
  "image/jpeg": { quality: 80, mozjpeg: true },
  background: "#ffffff",
} as const;

const EXTENSIONS: Record<PictureType, string> = {
  "image/avif": "avif",
  "image/webp": "webp",
  "image/jpeg": "jpg",
};

/** A photo's file name: a raster format sharp decodes (an SVG is the other kind of picture). */
const PHOTO_NAME = /\.(?:jpe?g|png|webp|avif)$/i;

/** The formats a case study's picture may be in, as a message names them. */
export const PICTURE_FORMATS =
  "JPEG (.jpg, .jpeg), PNG (.png), WebP (.webp), AVIF (.avif) or SVG (.svg)";

/**
 * What kind of picture a file name is, by its extension.
 *
 * @param name A file name, e.g. `work-x-cover.jpg`.
 * @returns `photo` (JPEG, PNG, WebP, AVIF), `svg`, or `undefined` for any other format.
 */
export function toPictureKind(name: string): "photo" | "svg" | undefined {
  if (PHOTO_NAME.test(name)) return "photo";
  return /\.svg$/i.test(name) ? "svg" : undefined;
}

/**
 * Reads a photo's intrinsic size, upright: its EXIF orientation applied, as its renditions are.
 *
 * @param bytes The photo's file.
 * @returns Its width and height in pixels.
 * @throws {Error} When sharp cannot decode it.
 */
export async function readPhotoSize(
  bytes: Uint8Array,
): Promise<{ width: number; height: number }> {
  const { default: sharp } = await import("sharp");
  const { autoOrient } = await sharp(bytes).metadata();
  return { width: autoOrient.width, height: autoOrient.height };
}

/**
 * The widths of a photo's renditions: those of {@linkcode RENDITION_WIDTHS} it covers, never
 * more than its own, or its own width alone when it is narrower than all of them.
 *
 * @param width The photo's width, in pixels.
 */
export function toPhotoWidths(width: number): number[] {
  const widths = RENDITION_WIDTHS.filter((item) => item <= width);
  return widths.length ? widths : [width];
}

/** A group of generated files: what they are made from, and how. */
export interface FileGroupPlan {
  /** Its name: its key is kept in `build/files/<group>.key`. */
  group: string;
  /** The content path of its source, named in its header. */
  source: string;
  /** A SHA-256 of every input, in hex. */
  key: string;
  /** The files it holds by name, with their media types. */
  files: ReadonlyArray<{ name: string; type: string }>;
  /** Makes the files' bytes. */
  encode(): Promise<Record<string, Uint8Array>>;
}

/** A SHA-256 of the parts, in hex. */
export function hashParts(...parts: ReadonlyArray<string | Uint8Array>): string {
  const hash = createHash("sha256");
  for (const part of parts) {
    hash.update(part);
    hash.update("\0");
  }
  return hash.digest("hex");
}

/** The version of a file in its URL (`?v=`): the first 16 hex digits of its group's key. */
export function toVersion(key: string): string {
  return key.slice(0, 16);
}

/**
 * Plans the renditions of an SVG picture.
 *
 * @param source The picture's file name under `content/assets/`, e.g. `work-x-cover.svg`.
 * @param svg Its text. @param size Its intrinsic size, from its root element.
 * @returns The renditions (AVIF first, then WebP, each narrowest first) and the group's plan.
 */
export function planPicture(
  source: string,
  svg: string,
  size: { width: number; height: number },
): { renditions: CorpusRendition[]; plan: FileGroupPlan } {
  const stem = source.replace(/\.svg$/, "");
  const renditions: CorpusRendition[] = [];
  for (const type of ["image/avif", "image/webp"] as const) {
    for (const width of RENDITION_WIDTHS) {
      renditions.push({
        name: `${stem}-${width}.${EXTENSIONS[type]}`,
        type,
        width,
        height: Math.round(width * size.height / size.width),
      });
    }
  }
  const plan: FileGroupPlan = {
    group: stem,
    source: `assets/${source}`,
    key: hashParts(JSON.stringify(ENCODING), JSON.stringify(renditions), svg),
    files: renditions,
    encode: () => encodeRenditions(svg, size.width, renditions),
  };
  return { renditions, plan };
}

/**
 * Plans the renditions of a photo: AVIF, WebP and JPEG at the widths it covers (never scaled up),
 * the largest JPEG its fallback.
 *
 * @param source The photo's file name under `content/assets/`, e.g. `work-x-cover.jpg`.
 * @param bytes Its file. @param size Its intrinsic size, upright ({@linkcode readPhotoSize}).
 * @returns The renditions (AVIF, WebP, then JPEG, each narrowest first), the fallback's name and
 * the group's plan.
 */
export function planPhoto(
  source: string,
  bytes: Uint8Array,
  size: { width: number; height: number },
): { renditions: CorpusRendition[]; fallback: string; plan: FileGroupPlan } {
  const stem = source.replace(PHOTO_NAME, "");
  const widths = toPhotoWidths(size.width);
  const renditions = PICTURE_TYPES.flatMap((type) =>
    widths.map((width): CorpusRendition => ({
      name: `${stem}-${width}.${EXTENSIONS[type]}`,
      type,
      width,
      height: Math.max(1, Math.round(width * size.height / size.width)),
    }))
  );
  const plan: FileGroupPlan = {
    group: stem,
    source: `assets/${source}`,
    key: hashParts(
      JSON.stringify(ENCODING),
      JSON.stringify(PHOTO_ENCODING),
      JSON.stringify(renditions),
      bytes,
    ),
    files: renditions,
    encode: () => encodePhoto(bytes, renditions),
  };
  return { renditions, fallback: renditions[renditions.length - 1].name, plan };
}

/**
 * Scales the photo to each rendition's size and encodes it: upright first (its EXIF orientation
 * applied), then written without its metadata (sharp keeps none unless asked: no EXIF, GPS, XMP,
 * IPTC or ICC profile; its colours converted to sRGB, what a browser assumes without a profile).
 */
async function encodePhoto(
  bytes: Uint8Array,
  renditions: readonly CorpusRendition[],
): Promise<Record<string, Uint8Array>> {
  const { default: sharp } = await import("sharp");
  const files: Record<string, Uint8Array> = {};
  for (const rendition of renditions) {
    const image = sharp(bytes).autoOrient()
      .resize({ width: rendition.width, height: rendition.height, fit: "fill" });
    const encoded = rendition.type === "image/avif"
      ? image.avif(ENCODING["image/avif"])
      : rendition.type === "image/webp"
      ? image.webp(ENCODING["image/webp"])
      : image.flatten({ background: PHOTO_ENCODING.background })
        .jpeg(PHOTO_ENCODING["image/jpeg"]);
    files[rendition.name] = new Uint8Array(await encoded.toBuffer());
  }
  return files;
}

/** Renders the SVG at each rendition's width and encodes it. */
async function encodeRenditions(
  svg: string,
  width: number,
  renditions: readonly CorpusRendition[],
): Promise<Record<string, Uint8Array>> {
  const { default: sharp } = await import("sharp");
  const source = new TextEncoder().encode(svg);
  const files: Record<string, Uint8Array> = {};
  for (const rendition of renditions) {
    // The SVG drawn at the rendition's size (72 dpi is its own size), not a bitmap scaled down.
    const image = sharp(source, { density: 72 * rendition.width / width })
      .resize({ width: rendition.width, height: rendition.height, fit: "fill" });
    const encoded = rendition.type === "image/avif"
      ? image.avif(ENCODING["image/avif"])
      : image.webp(ENCODING["image/webp"]);
    files[rendition.name] = new Uint8Array(await encoded.toBuffer());
  }
  return files;
}

/** The path of a group's key file. */
export function toKeyPath(group: string): string {
  return `${FILES_FOLDER}${group}.key`;
}

/**
 * The text of `build/files.generated.ts`: `Corpus.loadFiles` over the files of `build/files/`,
 * read with `node:fs/promises` (Deno, Deno Deploy, Node and Bun alike), imported only by the first
 * request for a file.
 */
export function renderFileReaderModule(): string {
  return [
    "// Generated by scripts/build_content.ts (scripts/build_pictures.ts): do not edit by hand.",
    'import type { LoadFiles } from "../lib/site/corpus.ts";',
    "",
    "/** Reads a file of build/files/ (a picture's rendition, a sharing card, a font) by name. */",
    "export const loadFiles: LoadFiles = async (name) => {",
    '  const { readFile } = await import("node:fs/promises");',
    "  const bytes = await readFile(new URL(`./files/${encodeURIComponent(name)}`, import.meta.url));",
    "  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) as Uint8Array<ArrayBuffer>;",
    "};",
    "",
  ].join("\n");
}

/**
 * The groups whose key file is missing or names other inputs than its plan's, or one of whose
 * files is missing; and the files of the folder that no plan makes.
 *
 * @param plans Every group the corpus names.
 */
export async function findStaleFiles(
  plans: readonly FileGroupPlan[],
): Promise<{ stale: FileGroupPlan[]; extra: string[] }> {
  const present = new Set(await readdir(FILES_FOLDER).catch(() => [] as string[]));
  const stale: FileGroupPlan[] = [];
  for (const plan of plans) {
    const key = await readFile(toKeyPath(plan.group), "utf8").catch(() => "");
    if (key.trim() !== plan.key || plan.files.some(({ name }) => !present.has(name))) {
      stale.push(plan);
    }
  }
  const expected = new Set(
    plans.flatMap((plan) => [`${plan.group}.key`, ...plan.files.map(({ name }) => name)]),
  );
  // The files no plan makes; a build of the npm package puts nothing here.
  return { stale, extra: [...present].filter((name) => !expected.has(name)).sort() };
}

/**
 * Writes the files of the groups that are missing or stale (their key last) and removes the files
 * no plan makes; with `--check` among the arguments, writes nothing and exits 1 when any is stale
 * or extra.
 *
 * @param plans Every group the corpus names.
 */
export async function writeFileGroups(plans: readonly FileGroupPlan[]): Promise<void> {
  const { stale, extra } = await findStaleFiles(plans);
  if (Deno.args.includes("--check")) {
    if (stale.length || extra.length) {
      const names = [...stale.map((plan) => `${plan.group}.key`), ...extra];
      console.error(`build/files/ is out of date (${names.join(", ")}): run \`deno task build\``);
      Deno.exit(1);
    }
    console.log(`build/files/: ${plans.length} groups are up to date`);
    return;
  }
  await mkdir(FILES_FOLDER, { recursive: true });
  for (const name of extra) await rm(FILES_FOLDER + name);
  for (const plan of stale) {
    const files = await plan.encode();
    for (const { name } of plan.files) {
      const bytes = files[name];
      if (!bytes) throw new Error(`${plan.group}: no bytes for "${name}"`);
      await writeFile(FILES_FOLDER + name, bytes);
    }
    await writeFile(toKeyPath(plan.group), plan.key + "\n");
    console.log(`Wrote build/files/ of ${plan.source} (${plan.files.length} files)`);
  }
  if (!stale.length) console.log(`build/files/: ${plans.length} groups are up to date`);
}
