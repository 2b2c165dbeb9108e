/**
 * The Deno entry: `deno task start` (`deno run … main.ts`) and Deno Deploy. Deno KV is the store
 * (`STUDIO_KV_PATH`: a file, a KV Connect URL, or on Deno Deploy the platform's KV when unset);
 * the rest is the runtime-neutral composition of `app.ts`. For `deno serve`, see `serve.ts`.
 *
 * @module
 */
import { type App, type AppRuntime, runApp } from "./app.ts";
import { toKvFolder } from "./lib/store/kv_path.ts";

/** How Deno opens the store: `Deno.openKv`, after creating a file's folder. */
export const DENO_RUNTIME: AppRuntime = {
  onDenoDeploy: Deno.env.get("DENO_DEPLOYMENT_ID") !== undefined,
  async openStore(path) {
    const folder = toKvFolder(path);
    if (folder) await Deno.mkdir(folder, { recursive: true });
    return await Deno.openKv(path);
  },
};

if (import.meta.main) {
  const started: { app?: App } = {};
  // On Deno Deploy an isolate may sleep between requests: a cron (registered while the module
  // loads, as Deploy requires) makes sure mail waiting in the outbox is still retried.
  if (DENO_RUNTIME.onDenoDeploy) {
    Deno.cron("studio-website outbox", "* * * * *", async () => {
      await started.app?.outbox.deliverDue();
    });
  }
  started.app = await runApp({
    ...DENO_RUNTIME,
    env: Deno.env.toObject(),
    serve(handler, { port, hostname }) {
      const server = Deno.serve({ port, hostname, onListen() {} }, handler);
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
