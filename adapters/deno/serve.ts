/**
 * The entry for `deno serve`:
 *
 * ```sh
 * deno serve --allow-net --allow-env --allow-read --allow-write \
 *   --allow-sys --host 127.0.0.1 --port 9000 adapters/deno/serve.ts
 * ```
 *
 * The same application as `main.ts`, exported as `{ fetch, onListen }`. `deno serve`'s flags
 * choose the address, so `PORT` and `HOST` are not read; unless `STUDIO_BASE_URL` is set, the
 * base URL (absolute links, the origin browsers may book from) names the port actually served,
 * so the application is built once the server listens, and requests that arrive meanwhile wait.
 * Like `main.ts`, it runs the sources, and builds `build/` first when it is missing.
 *
 * @module
 */
import type { App, Environment } from "../../compose/create_app.ts";
import type { Handler } from "../../compose/create_handler.ts";
import { createDenoHost } from "./deno_host.ts";
import { buildIfMissing } from "./build_if_missing.ts";

// The workers of `deno serve --parallel` share the standard output.
const host = createDenoHost({ sharedOutput: true });
await buildIfMissing({ log: console.log, onDenoDeploy: host.onDenoDeploy });
// Imported once the build exists: the composition imports its modules.
const { buildListeningLine, buildStoppedLine, createApp } = await import(
  "../../compose/create_app.ts"
);
const { env } = host;
const started: { handler?: Handler; app?: App; address?: { hostname: string; port: number } } = {};
const ready = Promise.withResolvers<Handler>();

/** Logs "Listening", as `task start` does, once both the app and the address are known. */
function announce(): void {
  const { app, address } = started;
  if (!app || !address) return;
  app.log.write(buildListeningLine(app.config, address));
  void app.log.flush();
}

function start(environment: Environment): void {
  createApp(environment, host).then((app: App) => {
    // The outbox's timer would keep the process alive: release the app (which writes the log's
    // buffered lines), log "Stopped" last, then leave.
    host.onSignal(() =>
      void app.close().finally(async () => {
        // The log's last line: a request answered after it would not be logged, so none is.
        await app.log.end(buildStoppedLine(started.address?.port ?? 0));
        host.exit(0);
      })
    );
    started.handler = app.handler;
    started.app = app;
    announce();
    ready.resolve(app.handler);
  }, (error: unknown) => {
    console.error(`studio-website: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  });
}

const baseUrlGiven = Boolean(env.STUDIO_BASE_URL?.trim());
// On Deno Deploy, or with a base URL given, nothing waits for the address.
if (baseUrlGiven || host.onDenoDeploy) start(env);

export default {
  onListen(address) {
    const port = "port" in address ? address.port : 8000;
    started.address = { hostname: "hostname" in address ? address.hostname : "localhost", port };
    announce();
    if (baseUrlGiven || host.onDenoDeploy) return;
    start({ ...env, STUDIO_BASE_URL: `http://localhost:${port}` });
  },
  fetch(request, info) {
    // A Unix socket's peer has no address: the client then counts as unknown.
    const client = "hostname" in info.remoteAddr ? { remoteAddr: info.remoteAddr } : {};
    if (!started.handler) return ready.promise.then((handler) => handler(request, client));
    const answer = started.handler(request, client);
    // A response that is ready goes out without a turn of the microtask queue.
    return answer.response ?? answer;
  },
} satisfies Deno.ServeDefaultExport;
