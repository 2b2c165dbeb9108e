/**
 * What the store keeps of webhooks: the deliveries waiting in the outbox beside mail, what became
 * of each finished delivery, and each endpoint's state (active, or disabled by a 410 Gone).
 *
 * Keys: `["webhook_outbox", id]` holds a waiting delivery, its id the `webhook-id` sent with every
 * attempt; `["webhook_due", epochMilliseconds, id]` indexes it by the time it is due;
 * `["webhook_done", id]` records its outcome for 30 days (no payload: ids, times, the outcome);
 * `["webhook_endpoint", endpointId]` holds an endpoint's state.
 *
 * @module
 */
import type { WebhookEventType } from "./webhook_events.ts";
import type { KvKey, Store } from "../store/store.ts";

/** Key prefix of waiting deliveries: `["webhook_outbox", id]`. */
export const WEBHOOK_OUTBOX_PREFIX = ["webhook_outbox"] as const;

/** Key prefix of the deliveries' due index: `["webhook_due", epochMilliseconds, id]`. */
export const WEBHOOK_DUE_PREFIX = ["webhook_due"] as const;

/** Key prefix of finished deliveries: `["webhook_done", id]`. */
export const WEBHOOK_DONE_PREFIX = ["webhook_done"] as const;

/** Key prefix of the endpoints' states: `["webhook_endpoint", endpointId]`. */
export const WEBHOOK_ENDPOINT_PREFIX = ["webhook_endpoint"] as const;

/** How long a finished delivery's record is kept, in milliseconds (30 days). */
export const WEBHOOK_DONE_RECORD_MILLISECONDS = 30 * 86_400_000;

/** A configured endpoint: where events are sent and the secret they are signed with. */
export interface WebhookEndpoint {
  /** A stable id derived from the URL: 16 hexadecimal characters (FNV-1a, 64 bits). */
  id: string;
  /** The receiver's URL (https, or http on a loopback address). */
  url: string;
  /** The signing secret, `whsec_` and base64 (Standard Webhooks). */
  secret: string;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = (1n << 64n) - 1n;

/**
 * An endpoint's id: the 64-bit FNV-1a hash of its URL's UTF-8 bytes, in hexadecimal. An
 * identifier, not a secret: stable across restarts and processes, so an endpoint's state
 * follows its URL, and computed at once (no Web Crypto promise), so that every composition,
 * an operator's command included, can make its endpoints synchronously.
 *
 * @param url The endpoint's URL.
 * @returns 16 hexadecimal characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toEndpointId } from "./webhook_store.ts";
 *
 * const id = toEndpointId("https://crm.example/hooks");
 * assert.match(id, /^[0-9a-f]{16}$/);
 * assert.equal(toEndpointId("https://crm.example/hooks"), id, "the same URL, the same id");
 * assert.notEqual(toEndpointId("https://crm.example/other"), id);
 * ```
 */
export function toEndpointId(url: string): string {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(url)) {
    hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & MASK_64;
  }
  return hash.toString(16).padStart(16, "0");
}

/**
 * Gives configured endpoints their ids ({@linkcode toEndpointId}).
 *
 * @param configured The URLs and secrets, as the configuration lists them.
 * @returns The endpoints, in the same order.
 */
export function toWebhookEndpoints(
  configured: ReadonlyArray<{ url: string; secret: string }>,
): WebhookEndpoint[] {
  return configured.map(({ url, secret }) => ({ id: toEndpointId(url), url, secret }));
}

/**
 * An endpoint's URL as the desk and the log show it: the origin, and `/…` for a path, which
 * often holds a token of its own (a Zapier or Slack hook's).
 *
 * @param url The endpoint's URL.
 * @returns E.g. `https://hooks.example/…`.
 */
export function toDisplayUrl(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname === "/" && !parsed.search ? parsed.origin : `${parsed.origin}/…`;
}

/** A delivery waiting in the outbox. */
export interface WebhookDelivery {
  /** The `webhook-id` of every attempt: `msg_` and a ULID. */
  id: string;
  /** The endpoint it goes to. */
  endpointId: string;
  /** The event type. */
  type: WebhookEventType;
  /** The inquiry or booking it tells of. */
  recordId: string;
  /** The payload's JSON as UTF-8 bytes, sent and signed as it is. */
  payload: Uint8Array;
  /** When it was queued, ISO 8601 UTC. */
  createdAt: string;
  /** Failed attempts so far. */
  attempts: number;
  /** When to try next (or until when a process holds it), ISO 8601 UTC. */
  nextAttemptAt: string;
  /** The last failure, e.g. `HTTP 500` or `timed out after 10 s`. */
  lastError?: string;
}

/**
 * How a delivery ended: `delivered` (a 2xx answer); `gone` (410: the endpoint is disabled);
 * `disabled` (not sent: its endpoint was disabled); `unconfigured` (not sent: its endpoint is no
 * longer configured); `expired` (given up: still failing after the retry period).
 */
export type WebhookOutcome = "delivered" | "gone" | "disabled" | "unconfigured" | "expired";

/** What remains of a finished delivery: no payload. */
export interface WebhookDeliveryRecord {
  /** The `webhook-id`. */
  id: string;
  endpointId: string;
  type: WebhookEventType;
  recordId: string;
  /** When it was queued, ISO 8601 UTC. */
  createdAt: string;
  /** When it ended, ISO 8601 UTC. */
  finishedAt: string;
  /** Attempts made (0 when it was not sent). */
  attempts: number;
  outcome: WebhookOutcome;
  /** The HTTP status of the last answer, if one came. */
  status?: number;
  /** The last failure, if any. */
  lastError?: string;
}

/** An endpoint's state as stored; no key means active. */
export interface WebhookEndpointState {
  /** When a 410 answer disabled it, ISO 8601 UTC. */
  disabledAt: string;
  /** The status that disabled it: 410. */
  status: 410;
  /** The delivery that was answered 410. */
  deliveryId: string;
}

/**
 * The key of an endpoint's state.
 *
 * @param endpointId The endpoint's id.
 */
export function toEndpointKey(endpointId: string): KvKey {
  return [...WEBHOOK_ENDPOINT_PREFIX, endpointId];
}

/**
 * Reads an endpoint's state.
 *
 * @param store The store.
 * @param endpointId The endpoint's id.
 * @returns The state when it is disabled; `undefined` when it is active.
 */
export async function readEndpointState(
  store: Store,
  endpointId: string,
): Promise<WebhookEndpointState | undefined> {
  return (await store.get<WebhookEndpointState>(toEndpointKey(endpointId))).value ?? undefined;
}
