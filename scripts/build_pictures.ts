/**
 * The pictures' build step, called by `scripts/build_content.ts`: each SVG picture of a case
 * study becomes AVIF and WebP at a few widths (sharp, rendering the SVG at each width rather
 * than scaling a bitmap), and each page's sharing card a PNG (scripts/build_cards.ts). Their
 * bytes go into modules of their own under `build/files/`, one per picture or card, which the
 * generated corpus imports with `import()` only when one of their files is first asked for, so
 * neither a start nor a page's first request loads them.
 *
 * A module's first lines carry the key of what it was made from (its source, the encoders'
 * settings, sharp's version): the files' URLs are versioned with it, `deno task build`
 * encodes again only the modules whose key changed, and `--check` fails when one is stale.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import type { CorpusRendition, PictureType } from "../lib/site/corpus.ts";
import { BUILD_FOLDER, toBase64, writeGeneratedModule } from "./_generated_module.ts";

/** The folder of the generated modules of files. */
export const FILES_FOLDER = BUILD_FOLDER + "files/";

/**
 * Widths of a picture's renditions, in pixels: 480 for a card on a desktop's three columns,
 * 960 for a phone's full width at 2× (a card or the hero, about 350 CSS px), 1600 for the hero
 * of a desktop's wide column (1344 CSS px at most).
 */
export const RENDITION_WIDTHS: readonly number[] = [480, 960, 1600];

/**
 * The encoders and their settings; part of every picture's key, so a change here (or a new sharp,
 * whose version this names and a test compares with deno.json's) encodes every picture again.
 */
export const ENCODING = {
  encoder: "sharp@0.35.5",
  "image/avif": { quality: 55, effort: 4 },
  "image/webp": { quality: 80, effort: 5 },
} as const;

const EXTENSIONS: Record<PictureType, string> = { "image/avif": "avif", "image/webp": "webp" };

/** A generated module of files: what it is made from, and how. */
export interface FileModulePlan {
  /** Its name: the module is `build/files/<module>.generated.ts`. */
  module: string;
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

/** The version of a file in its URL (`?v=`): the first 16 hex digits of its module's key. */
export function toVersion(key: string): string {
  return key.slice(0, 16);
}

/**
 * Plans the renditions of an SVG picture.
 *
 * @param source The picture's file name under `content/assets/`, e.g. `work-x-cover.svg`.
 * @param svg Its text. @param size Its intrinsic size, from its root element.
 * @returns The renditions (AVIF first, then WebP, each narrowest first) and the module's plan.
 */
export function planPicture(
  source: string,
  svg: string,
  size: { width: number; height: number },
): { renditions: CorpusRendition[]; plan: FileModulePlan } {
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
  const plan: FileModulePlan = {
    module: stem,
    source: `assets/${source}`,
    key: hashParts(JSON.stringify(ENCODING), JSON.stringify(renditions), svg),
    files: renditions,
    encode: () => encodeRenditions(svg, size.width, renditions),
  };
  return { renditions, plan };
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

/** The first line a module of files starts with, naming its key. */
const KEY_LINE = /^\/\/ Key: ([0-9a-f]{64})$/m;

/** The text of a module of files. */
export function renderFileModule(plan: FileModulePlan, files: Record<string, Uint8Array>): string {
  const entries = plan.files.map(({ name }) => {
    const bytes = files[name];
    if (!bytes) throw new Error(`${plan.module}: no bytes for "${name}"`);
    return `  ${JSON.stringify(name)}: ${JSON.stringify(toBase64(bytes))},`;
  });
  return [
    `// Generated by scripts/build_content.ts (scripts/build_pictures.ts) from content/${plan.source}: do not edit by hand.`,
    `// Key: ${plan.key}`,
    "",
    `/** The files made from content/${plan.source}, in base64 by name (see Corpus.loadFiles). */`,
    "export const FILES: Readonly<Record<string, string>> = {",
    ...entries,
    "};",
    "",
  ].join("\n");
}

/** The path of a plan's module. */
export function toModulePath(module: string): string {
  return `${FILES_FOLDER}${module}.generated.ts`;
}

/**
 * The modules whose file on disk is missing or was made from other inputs than its plan's, and
 * the files of the folder that no plan makes.
 *
 * @param plans Every module the corpus names.
 */
export async function findStaleModules(
  plans: readonly FileModulePlan[],
): Promise<{ stale: FileModulePlan[]; extra: string[] }> {
  const stale: FileModulePlan[] = [];
  for (const plan of plans) {
    const text = await readFile(toModulePath(plan.module), "utf8").catch(() => "");
    if (KEY_LINE.exec(text)?.[1] !== plan.key) stale.push(plan);
  }
  const expected = new Set(plans.map((plan) => `${plan.module}.generated.ts`));
  const present = await readdir(FILES_FOLDER).catch(() => [] as string[]);
  // Only the sources: a build of the npm package puts its .js and .d.ts beside them.
  const modules = present.filter((name) => name.endsWith(".generated.ts"));
  return { stale, extra: modules.filter((name) => !expected.has(name)).sort() };
}

/**
 * Writes the modules of files that are missing or stale and removes those no plan makes; with
 * `--check` among the arguments, writes nothing and exits 1 when any is stale or extra.
 *
 * @param plans Every module the corpus names.
 */
export async function writeFileModules(plans: readonly FileModulePlan[]): Promise<void> {
  const { stale, extra } = await findStaleModules(plans);
  if (Deno.args.includes("--check")) {
    if (stale.length || extra.length) {
      const names = [...stale.map((plan) => `${plan.module}.generated.ts`), ...extra];
      console.error(
        `build/files/ is out of date (${names.join(", ")}): run \`deno task build\``,
      );
      Deno.exit(1);
    }
    console.log(`build/files/: ${plans.length} modules are up to date`);
    return;
  }
  await mkdir(FILES_FOLDER, { recursive: true });
  for (const name of extra) await rm(FILES_FOLDER + name);
  for (const plan of stale) {
    await writeGeneratedModule(
      toModulePath(plan.module),
      renderFileModule(plan, await plan.encode()),
      "build",
    );
  }
  if (!stale.length) console.log(`build/files/: ${plans.length} modules are up to date`);
}
