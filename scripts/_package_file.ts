/**
 * A file of an npm package the build reads as a file (a font, a browser bundle), wherever Deno
 * keeps the package: `require.resolve` finds it once the package is in Deno's cache, but Deno
 * caches a package when a module imports it, and a file read is no import. So a package missing
 * from a fresh cache is cached first (`deno cache npm:<name>@<version>`, the version that
 * scripts/deno.json pins). Internal to scripts/.
 *
 * @module
 */
import { createRequire } from "node:module";
import config from "./deno.json" with { type: "json" };

const require = createRequire(import.meta.url);
const IMPORTS: Readonly<Record<string, string>> = config.imports;

/**
 * Resolves `<package>/<file>` to an absolute path, caching the package first when it is not in
 * Deno's cache yet.
 *
 * @param specifier The package's name and the file's path in it, e.g.
 * `@fontsource-variable/instrument-sans/files/instrument-sans-latin-wght-normal.woff2`, or the
 * package's name alone for its entry.
 * @returns The file's absolute path.
 * @throws {Error} When the package is not in scripts/deno.json's imports, or cannot be cached.
 */
export async function resolvePackageFile(specifier: string): Promise<string> {
  try {
    return require.resolve(specifier);
  } catch (error) {
    if ((error as { code?: string }).code !== "MODULE_NOT_FOUND") throw error;
  }
  const name = specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
  const pinned = IMPORTS[name];
  if (!pinned?.startsWith("npm:")) {
    throw new Error(`The package "${name}" is not among scripts/deno.json's imports`);
  }
  const { success, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["cache", "--quiet", pinned],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!success) {
    throw new Error(`deno cache ${pinned} failed: ${new TextDecoder().decode(stderr)}`);
  }
  return require.resolve(specifier);
}
