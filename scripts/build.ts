/**
 * `deno task build`: generates everything the service serves from `content/` and its packages
 * into the one build folder, `build/` (not in git, as Fresh keeps `_fresh/` and Astro `dist/`):
 * the corpus with its pictures, cards and the site prepared ahead, the site's index and the
 * checked schedule (`build_content.ts`), then the public holiday table of the schedule's country
 * (`build_holidays.ts`), the API's types (`build_api_types.ts`) and the API reference's renderer
 * (`build_api_reference.ts`), then the bundle a deployment runs, `build/server/main.js`
 * (`build_server.ts`). Each step runs in a process of its own, since the later ones import
 * what the earlier ones wrote. The manifest (`build/manifest.json`) is written last, once the
 * whole build exists: `main.ts` builds when it is missing (a fresh clone, or a first build that
 * was interrupted), and `deno task dev` restarts the service when it changes.
 *
 * Usage: `deno task build` (`--check` writes nothing and fails when a file is out of date).
 * `deno task build --content <folder> --out <folder>` builds another studio's content (a test's
 * fixture studio, or a studio that imports the handler as a library) into a folder of its own:
 * the studio's steps only (content and holidays), whose modules `createHandler`'s `content`,
 * `schedule` and `holidays` options take.
 *
 * @module
 */
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { BUILD_FOLDER } from "./_generated_module.ts";

/** The steps, in order: each script's file name in scripts/. */
const STEPS = [
  "build_content.ts",
  "build_holidays.ts",
  "build_api_types.ts",
  "build_api_reference.ts",
  "build_server.ts",
] as const;

/** The steps that build a studio's content, for `--out`: the rest belongs to the service. */
const STUDIO_STEPS: readonly string[] = ["build_content.ts", "build_holidays.ts"];

/** The manifest's path: written last, so its presence means the build is whole. */
export const MANIFEST_PATH: string = BUILD_FOLDER + "manifest.json";

/**
 * Runs the build's steps in turn, each in a process of its own, then writes the manifest.
 *
 * @param args The steps' arguments: `--check` writes nothing and fails when a file is out of date.
 * @param output Where the steps' progress goes: inherited, or nowhere (a benchmark's build).
 * @returns Whether every step succeeded (the failed step is named on standard error).
 */
export async function runBuild(
  args: readonly string[] = [],
  output: "inherit" | "null" = "inherit",
): Promise<boolean> {
  const started = performance.now();
  const { values } = parseArgs({
    args: [...args],
    options: { out: { type: "string" } },
    strict: false,
  });
  const out = typeof values.out === "string" ? resolve(values.out) + "/" : undefined;
  const steps = out ? STUDIO_STEPS : STEPS;
  for (const step of steps) {
    const { success } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", new URL(step, import.meta.url).href, ...args],
      stdin: "null",
      stdout: output,
    }).spawn().status;
    if (!success) {
      console.error(`deno task build: ${step} failed`);
      return false;
    }
  }
  if (!args.includes("--check")) {
    const manifest = { builtAt: new Date().toISOString(), steps };
    const path = out ? out + "manifest.json" : MANIFEST_PATH;
    await writeFile(path, JSON.stringify(manifest, null, 2) + "\n");
  }
  if (output === "inherit") {
    console.log(
      `${out ?? "build/"} is ready (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
  return true;
}

if (import.meta.main && !await runBuild(Deno.args)) Deno.exit(1);
