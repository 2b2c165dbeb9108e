/**
 * The webhook tests' shared set-up: a real receiver (a node:http server on 127.0.0.1 that records
 * every request, headers and raw body, and answers with the statuses it is told, in order, then
 * 200, or holds a request without answering), the receivers of one test file, the verification
 * of what arrived with the `standardwebhooks` package, and an outbox whose webhook lane posts to
 * a receiver. Internal to tests/.
 *
 * @module
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import type { Mailer } from "../../../lib/mail/mail.ts";
import { createOutbox, type DeliveryReport, type Outbox } from "../../../lib/mail/outbox.ts";
import type { KvKey, Store } from "../../../lib/store/store.ts";
import {
  createWebhookLane,
  toWebhookEndpoints,
  type WebhookLaneOptions,
} from "../../../lib/webhooks/webhook_lane.ts";
import { createFixedClock, createMemoryStore, type FixedClock } from "../../../testing.ts";
import { createRecordingLogger, type RecordingLogger } from "../../_support.ts";

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

/** The receivers one test file starts, stopped together by its `after` hook. */
export interface ReceiverPool {
  /** Starts a receiver (see {@linkcode startReceiver}) and keeps it to stop. */
  start(script?: Array<number | "hold">): Promise<TestReceiver>;
  /** Stops every receiver started so far. */
  stop(): Promise<void>;
}

/** Creates an empty {@linkcode ReceiverPool}: `after(() => receivers.stop())` in the test file. */
export function createReceiverPool(): ReceiverPool {
  const receivers: TestReceiver[] = [];
  return {
    async start(script = []) {
      const receiver = await startReceiver(script);
      receivers.push(receiver);
      return receiver;
    },
    async stop() {
      for (const receiver of receivers.splice(0)) await receiver.stop();
    },
  };
}

/** A webhook's payload (README's Webhooks; the OpenAPI document's `webhooks` schemas). */
export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * Verifies a received webhook with the `standardwebhooks` package: its `webhook-signature`
 * under `secret` over `webhook-id`, `webhook-timestamp` and the raw body.
 *
 * @param secret The endpoint's secret (`whsec_` and base64).
 * @param request The request as the receiver got it.
 * @returns The parsed payload.
 * @throws {Error} `WebhookVerificationError` when no signature matches, a header is missing or
 * the timestamp is more than 5 minutes from now.
 */
export function verifyWebhook(
  secret: string,
  request: Pick<ReceivedWebhook, "body" | "headers">,
): WebhookPayload {
  return new Webhook(secret).verify(request.body, request.headers) as WebhookPayload;
}

/** An outbox whose webhook lane has one endpoint, a receiver, and what the outbox runs on. */
export interface WebhookOutbox {
  receiver: TestReceiver;
  store: Store;
  clock: FixedClock;
  logger: RecordingLogger;
  outbox: Outbox;
}

/** What {@linkcode createWebhookOutbox} is given; the store, clock and logger are new unless given. */
export interface WebhookOutboxOptions
  extends Pick<WebhookLaneOptions, "timeoutSeconds" | "retryPeriodSeconds"> {
  /** The endpoint: the receiver's URL. */
  receiver: TestReceiver;
  /** The endpoint's secret (`whsec_` and base64). */
  secret: string;
  /** The store of the outbox and the lane. @default {a new memory store} */
  store?: Store;
  /**
   * The clock (standardwebhooks refuses a `webhook-timestamp` more than 5 minutes off).
   * @default {a fixed clock at the real time}
   */
  clock?: FixedClock;
  /** The logger. @default {a new recording logger} */
  logger?: RecordingLogger;
  /** The mailer. @default {none: mail waits in the outbox} */
  mailer?: Mailer;
}

/**
 * Creates an outbox whose webhook lane posts every event to `options.receiver`, signed with
 * `options.secret`. Given the store, clock and logger of another, it is a second process's outbox.
 *
 * @param options The receiver, secret, lane timings and the parts to share.
 * @returns The outbox and what it runs on.
 */
export function createWebhookOutbox(options: WebhookOutboxOptions): WebhookOutbox {
  const { receiver, secret, mailer, timeoutSeconds, retryPeriodSeconds } = options;
  const store = options.store ?? createMemoryStore();
  const clock = options.clock ?? createFixedClock(Temporal.Now.instant());
  const logger = options.logger ?? createRecordingLogger();
  const webhooks = createWebhookLane({
    endpoints: toWebhookEndpoints([{ url: receiver.url, secret }]),
    store,
    clock,
    logger,
    timeoutSeconds,
    retryPeriodSeconds,
  });
  const outbox = createOutbox({ store, mailer, clock, logger, webhooks });
  return { receiver, store, clock, logger, outbox };
}

/** Waits for the delivery pass a commit started, then runs one more (what is due now). */
export async function deliverQueued(outbox: Outbox): Promise<DeliveryReport> {
  await outbox.idle();
  return await outbox.deliverDue();
}

/** The values stored under `prefix`, in key order. */
export async function listValues<T>(store: Store, prefix: KvKey): Promise<T[]> {
  const values: T[] = [];
  for await (const entry of store.list<T>({ prefix })) values.push(entry.value);
  return values;
}
