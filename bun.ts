// Entry with side effects: serves with Bun.serve, hears node:process signals, and opens Deno KV
// through @deno/kv. Run it with `bun bun.ts`, or the npm package's executable under Bun.
/**
 * The Bun entry: the composition of `app.ts` with Deno KV through `@deno/kv` (Bun's own value
 * format: see `adapters/node_kv.ts`) and the handler on `Bun.serve`.
 *
 * @module
 */
import process from "node:process";
import { runApp } from "./app.ts";
import { openNodeKv } from "./adapters/node_kv.ts";

/** The members of Bun's server used here (Bun's types are not part of this Deno project). */
interface BunServer {
  port: number;
  hostname: string;
  requestIP(request: Request): { address: string } | null;
  stop(closeActiveConnections?: boolean): Promise<void>;
}

/** `Bun.serve`, as used here. */
interface BunGlobal {
  serve(options: {
    port: number;
    hostname: string;
    fetch(request: Request, server: BunServer): Promise<Response>;
  }): BunServer;
}

const { Bun } = globalThis as unknown as { Bun: BunGlobal };

await runApp({
  env: process.env,
  openStore: openNodeKv,
  serve(handler, { port, hostname }) {
    const server = Bun.serve({
      port,
      hostname,
      fetch: (request, bun) =>
        handler(request, { remoteAddr: { hostname: bun.requestIP(request)?.address } }),
    });
    return Promise.resolve({
      port: server.port,
      hostname: server.hostname,
      shutdown: () => server.stop(),
    });
  },
  onSignal(listener) {
    process.once("SIGINT", listener);
    process.once("SIGTERM", listener);
  },
  exit: (code) => process.exit(code),
});
