/**
 * The last step of every script that generates a module kept in the repository
 * (`content/corpus.generated.ts`, the holiday table, the API types, the API reference's bundle):
 * write it when it changed, or, with `--check`, fail when the file on disk is out of date; and
 * the base64 that such modules keep binary files in.
 *
 * @module
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

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
    await writeFile(path, text);
    console.log(`Wrote ${name}`);
  }
}

/**
 * Encodes bytes as base64, the form generated modules keep binary files in (the corpus's assets,
 * the pictures' renditions and the sharing cards).
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
