/**
 * The Deno entry: `deno task start` (`deno run … main.ts`) and Deno Deploy. The runtime-neutral
 * composition of `app.ts` on the Deno host (`adapters/deno_host.ts`: Deno KV, `Deno.serve`),
 * both run from their bundle in `build/server/` (`deno task build:server`), which Deno starts
 * sooner than the sources. For `deno serve`, see `serve.ts`.
 *
 * @module
 */
// @ts-types="./app.ts"
import { type App, runApp } from "./build/server/app.js";
// @ts-types="./adapters/deno_host.ts"
import { createDenoHost } from "./build/server/adapters/deno_host.js";

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
  started.app = await runApp(host);
}
