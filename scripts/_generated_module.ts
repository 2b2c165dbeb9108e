/**
 * The last step of every build step that generates a module (the corpus, the site prepared ahead,
 * the holiday table, the API types, the API reference's bundle): write it when it changed, or,
 * with `--check`, fail when the file on disk is out of date; the one folder they all live in,
 * apart from the sources (as Fresh keeps `_fresh/`); and the base64 of a corpus's binary assets.
 *
 * @module
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/**
 * The build folder, `build/`: every generated module and file, and nothing else. It is not in
 * git: `deno task build` writes it (and `main.ts` when it is missing); only compose/ and other
 * generated modules import it (tests/architecture_test.ts).
 */
export const BUILD_FOLDER: string = ROOT + "build/";

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
