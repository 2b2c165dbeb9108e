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
 * Usage: `deno task build` (`--check` writes nothing and fails when a file is out of date)
 *
 * @module
 */
import { writeFile } from "node:fs/promises";
import { BUILD_FOLDER } from "./_generated_module.ts";

/** The steps, in order: each script's file name in scripts/. */
const STEPS = [
  "build_content.ts",
  "build_holidays.ts",
  "build_api_types.ts",
  "build_api_reference.ts",
  "build_server.ts",
] as const;

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
  for (const step of STEPS) {
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
    const manifest = { builtAt: new Date().toISOString(), steps: STEPS };
    await writeFile(MANIFEST_PATH, JSON.stringify(manifest, null, 2) + "\n");
  }
  if (output === "inherit") {
    console.log(`build/ is ready (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  return true;
}

if (import.meta.main && !await runBuild(Deno.args)) Deno.exit(1);
