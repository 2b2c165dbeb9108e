// Entry with side effects: serves on Node's HTTP server (@hono/node-server), hears node:process
// signals, and opens Deno KV through @deno/kv. Started by `npx @studio/website` (cli.ts).
/**
 * The Node entry (Node 20 and later): the composition of `app.ts` with Deno KV through
 * `@deno/kv` and the handler on `@hono/node-server`.
 *
 * @module
 */
import "temporal-polyfill/global"; // First: Node 20 has no Temporal (installed only where missing).
import process from "node:process";
import { serve } from "@hono/node-server";
import { runApp } from "./app.ts";
import { openNodeKv } from "./lib/node_kv.ts";

await runApp({
  env: process.env,
  openStore: openNodeKv,
  serve: (handler, { port, hostname }) =>
    new Promise((resolve) => {
      const server = serve({
        port,
        hostname,
        fetch: (request, { incoming }) =>
          handler(request, { remoteAddr: { hostname: incoming.socket.remoteAddress } }),
      }, (address) =>
        resolve({
          port: address.port,
          hostname: address.address,
          shutdown: () =>
            new Promise((closed) => {
              server.close(() => closed());
              if ("closeIdleConnections" in server) server.closeIdleConnections();
            }),
        }));
    }),
  onSignal(listener) {
    process.once("SIGINT", listener);
    process.once("SIGTERM", listener);
  },
  exit: (code) => process.exit(code),
});
