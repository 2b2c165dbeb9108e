/**
 * The last step of every script that generates a module kept in the repository
 * (`content/corpus.generated.ts`, the holiday table, the API types, the API reference's bundle):
 * write it when it changed, or, with `--check`, fail when the file on disk is out of date.
 *
 * @module
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

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
