// Adapter with side effects: serves on Node's HTTP server (@hono/node-server), hears node:process
// signals and exits the process. Used by node.ts and by cli.ts on Node.
/**
 * The Node host (Node 20 and later) of the runtime-neutral composition.
 *
 * @module
 */
import process from "node:process";
import { serve } from "@hono/node-server";
import { type AppHost, CONNECTION_TIMEOUTS } from "../lib/host.ts";
import { openNodeKv } from "./node_kv.ts";
import { createProcessLogOutput } from "./process_log_output.ts";

/**
 * The Node host of `runApp`: the process environment, Deno KV through `@deno/kv`, the handler on
 * `@hono/node-server` with the client address of each connection, and SIGINT/SIGTERM.
 *
 * @returns The host.
 */
export function createNodeHost(): AppHost {
  return {
    env: process.env,
    openStore: openNodeKv,
    logOutput: createProcessLogOutput(),
    serve: (handler, { port, hostname }) =>
      new Promise((resolve) => {
        const server = serve({
          port,
          hostname,
          serverOptions: {
            headersTimeout: CONNECTION_TIMEOUTS.headersSeconds * 1000,
            requestTimeout: CONNECTION_TIMEOUTS.requestSeconds * 1000,
            keepAliveTimeout: CONNECTION_TIMEOUTS.idleSeconds * 1000,
            // How often Node checks the two timeouts above (by default every 30 s).
            connectionsCheckingInterval: 1000,
          },
          fetch(request, { incoming }) {
            const answer = handler(request, {
              remoteAddr: { hostname: incoming.socket.remoteAddress },
            });
            // A response that is ready goes out at once: for a promise, @hono/node-server takes
            // its slower path (a close listener and three awaits), which cost a health check on
            // Node about a tenth of its time.
            return answer.response ?? answer;
          },
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
                }, CONNECTION_TIMEOUTS.shutdownGraceSeconds * 1000);
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
  };
}
