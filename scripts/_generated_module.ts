/**
 * The last step of every build step that generates a module (the corpus, the site prepared ahead,
 * the holiday table, the API types, the API reference's bundle): write it when it changed, or,
 * with `--check`, fail when the file on disk is out of date; the one folder they all live in,
 * apart from the sources (as Fresh keeps `_fresh/`); and the base64 of a corpus's binary assets.
 *
 * @module
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The build folder of the service's own studio. */
const DEFAULT_BUILD_FOLDER = ROOT + "build/";

/**
 * What the build's steps were asked for: `--content <folder>` and `--out <folder>` build another
 * studio's content into another folder (a test's fixture studio, a library user's studio).
 */
const { values: BUILD_ARGS } = parseArgs({
  // The suite imports the build's steps on Node and Bun too, where no command line names them.
  args: typeof Deno === "undefined" ? [] : Deno.args,
  options: { content: { type: "string" }, out: { type: "string" } },
  strict: false,
});

/** A folder given on the command line, absolute, with a trailing `/`. */
function toFolder(given: unknown, fallback: string): string {
  return typeof given === "string" ? resolve(given) + "/" : fallback;
}

/**
 * The build folder, `build/`: every generated module and file, and nothing else. It is not in
 * git: `deno task build` writes it (and `main.ts` when it is missing); only compose/ and other
 * generated modules import it (tests/architecture_test.ts). `--out <folder>` builds a studio's
 * content elsewhere.
 */
export const BUILD_FOLDER: string = toFolder(BUILD_ARGS.out, DEFAULT_BUILD_FOLDER);

/** The content folder the build reads, `content/`, or the one `--content <folder>` names. */
export const CONTENT_FOLDER: string = toFolder(BUILD_ARGS.content, ROOT + "content/");

/** Whether the build writes another studio than the service's own (`--out` given). */
export const BUILDS_ELSEWHERE: boolean = BUILD_FOLDER !== DEFAULT_BUILD_FOLDER;

/**
 * Points a generated module's imports of the sources (`"../lib/…"`, written for a module under
 * `build/`) at them from where the module is written, when the build folder is elsewhere.
 */
function relocateImports(path: string, text: string): string {
  if (!BUILDS_ELSEWHERE) return text;
  const writtenFor = dirname(DEFAULT_BUILD_FOLDER + relative(BUILD_FOLDER, path));
  return text.replace(/(from |import\()"((?:\.\.\/)+)([^"]*)"/g, (all, lead, up, rest) => {
    const target = resolve(writtenFor, up + rest);
    if (target.startsWith(DEFAULT_BUILD_FOLDER)) return all;
    const specifier = relative(dirname(path), target).replaceAll("\\", "/");
    return `${lead}"${specifier.startsWith(".") ? specifier : "./" + specifier}"`;
  });
}

/**
 * Writes `text` to `path` unless it is already there; with `--check` among the arguments, writes
 * nothing and exits 1 when the file differs.
 *
 * @param path The module's absolute path.
 * @param text What it must hold.
 * @param task The `deno task` that regenerates it, named in the message of `--check`.
 */
export async function writeGeneratedModule(
  path: string,
  text: string,
  task: string,
): Promise<void> {
  text = relocateImports(path, text);
  const name = path.startsWith(ROOT) ? path.slice(ROOT.length) : path;
  const current = await readFile(path, "utf8").catch(() => "");
  if (current === text) {
    console.log(`${name} is up to date`);
  } else if (Deno.args.includes("--check")) {
    console.error(`${name} is out of date: run \`deno task ${task}\``);
    Deno.exit(1);
  } else {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
    console.log(`Wrote ${name}`);
  }
}

/**
 * Encodes bytes as base64, the form of a corpus's binary asset (`CorpusAsset`, as buildDesign
 * returns the font and icons; the build then writes them to `build/files/`).
 *
 * @param bytes The bytes.
 * @returns Their base64 text.
 */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  }
  return btoa(binary);
}
