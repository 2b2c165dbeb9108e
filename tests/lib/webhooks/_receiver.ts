/**
 * A real webhook receiver for tests: a node:http server on 127.0.0.1 that records every request
 * (headers and raw body) and answers with the statuses it is told, in order (then 200), or holds
 * a request without answering. Internal to tests/.
 *
 * @module
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the receiver got. */
export interface ReceivedWebhook {
  /** The request's headers, lower-cased names. */
  headers: Record<string, string>;
  /** The raw body, as sent. */
  body: string;
  /** The status it was answered with (0: held, never answered). */
  status: number;
}

/** A running receiver. */
export interface TestReceiver {
  /** `http://127.0.0.1:<port>/hooks/studio` */
  url: string;
  /** What it received so far, in order. */
  received: ReceivedWebhook[];
  /**
   * Statuses to answer the next requests with, in order; `"hold"` never answers (a timeout).
   * Once they are used up, it answers 200.
   */
  script: Array<number | "hold">;
  /** Resolves once `count` requests have arrived; rejects after `timeoutMilliseconds`. */
  waitFor(count: number, timeoutMilliseconds?: number): Promise<ReceivedWebhook[]>;
  /** Stops the server (held requests are ended). */
  stop(): Promise<void>;
}

function toHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) result[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return result;
}

/**
 * Starts a receiver on a free loopback port.
 *
 * @param script The first answers' statuses (see {@linkcode TestReceiver.script}).
 */
export async function startReceiver(script: Array<number | "hold"> = []): Promise<TestReceiver> {
  const received: ReceivedWebhook[] = [];
  const held: ServerResponse[] = [];
  const waiters: Array<() => void> = [];
  const receiver = { script: [...script] } as TestReceiver;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const next = receiver.script.shift() ?? 200;
      received.push({
        headers: toHeaders(request.headers),
        body: Buffer.concat(chunks).toString("utf8"),
        status: next === "hold" ? 0 : next,
      });
      for (const wake of waiters.splice(0)) wake();
      if (next === "hold") {
        held.push(response);
        return;
      }
      response.writeHead(next, { "Content-Type": "text/plain" }).end(String(next));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks/studio`,
    received,
    async waitFor(count: number, timeoutMilliseconds = 30_000) {
      const deadline = Date.now() + timeoutMilliseconds;
      while (received.length < count) {
        if (Date.now() >= deadline) {
          throw new Error(`Received ${received.length} of ${count} webhooks in time`);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 200);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received.slice(0, count);
    },
    async stop() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
