/**
 * Builds the test suite's fixture studios, each folder of `tests/fixtures/studios/`, into
 * `tests/.build/<name>/` (`deno task build --content <folder> --out <folder>`), which the tests
 * import instead of the service's own `content/` (see tests/_fixture_studio.ts): run by the test
 * runners (scripts/run_tests.ts, scripts/build_npm.ts `--tests`) before any test.
 *
 * @module
 */
import { readdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { runBuild } from "./build.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Where the fixture studios' sources live, one folder each. */
export const FIXTURE_STUDIOS_FOLDER: string = ROOT + "tests/fixtures/studios/";

/** Where they are built, one folder each (not in git). */
export const FIXTURE_BUILD_FOLDER: string = ROOT + "tests/.build/";

/**
 * Builds every fixture studio that is out of date (quick when none is).
 *
 * @returns Whether every build succeeded (the failed one is named on standard error).
 */
export async function buildFixtureStudios(): Promise<boolean> {
  const started = performance.now();
  const entries = await readdir(FIXTURE_STUDIOS_FOLDER, { withFileTypes: true });
  const names = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  for (const name of names) {
    const args = ["--content", FIXTURE_STUDIOS_FOLDER + name, "--out", FIXTURE_BUILD_FOLDER + name];
    // The steps list every file they write: only a failure's message is worth showing here.
    if (!await runBuild(args, "null")) {
      console.error(
        `The fixture studio "${name}" (tests/fixtures/studios/${name}/) failed to build`,
      );
      return false;
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`tests/.build/: fixture studios ${names.join(", ")} are ready (${seconds} s)`);
  return true;
}

if (import.meta.main && !await buildFixtureStudios()) Deno.exit(1);
