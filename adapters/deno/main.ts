// Entry with side effects: starts the service on Deno from what `deno task build` made. Run by
// main.ts once build/ exists, and, bundled by the build into build/server/main.js, by Deno Deploy.
/**
 * The service on Deno: the runtime-neutral composition (`compose/create_app.ts`) on the Deno host
 * (Deno KV, `Deno.serve`), with a cron on Deno Deploy that sweeps due booking reminders and
 * retries the outbox.
 *
 * @module
 */
import { type App, runApp } from "../../compose/create_app.ts";
import { createDenoHost } from "./deno_host.ts";

const host = createDenoHost();
const started: { app?: App } = {};
// On Deno Deploy an isolate may sleep between requests: a cron (registered while the module
// loads, as Deploy requires) makes sure due reminders are queued and mail waiting in the outbox
// is still retried.
if (host.onDenoDeploy) {
  Deno.cron("studio-website outbox", "* * * * *", async () => {
    if (started.app?.config.reminderLeadMinutes) await started.app.reminders.sweepDue();
    await started.app?.outbox.deliverDue();
  });
}
started.app = await runApp(host);
