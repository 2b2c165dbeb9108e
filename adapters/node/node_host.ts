// Adapter with side effects: serves on Node's HTTP server (@hono/node-server), hears node:process
// signals and exits the process. Used by adapters/node/main.ts and by adapters/npm/cli.ts on Node.
/**
 * The Node host (Node 20 and later) of the runtime-neutral composition.
 *
 * @module
 */
import process from "node:process";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { type HttpBindings, serve } from "@hono/node-server";
import type { ResponsePromise } from "../../lib/http/create_pipeline.ts";
import { announcesBody, type AppHost, CONNECTION_TIMEOUTS } from "../../lib/host.ts";
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
          fetch(request, bindings) {
            // @hono/node-server serves on node:http's HTTP/1.1 server unless told otherwise.
            const { incoming, outgoing } = bindings as HttpBindings;
            const answer = handler(request, {
              remoteAddr: { hostname: incoming.socket.remoteAddress },
            });
            const { headers } = incoming;
            if (announcesBody(headers["content-length"], headers["transfer-encoding"])) {
              return closeIfBodyUnfinished(answer, incoming, outgoing);
            }
            // A response that is ready goes out at once: for a promise, @hono/node-server takes
            // its slower path (a close listener and three awaits), which cost a health check on
            // Node about a tenth of its time.
            return answer.response ?? answer;
          },
        }, (address) =>
          resolve({
            port: address.port,
            hostname: address.address,
            // @hono/node-server serves on node:http's HTTP/1.1 server unless told otherwise.
            shutdown: () => shutDown(server as Server),
          }));
      }),
    onSignal(listener) {
      process.once("SIGINT", listener);
      process.once("SIGTERM", listener);
    },
    exit: (code) => process.exit(code),
  };
}

/**
 * The answer to a request that announces a body, which closes its connection once written
 * (`Connection: close`) when the body has not all arrived by the time the answer is ready: a body
 * that did not arrive in time, or one refused or left unread while still arriving. Otherwise the
 * answer says `keep-alive` and the connection waits for the rest: `@hono/node-server` closes it
 * half a second later, except after a GET or HEAD, which Node keeps until one of its timeouts
 * (about 10 s). A body that did arrive whole keeps its connection, read or not.
 */
function closeIfBodyUnfinished(
  answer: ResponsePromise,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Response | Promise<Response> {
  const decide = (response: Response) => {
    if (!incoming.complete) {
      // Node writes `Connection: close` and, once the answer is sent, closes the socket.
      outgoing.shouldKeepAlive = false;
      lingerOnClose(incoming.socket);
    }
    return response;
  };
  return answer.response ? decide(answer.response) : answer.then(decide);
}

/**
 * How long a connection closed after an early answer goes on reading what the client still sends
 * before it is destroyed, in milliseconds: 2 s (the closing within 3 s of SECURITY.md).
 */
const LINGER_MILLISECONDS = 2_000;

/**
 * Makes Node's close of a socket after its answer a lingering close (as nginx's
 * `lingering_close`): Node's `destroySoon()` ends the socket and destroys it as soon as the answer
 * is flushed, and a socket destroyed with unread data answers the client's next bytes with a TCP
 * reset, which may reach the client before it has read the answer (a 1 MiB upload refused with a
 * 413 then fails as "fetch failed"). Instead the socket sends its FIN after the answer, goes on
 * reading and discarding, and is destroyed when the client closes or after
 * {@linkcode LINGER_MILLISECONDS}, whichever comes first.
 *
 * @param socket The request's socket.
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = () => {
    socket.end();
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), LINGER_MILLISECONDS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  };
}

/** How often a stopping server closes the connections that have gone idle since. */
const SWEEP_MILLISECONDS = 50;

/** An answer that closes its connection once sent (`Connection: close`). */
function closeAfterAnswer(_request: unknown, response: ServerResponse): void {
  response.shouldKeepAlive = false;
}

/**
 * Stops a Node server: it stops accepting, answers the requests in flight, and resolves once every
 * connection is closed, at the latest after the grace, when it closes whatever is still open.
 * Node's `close()` closes only the connections idle at that moment; one busy then stays open
 * after its answer and keeps serving its client's next requests until its idle timeout, so a
 * client's kept-alive connections would hold every stop for the whole grace, answering all the
 * while. So from now on each answer closes its connection, and connections gone idle since are
 * closed as they come.
 */
function shutDown(server: Server): Promise<void> {
  return new Promise((closed) => {
    server.prependListener("request", closeAfterAnswer);
    const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MILLISECONDS);
    const deadline = setTimeout(
      () => server.closeAllConnections(),
      CONNECTION_TIMEOUTS.shutdownGraceSeconds * 1000,
    );
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      closed();
    });
  });
}
