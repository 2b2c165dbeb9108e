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
import { openNodeKv } from "./adapters/node_kv.ts";

/** How long requests in flight may take to finish once the service is told to stop. */
const SHUTDOWN_GRACE_MILLISECONDS = 5_000;

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
              // Stop accepting, close kept-alive connections now, and give requests in flight
              // a few seconds before closing whatever is still open: a client's kept-alive
              // connection can otherwise hold the stop for minutes.
              const deadline = setTimeout(() => {
                if ("closeAllConnections" in server) server.closeAllConnections();
              }, SHUTDOWN_GRACE_MILLISECONDS);
              server.close(() => {
                clearTimeout(deadline);
                closed();
              });
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
