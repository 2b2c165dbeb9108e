/**
 * `deno task dev`: the service as `deno task start` runs it, restarted when it should show an
 * edit: `deno run --watch` restarts it when a module it runs changes (`lib/`, `routes/`,
 * `compose/`, `adapters/`), and this script rebuilds `build/` when `content/` or the service's
 * browser files (`lib/site/style/`, `lib/site/browser/`) change (`deno task build`, which encodes again only what changed), then restarts it on the new build.
 *
 * Usage: `deno task dev` (environment variables as for `deno task start`)
 *
 * @module
 */
import { runBuild } from "./build.ts";

const ROOT = new URL("../", import.meta.url);
/** How long the content folder must be still before a build starts (ms): an editor saves twice. */
const SETTLE_MILLISECONDS = 300;
/**
 * How long a stopping service may take (ms). `deno run --watch` stops the service on SIGTERM (its
 * log ends with "Stopped") but then waits for the next change instead of exiting, so it is
 * killed once the service has had this long to stop.
 */
const STOP_GRACE_MILLISECONDS = 3_000;

/** Runs `deno task build`; true when it succeeded. */
async function build(): Promise<boolean> {
  const success = await runBuild();
  if (!success) console.error("deno task dev: the build failed; the service keeps the last one");
  return success;
}

/** Starts the service, watching its sources but not build/, which only a build changes. */
function startService(): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--watch", "--watch-exclude=build/", "main.ts"],
    cwd: ROOT,
    stdin: "null",
  }).spawn();
}

/** Stops the service: SIGTERM, then SIGKILL after the grace (see STOP_GRACE_MILLISECONDS). */
async function stopService(child: Deno.ChildProcess): Promise<void> {
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MILLISECONDS);
  await child.status;
  clearTimeout(timer);
}

await build();
let service = startService();
let stopping = false;
let timer: ReturnType<typeof setTimeout> | undefined;
let queue = Promise.resolve();
const watcher = Deno.watchFs(
  ["content/", "lib/site/style/", "lib/site/browser/"].map((path) => new URL(path, ROOT).pathname),
  { recursive: true },
);

/** Builds, then restarts the service on the new build (one build at a time). */
function rebuild(): void {
  queue = queue.then(async () => {
    console.error("deno task dev: content/ or lib/site/ changed: building");
    if (!await build() || stopping) return;
    await stopService(service);
    if (!stopping) service = startService();
  });
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    stopping = true;
    watcher.close();
  });
}
for await (const _event of watcher) {
  clearTimeout(timer);
  timer = setTimeout(rebuild, SETTLE_MILLISECONDS);
}
clearTimeout(timer);
await queue;
await stopService(service);
