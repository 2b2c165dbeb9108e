/**
 * The entry for `deno serve` (`deno serve --allow-all --host 127.0.0.1 --port 8000 serve.ts`):
 * the same application as `main.ts`, exported as `{ fetch }`; `deno serve`'s flags choose the
 * address, so `PORT` and `HOST` are not read.
 *
 * @module
 */
import { createApp } from "./app.ts";
import { isDenoDeploy, openDenoKv } from "./adapters/deno_kv.ts";

const app = await createApp(Deno.env.toObject(), {
  onDenoDeploy: isDenoDeploy(),
  openStore: openDenoKv,
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  // The outbox's timer would keep the process alive: release the app, then leave.
  Deno.addSignalListener(signal, () => void app.close().finally(() => Deno.exit(0)));
}

export default {
  // A Unix socket's peer has no address: the client then counts as unknown.
  fetch: (request, info) =>
    app.handler(request, "hostname" in info.remoteAddr ? { remoteAddr: info.remoteAddr } : {}),
} satisfies Deno.ServeDefaultExport;
