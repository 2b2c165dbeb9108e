/**
 * The ports of a runtime host: what the runtime-neutral composition (`app.ts`) needs from Deno,
 * Node or Bun — how to open the store, serve a handler, hear signals and exit. The entries and
 * `adapters/` implement them.
 *
 * @module
 */
import type { Environment } from "./config.ts";
import type { Handler } from "./http/create_pipeline.ts";
import type { Logger, LogOutput } from "./ports.ts";
import type { Store } from "./store/store.ts";

/** Opens the store: a file path, a KV Connect URL, or `undefined` for the platform's KV. */
export type OpenStore = (path: string | undefined) => Promise<Store>;

/** What `createApp` needs from the runtime. */
export interface AppRuntime {
  /** Opens the store named by `STUDIO_KV_PATH` (creating a file's folder where needed). */
  openStore: OpenStore;
  /** Whether this is Deno Deploy, where an unset `STUDIO_KV_PATH` means the platform's KV. */
  onDenoDeploy?: boolean;
  /**
   * The standard output: the request log, `info` lines and the host's own lines ("Listening",
   * "Stopped") go there in batches (see `createLogWriter`). Without it, each line is written at
   * once with `console.log`, as on Deno Deploy, whose log collects one entry per call.
   */
  logOutput?: LogOutput;
  /**
   * The logger of the services (warnings, errors, notes such as mail delivered).
   * @default {JSON lines: `info` to `logOutput`, `warn` and `error` to `console.error`}
   */
  logger?: Logger;
}

/**
 * The connection timeouts the hosts set where their server allows it: a client that
 * trickles its request head must not hold a connection for good. Node enforces all three; Bun
 * closes a connection idle for `idleSeconds`; Deno's `Deno.serve` has no such setting, so a
 * self-hosted Deno server belongs behind a proxy that enforces them (Deno Deploy's does). The
 * same holds for a request whose body never arrives: Node and Bun close its connection once it
 * is answered (see {@linkcode announcesBody}), while `Deno.serve` keeps it until the client
 * sends the rest.
 */
export const CONNECTION_TIMEOUTS = Object.freeze({
  /** Seconds to receive the whole request head (request line and header fields). */
  headersSeconds: 10,
  /** Seconds to receive the whole request, body included (the body reader's own limit is 10). */
  requestSeconds: 30,
  /** Seconds a kept-alive connection may sit idle between requests. */
  idleSeconds: 10,
  /**
   * Seconds a stopping server gives the requests in flight (those still waiting for their body
   * are answered 503 at once) before the process leaves without waiting for the connections
   * still open: a server's graceful shutdown waits for every connection to end, and a client that
   * never finishes its request would hold it for good.
   */
  shutdownGraceSeconds: 5,
});

/** Where a server listens. */
export interface ServeOptions {
  /** TCP port, 0 for a free one. */
  port: number;
  /** Address to listen on. */
  hostname: string;
}

/** A server that listens. */
export interface Listening {
  /** The port it listens on. */
  port: number;
  /** The address it listens on. */
  hostname: string;
  /**
   * Stops accepting connections and waits for open requests to finish (`runApp` waits at most
   * `CONNECTION_TIMEOUTS.shutdownGraceSeconds` for it).
   */
  shutdown(): Promise<void>;
}

/** What `runApp` needs from the runtime besides {@linkcode AppRuntime}. */
export interface AppHost extends AppRuntime {
  /** The environment. */
  env: Environment;
  /** Serves a handler; resolves once it listens. */
  serve(handler: Handler, options: ServeOptions): Promise<Listening>;
  /** Calls `listener` on SIGINT and SIGTERM (where the platform has signals). */
  onSignal(listener: () => void): void;
  /** Ends the process. */
  exit(code: number): void;
}

/**
 * Whether a request announces a body (RFC 9112, 6.3): a `Transfer-Encoding` field, or a
 * `Content-Length` other than 0. A server must have read such a body before it can read the
 * connection's next request; when the answer comes first (the body did not arrive in time, or the
 * request was refused or answered without reading it), the hosts close the connection once the
 * answer is written (`Connection: close`, RFC 9112, 9.6) instead of waiting for the rest of a
 * body that may never come: on Node when the body has not all arrived by then; on Bun when it was
 * not read or the answer is a refusal (status 400 or above), as Bun cannot tell whether a body has
 * all arrived, and except for GET and HEAD, whose bodies Bun hands to no one (such a connection
 * closes at the idle timeout, as an idle one does). `Deno.serve` (2.9) gives a handler no way to
 * close a connection: it reads and discards the rest of the body first, however long it takes
 * (see `CONNECTION_TIMEOUTS`).
 *
 * A request with neither field has no body, and its connection is kept as before.
 *
 * @param contentLength The request's `Content-Length` field, `null` or `undefined` when absent.
 * @param transferEncoding The request's `Transfer-Encoding` field, likewise.
 * @returns `true` when the request has a body to read.
 */
export function announcesBody(
  contentLength: string | null | undefined,
  transferEncoding: string | null | undefined,
): boolean {
  return transferEncoding != null || (contentLength != null && Number(contentLength) !== 0);
}
