/**
 * The team desk's webhooks: what it shows (each endpoint's state, the latest deliveries) and what
 * it does (send a test event to an endpoint, enable an endpoint a 410 disabled). The HTML is
 * `render_webhooks_desk.ts`'s.
 *
 * @module
 */
import type { Outbox } from "../mail/outbox.ts";
import type { Clock, Logger } from "../ports.ts";
import { createId } from "../store/ids.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";
import type { AtomicOperation, KvEntry, Store } from "../store/store.ts";
import type { WebhookEvent, WebhookEventType } from "./webhook_events.ts";
import {
  toDisplayUrl,
  toEndpointKey,
  WEBHOOK_DONE_PREFIX,
  WEBHOOK_OUTBOX_PREFIX,
  type WebhookDelivery,
  type WebhookDeliveryRecord,
  type WebhookEndpointState,
  type WebhookOutcome,
} from "./webhook_store.ts";

/** An endpoint as the desk shows it. */
export interface DeskEndpoint {
  /** The endpoint's id (the POST field `endpoint` of the desk's forms). */
  id: string;
  /** Its URL as shown: the origin, and `/…` for a path (which may hold a token). */
  displayUrl: string;
  /** `active`, or `disabled` by a 410 answer. */
  state: "active" | "disabled";
  /** When a 410 disabled it, ISO 8601 UTC. */
  disabledAt?: string;
}

/** A delivery as the desk shows it: waiting, or how it ended. */
export interface DeskDelivery {
  /** The `webhook-id`. */
  id: string;
  endpointId: string;
  type: WebhookEventType;
  /** The inquiry or booking it tells of. */
  recordId: string;
  /** When it was queued, ISO 8601 UTC. */
  createdAt: string;
  /** Attempts so far. */
  attempts: number;
  /** `waiting` (first attempt to come, or retrying), or how it ended. */
  outcome: WebhookOutcome | "waiting";
  /** When it ended, ISO 8601 UTC. */
  finishedAt?: string;
  /** A waiting delivery's next attempt, ISO 8601 UTC. */
  nextAttemptAt?: string;
  /** The last answer's status, if one came. */
  status?: number;
  /** The last failure, e.g. `HTTP 500`. */
  lastError?: string;
}

/** What the desk's webhooks section shows. */
export interface WebhooksDesk {
  /** The configured endpoints, in the configuration's order; empty when webhooks are off. */
  endpoints: DeskEndpoint[];
  /** The latest deliveries, newest first. */
  deliveries: DeskDelivery[];
}

/** The ports the desk's webhooks use: the store, and the outbox that knows the endpoints. */
export interface WebhooksDeskServices {
  store: Store;
  outbox: Pick<Outbox, "addEvents" | "webhookEndpoints" | "wake">;
  clock: Clock;
  logger: Logger;
}

/** The newest entries under a prefix whose ids sort by time. */
async function listNewest<T>(store: Store, prefix: readonly string[], limit: number) {
  const values: T[] = [];
  for await (const entry of store.list<T>({ prefix }, { limit, reverse: true })) {
    values.push(entry.value);
  }
  return values;
}

/**
 * Reads what the desk's webhooks section shows.
 *
 * @param services The store and the outbox.
 * @param options `limit`: the most deliveries listed. @default {20}
 * @returns The endpoints with their states, and the latest deliveries (waiting and finished),
 * newest first.
 * @throws Whatever the store throws.
 */
export async function readWebhooksDesk(
  services: Pick<WebhooksDeskServices, "store" | "outbox">,
  options: { limit?: number } = {},
): Promise<WebhooksDesk> {
  const { store, outbox } = services;
  const limit = options.limit ?? 20;
  const endpoints = await Promise.all(
    outbox.webhookEndpoints().map(async ({ id, url }) => {
      const state = (await store.get<WebhookEndpointState>(toEndpointKey(id))).value;
      const endpoint: DeskEndpoint = { id, displayUrl: toDisplayUrl(url), state: "active" };
      if (state) Object.assign(endpoint, { state: "disabled", disabledAt: state.disabledAt });
      return endpoint;
    }),
  );
  const [waiting, finished] = await Promise.all([
    listNewest<WebhookDelivery>(store, WEBHOOK_OUTBOX_PREFIX, limit),
    listNewest<WebhookDeliveryRecord>(store, WEBHOOK_DONE_PREFIX, limit),
  ]);
  const deliveries: DeskDelivery[] = [
    ...waiting.map(({ payload: _payload, ...delivery }): DeskDelivery => ({
      ...delivery,
      outcome: "waiting",
    })),
    ...finished,
  ];
  // Ids are `msg_` and a ULID: they sort by the time they were queued.
  deliveries.sort((a, b) => a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
  return { endpoints, deliveries: deliveries.slice(0, limit) };
}

/** What a desk action on an endpoint came to. */
export type WebhookDeskOutcome =
  /** A test event was queued: its delivery's id. */
  | { kind: "queued"; deliveryId: string }
  /** The endpoint was enabled again. */
  | { kind: "enabled" }
  /** Nothing to do: the endpoint is active. */
  | { kind: "already-active" }
  /** Not sent: the endpoint is disabled (enable it first). */
  | { kind: "disabled" }
  /** No configured endpoint has this id. */
  | { kind: "not-found" };

/** Options of the desk's actions. */
export interface WebhookDeskActionOptions {
  /** The team member who acts. */
  actor: string;
  /** Adds writes to the action's commit (the desk's audit entry). */
  withCommit?: (operation: AtomicOperation) => void;
}

function isConfigured(services: Pick<WebhooksDeskServices, "outbox">, endpointId: string) {
  return services.outbox.webhookEndpoints().some((endpoint) => endpoint.id === endpointId);
}

/**
 * Queues a `webhook.test` event to one endpoint, delivered and signed as every event is, so the
 * team can check a receiver: its data names the event's own id and who sent it.
 *
 * @param services The store, the outbox, the clock and the logger.
 * @param endpointId The endpoint (the desk's POST field `endpoint`).
 * @param options Who sends it, and writes to commit with it.
 * @returns `queued` with the delivery's id; `disabled` when a 410 disabled the endpoint (it
 * would not be sent); `not-found` for an id no configured endpoint has.
 * @throws Whatever the store throws once its retries are spent.
 */
export async function sendTestEvent(
  services: WebhooksDeskServices,
  endpointId: string,
  options: WebhookDeskActionOptions,
): Promise<WebhookDeskOutcome> {
  const { store, clock, outbox, logger } = services;
  if (!isConfigured(services, endpointId)) return { kind: "not-found" };
  const state = await retry(() => store.get(toEndpointKey(endpointId)), STORE_CONTENTION_RETRY);
  if (state.value) return { kind: "disabled" };
  const now = clock.now();
  const id = createId(now.epochMilliseconds);
  const event: WebhookEvent = {
    type: "webhook.test",
    timestamp: now.toString(),
    data: { id, sentBy: options.actor },
  };
  // Committed only while the endpoint is still active.
  const operation = store.atomic().check(state);
  const [deliveryId] = outbox.addEvents(operation, [
    { recordId: id, event, endpointIds: [endpointId] },
  ]);
  options.withCommit?.(operation);
  if (!(await retry(() => operation.commit(), STORE_CONTENTION_RETRY)).ok) {
    return { kind: "disabled" };
  }
  outbox.wake();
  logger.info("Webhook test event queued", { id: deliveryId, endpoint: endpointId });
  return { kind: "queued", deliveryId };
}

/**
 * Enables an endpoint a 410 answer disabled: events are sent to it again from the next one
 * queued (those queued while it was disabled were dropped).
 *
 * @param services The store and the outbox (which knows the endpoints), and the logger.
 * @param endpointId The endpoint (the desk's POST field `endpoint`).
 * @param options Who enables it, and writes to commit with it.
 * @returns `enabled`; `already-active`; or `not-found` for an id no configured endpoint has.
 * @throws Whatever the store throws once its retries are spent.
 */
export async function enableWebhookEndpoint(
  services: Pick<WebhooksDeskServices, "store" | "outbox" | "logger">,
  endpointId: string,
  options: WebhookDeskActionOptions,
): Promise<WebhookDeskOutcome> {
  const { store, logger } = services;
  if (!isConfigured(services, endpointId)) return { kind: "not-found" };
  for (let attempt = 0; attempt < 5; attempt++) {
    const state = await retry(
      () => store.get<WebhookEndpointState>(toEndpointKey(endpointId)),
      STORE_CONTENTION_RETRY,
    );
    if (!state.value) return { kind: "already-active" };
    const operation = store.atomic().check(state as KvEntry<WebhookEndpointState>)
      .delete(state.key);
    options.withCommit?.(operation);
    if ((await retry(() => operation.commit(), STORE_CONTENTION_RETRY)).ok) {
      logger.info("Webhook endpoint enabled again", { endpoint: endpointId, by: options.actor });
      return { kind: "enabled" };
    }
  }
  throw new Error("Webhook endpoint changed concurrently too often");
}
