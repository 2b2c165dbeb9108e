// Adapter with side effects: serves with Bun.serve, hears node:process signals and exits the
// process. Used by adapters/bun/main.ts and by adapters/npm/cli.ts under Bun.
/**
 * The Bun host of the runtime-neutral composition.
 *
 * @module
 */
import process from "node:process";
import type { ResponsePromise } from "../../lib/http/create_pipeline.ts";
import { announcesBody, type AppHost, CONNECTION_TIMEOUTS } from "../../lib/host.ts";
import { openNodeKv } from "../node/node_kv.ts";
import { createProcessLogOutput } from "../node/process_log_output.ts";

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
    /** Seconds a connection may be idle before Bun closes it. */
    idleTimeout?: number;
    fetch(request: Request, server: BunServer): Response | Promise<Response>;
  }): BunServer;
}

/**
 * What `fetch` gives Bun for a request: a response that is ready goes out at once, without a turn
 * of the microtask queue; the answer to a request that announces a body goes through
 * {@linkcode closeAfterEarlyAnswer}. GET and HEAD are left as they are: the first read of a
 * request's fields costs Bun about a microsecond (8% of a health check's CPU time) when nothing
 * else reads them, and Bun hands the body of a GET or HEAD to no one (`request.body` is null), so
 * a connection left waiting for one closes at the idle timeout, as an idle one does.
 */
function toBunAnswer(request: Request, answer: ResponsePromise): Response | Promise<Response> {
  const { method } = request;
  if (
    method === "GET" || method === "HEAD" ||
    !announcesBody(request.headers.get("Content-Length"), request.headers.get("Transfer-Encoding"))
  ) {
    return answer.response ?? answer;
  }
  const { response } = answer;
  return response
    ? closeAfterEarlyAnswer(request, response)
    : answer.then((ready) => closeAfterEarlyAnswer(request, ready));
}

/**
 * The answer to a request that announces a body, made to close its connection once written
 * (`Connection: close`, which `Bun.serve` honours) when it may have come before the body did: the
 * body was never read, or the answer refuses the request (status 400 or above: a body that did not
 * arrive in time, one too large, one of a type not accepted). Bun would otherwise keep the
 * connection until its idle timeout. Bun cannot tell whether a body has all arrived, so a refusal
 * of a whole body closes its connection too, at the cost of a new connection for a client whose
 * request was refused; an accepted body that was read keeps its connection.
 */
function closeAfterEarlyAnswer(request: Request, response: Response): Response {
  if (response.status < 400 && request.bodyUsed) return response;
  try {
    response.headers.set("Connection", "close");
    return response;
  } catch {
    // Immutable fields (a `Response.redirect()`): the same answer with a copy of them.
    const headers = new Headers(response.headers);
    headers.set("Connection", "close");
    const { status, statusText } = response;
    return new Response(response.body, { status, statusText, headers });
  }
}

/**
 * The Bun host of `runApp`: the process environment, Deno KV through `@deno/kv` in Bun's own
 * value format, the handler on `Bun.serve` with each request's client address, and
 * SIGINT/SIGTERM.
 *
 * @returns The host.
 */
export function createBunHost(): AppHost {
  const { Bun } = globalThis as unknown as { Bun: BunGlobal };
  return {
    env: process.env,
    openStore: openNodeKv,
    logOutput: createProcessLogOutput(),
    serve(handler, { port, hostname }) {
      const server = Bun.serve({
        port,
        hostname,
        idleTimeout: CONNECTION_TIMEOUTS.idleSeconds,
        fetch(request, bun) {
          const answer = handler(request, {
            remoteAddr: { hostname: bun.requestIP(request)?.address },
          });
          return toBunAnswer(request, answer);
        },
      });
      return Promise.resolve({
        port: server.port,
        hostname: server.hostname,
        shutdown() {
          // Bun's stop() stops accepting, closes idle connections, and waits for those with a
          // request in flight; past the grace it closes them too (stop(true), which itself may
          // not resolve while a handler is pending), so that nothing is answered after it.
          const deadline = setTimeout(
            () => void server.stop(true),
            CONNECTION_TIMEOUTS.shutdownGraceSeconds * 1000,
          );
          return server.stop().finally(() => clearTimeout(deadline));
        },
      });
    },
    onSignal(listener) {
      process.once("SIGINT", listener);
      process.once("SIGTERM", listener);
    },
    exit: (code) => process.exit(code),
  };
}
