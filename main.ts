/**
 * The Deno entry: `deno run -A main.ts`, `deno task start` and Deno Deploy. It runs the sources:
 * the runtime-neutral composition (`compose/create_app.ts`) on the Deno host
 * (`adapters/deno/deno_host.ts`: Deno KV, `Deno.serve`), so an edit of `lib/` or `routes/` shows
 * at the next start. What `deno task build` generates from `content/` (`build/`, not in git) is
 * built first when it is missing, as on a fresh clone. For `deno serve`, see
 * `adapters/deno/serve.ts`.
 *
 * @module
 */
import type { App } from "./compose/create_app.ts";
import { createDenoHost } from "./adapters/deno/deno_host.ts";
import { buildIfMissing } from "./adapters/deno/build_if_missing.ts";

if (import.meta.main) {
  const host = createDenoHost();
  const started: { app?: App } = {};
  // On Deno Deploy an isolate may sleep between requests: a cron (registered while the module
  // loads, as Deploy requires) makes sure mail waiting in the outbox is still retried.
  if (host.onDenoDeploy) {
    Deno.cron("studio-website outbox", "* * * * *", async () => {
      await started.app?.outbox.deliverDue();
    });
  }
  await buildIfMissing({ log: console.log, onDenoDeploy: host.onDenoDeploy });
  // Imported once the build exists: the composition imports its modules.
  const { runApp } = await import("./compose/create_app.ts");
  started.app = await runApp(host);
}
