// Adapter with side effects: serves with Bun.serve, hears node:process signals and exits the
// process. Used by adapters/bun/main.ts and by adapters/npm/cli.ts under Bun.
/**
 * The Bun host of the runtime-neutral composition.
 *
 * @module
 */
import process from "node:process";
import { type AppHost, CONNECTION_TIMEOUTS } from "../../lib/host.ts";
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
          // A response that is ready goes out at once, without a turn of the microtask queue.
          return answer.response ?? answer;
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
