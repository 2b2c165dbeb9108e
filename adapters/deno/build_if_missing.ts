// Adapter with side effects: reads the build folder's manifest and may run `deno task build` as a
// child process. Used by main.ts and adapters/deno/serve.ts before they import the composition,
// which imports the build's modules.
/**
 * Makes sure the build folder exists before the service's modules load: a fresh clone has no
 * `build/` (it is not in git), and `deno run -A main.ts` builds it itself, once, saying so in
 * the log. A deployment builds ahead (`deno task build` as Deno Deploy's build step), so the
 * check costs one file stat on every other start.
 *
 * @module
 */

/** The file `deno task build` writes last: while it is missing the build is incomplete. */
export const BUILD_MANIFEST = new URL("../../build/manifest.json", import.meta.url);

/** The build script that `deno task build` runs. */
const BUILD_SCRIPT = new URL("../../scripts/build.ts", import.meta.url);

/** Options of {@linkcode buildIfMissing}. */
export interface BuildIfMissingOptions {
  /** Writes one JSON log line (the service's log). */
  log: (line: string) => void;
  /**
   * Whether the process runs on Deno Deploy, where nothing can be built at run time.
   * @default {false}
   */
  onDenoDeploy?: boolean;
}

/**
 * Runs `deno task build`'s script when the build folder's manifest is missing, with its output on
 * standard error, and logs `{"message":"Building"}` before and `{"message":"Built","seconds"}`
 * after.
 *
 * @param options Where to log, and whether this is Deno Deploy.
 * @throws {Error} When the build fails, or is missing on Deno Deploy (whose build step must run
 * `deno task build`).
 */
export async function buildIfMissing(options: BuildIfMissingOptions): Promise<void> {
  try {
    await Deno.stat(BUILD_MANIFEST);
    return;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (options.onDenoDeploy) {
    throw new Error("build/ is missing: run `deno task build` as the deployment's build step");
  }
  const started = performance.now();
  options.log(JSON.stringify({
    level: "info",
    message: "Building",
    reason: "build/ is missing (a fresh clone): running `deno task build` once",
  }));
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", BUILD_SCRIPT.href],
    cwd: new URL("../../", import.meta.url),
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // The build's progress goes to standard error, leaving standard output to the JSON log.
  await child.stdout.pipeTo(Deno.stderr.writable, { preventClose: true });
  const { success } = await child.status;
  if (!success) throw new Error("`deno task build` failed: see its output above");
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  options.log(JSON.stringify({ level: "info", message: "Built", seconds }));
}
