/**
 * The Deno entry: `deno task start` (`deno run … main.ts`) and Deno Deploy. Deno KV is the store
 * (`STUDIO_KV_PATH`: a file, a KV Connect URL, or on Deno Deploy the platform's KV when unset);
 * the rest is the runtime-neutral composition of `app.ts`. For `deno serve`, see `serve.ts`.
 *
 * @module
 */
import { type App, runApp } from "./app.ts";
import { isDenoDeploy, openDenoKv } from "./adapters/deno_kv.ts";
import { createDenoLogOutput } from "./adapters/deno_log_output.ts";

if (import.meta.main) {
  const onDenoDeploy = isDenoDeploy();
  const started: { app?: App } = {};
  // On Deno Deploy an isolate may sleep between requests: a cron (registered while the module
  // loads, as Deploy requires) makes sure mail waiting in the outbox is still retried.
  if (onDenoDeploy) {
    Deno.cron("studio-website outbox", "* * * * *", async () => {
      await started.app?.outbox.deliverDue();
    });
  }
  started.app = await runApp({
    onDenoDeploy,
    openStore: openDenoKv,
    // Deno Deploy's log keeps one entry per console call: there, a line at a time.
    logOutput: onDenoDeploy ? undefined : createDenoLogOutput(),
    env: Deno.env.toObject(),
    serve(handler, { port, hostname }) {
      const server = Deno.serve({ port, hostname, onListen() {} }, (request, info) => {
        const answer = handler(request, info);
        // A response that is ready goes out without a turn of the microtask queue.
        return answer.response ?? answer;
      });
      const address = server.addr as Deno.NetAddr;
      return Promise.resolve({ ...address, shutdown: () => server.shutdown() });
    },
    onSignal(listener) {
      for (const signal of ["SIGINT", "SIGTERM"] as const) {
        try {
          Deno.addSignalListener(signal, listener);
        } catch { /* no signals here (Deno Deploy) */ }
      }
    },
    exit: (code) => Deno.exit(code),
  });
}
