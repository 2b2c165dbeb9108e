/**
 * The outbox's webhook lane (Standard Webhooks 1.0): events are queued in the commit of the
 * record they tell of, one delivery per endpoint, and POSTed from the outbox, signed with the
 * endpoint's secret by the `standardwebhooks` package.
 *
 * Each attempt sends the payload with `webhook-id` (the delivery's id, the same on every retry, so
 * that a receiver can drop a repeat), `webhook-timestamp` (the attempt's time, Unix seconds) and
 * `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`). A 2xx answer
 * delivers it; a 410 Gone disables the endpoint until the team enables it again on the desk (as
 * Calendly does with a subscription), and the deliveries still queued for it are dropped when
 * their turn comes; a timeout, a network failure or any other status is retried with backoff
 * (5 s, doubling, at most an hour apart) for 72 hours, then given up. Redirects are not followed:
 * a 3xx is a failure, so an endpoint moved elsewhere is fixed in the configuration.
 *
 * @module
 */
import type { AttemptOutcome, OutcomeLogLine, WebhookLane } from "../mail/outbox.ts";
import type { Clock, Logger } from "../ports.ts";
import { createId } from "../store/ids.ts";
import type { AtomicOperation, Store } from "../store/store.ts";
import { loadOnce } from "../load_once.ts";
import { SERVICE_NAME } from "../contract/contract.ts";
import type { QueuedEvent } from "./webhook_events.ts";
import {
  readEndpointState,
  toDisplayUrl,
  toEndpointKey,
  WEBHOOK_DONE_PREFIX,
  WEBHOOK_DONE_RECORD_MILLISECONDS,
  WEBHOOK_DUE_PREFIX,
  WEBHOOK_OUTBOX_PREFIX,
  type WebhookDelivery,
  type WebhookDeliveryRecord,
  type WebhookEndpoint,
  type WebhookEndpointState,
  type WebhookOutcome,
} from "./webhook_store.ts";

export { toWebhookEndpoints } from "./webhook_store.ts";

/** Options of {@linkcode createWebhookLane}. */
export interface WebhookLaneOptions {
  /** The endpoints, with their ids (`toWebhookEndpoints`). */
  endpoints: readonly WebhookEndpoint[];
  /** The store that holds the endpoints' states. */
  store: Store;
  /** The clock: queueing times, the `webhook-timestamp` of each attempt. */
  clock: Clock;
  /** Where a disabled endpoint and given-up deliveries are told. */
  logger: Logger;
  /** The fetch function. @default {globalThis.fetch} */
  fetch?: typeof globalThis.fetch;
  /** How long an attempt waits for the receiver's answer, in seconds. @default {10} */
  timeoutSeconds?: number;
  /** Seconds before the first retry; each further retry waits twice as long. @default {5} */
  retryBaseSeconds?: number;
  /** The longest wait between retries, in seconds. @default {3600} */
  retryMaxSeconds?: number;
  /** How long after queueing a failing delivery is given up, in seconds. @default {259200} */
  retryPeriodSeconds?: number;
}

/** The `standardwebhooks` package, loaded with the first delivery rather than at start-up. */
type StandardWebhooks = typeof import("standardwebhooks");

/** What one POST came to: the answer's status, or why none came. */
type Answer = { status: number } | { error: string };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

/** Adds one delivery per event and endpoint to `operation`. */
function addDeliveries(
  operation: AtomicOperation,
  events: readonly QueuedEvent[],
  endpoints: readonly WebhookEndpoint[],
  clock: Clock,
): string[] {
  const now = clock.now();
  const createdAt = now.toString();
  const ids: string[] = [];
  for (const { recordId, event, endpointIds } of events) {
    const payload = encoder.encode(JSON.stringify(event));
    for (const endpoint of endpoints) {
      if (endpointIds && !endpointIds.includes(endpoint.id)) continue;
      const id = `msg_${createId(now.epochMilliseconds)}`;
      const delivery: WebhookDelivery = {
        id,
        endpointId: endpoint.id,
        type: event.type,
        recordId,
        payload,
        createdAt,
        attempts: 0,
        nextAttemptAt: createdAt,
      };
      operation.set([...WEBHOOK_OUTBOX_PREFIX, id], delivery)
        .set([...WEBHOOK_DUE_PREFIX, now.epochMilliseconds, id], id);
      ids.push(id);
    }
  }
  return ids;
}

/** The settings and ports one attempt uses, resolved once per lane. */
interface Sending {
  endpoints: ReadonlyMap<string, WebhookEndpoint>;
  store: Store;
  clock: Clock;
  fetch: typeof globalThis.fetch;
  timeoutMilliseconds: number;
  retryPeriodMilliseconds: number;
  /** The signer of each endpoint, made with its first delivery. */
  signers: Map<string, InstanceType<StandardWebhooks["Webhook"]>>;
  loadStandardWebhooks(): Promise<StandardWebhooks>;
}

/** POSTs a delivery to its endpoint, signed for this attempt; never rejects. */
async function post(
  sending: Sending,
  endpoint: WebhookEndpoint,
  delivery: WebhookDelivery,
): Promise<Answer> {
  try {
    let signer = sending.signers.get(endpoint.id);
    if (!signer) {
      const { Webhook } = await sending.loadStandardWebhooks();
      signer = new Webhook(endpoint.secret);
      sending.signers.set(endpoint.id, signer);
    }
    const body = decoder.decode(delivery.payload);
    const sentAt = new Date(sending.clock.now().epochMilliseconds);
    const response = await sending.fetch(endpoint.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "User-Agent": `${SERVICE_NAME} webhooks`,
        "webhook-id": delivery.id,
        "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
        "webhook-signature": signer.sign(delivery.id, sentAt, body),
      },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(sending.timeoutMilliseconds),
    });
    await response.body?.cancel().catch(() => undefined);
    return { status: response.status };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    return {
      error: timedOut ? `timed out after ${sending.timeoutMilliseconds / 1000} s` : describe(error),
    };
  }
}

/** A finished delivery's outcome: its record, and the log line it calls for. */
function finish(
  sending: Sending,
  delivery: WebhookDelivery,
  result: { outcome: WebhookOutcome; attempts: number; status?: number; lastError?: string },
  log: OutcomeLogLine,
): AttemptOutcome<WebhookDeliveryRecord> {
  const record: WebhookDeliveryRecord = {
    id: delivery.id,
    endpointId: delivery.endpointId,
    type: delivery.type,
    recordId: delivery.recordId,
    createdAt: delivery.createdAt,
    finishedAt: sending.clock.now().toString(),
    attempts: result.attempts,
    outcome: result.outcome,
    ...(result.status === undefined ? {} : { status: result.status }),
    ...(result.lastError === undefined ? {} : { lastError: result.lastError }),
  };
  return {
    kind: "done",
    record,
    counted: result.outcome === "delivered" ? "sent" : "dropped",
    log: { ...log, fields: { id: delivery.id, type: delivery.type, ...log.fields } },
  };
}

/** The outcome of a 410 Gone: the endpoint is disabled in the same commit. */
function disable(
  sending: Sending,
  endpoint: WebhookEndpoint,
  delivery: WebhookDelivery,
): AttemptOutcome<WebhookDeliveryRecord> {
  const state: WebhookEndpointState = {
    disabledAt: sending.clock.now().toString(),
    status: 410,
    deliveryId: delivery.id,
  };
  const outcome = finish(sending, delivery, {
    outcome: "gone",
    attempts: delivery.attempts + 1,
    status: 410,
  }, {
    level: "warn",
    message:
      "Webhook endpoint answered 410 Gone and is disabled: enable it again on the team's desk",
    fields: { endpoint: endpoint.id, url: toDisplayUrl(endpoint.url) },
  });
  if (outcome.kind === "done") {
    outcome.withCommit = (operation) => operation.set(toEndpointKey(endpoint.id), state);
  }
  return outcome;
}

/** Makes one attempt at a delivery; see the module's documentation for the outcomes. */
async function attempt(
  sending: Sending,
  delivery: WebhookDelivery,
): Promise<AttemptOutcome<WebhookDeliveryRecord>> {
  const endpoint = sending.endpoints.get(delivery.endpointId);
  const attempts = delivery.attempts;
  if (!endpoint) {
    return finish(sending, delivery, { outcome: "unconfigured", attempts }, {
      level: "warn",
      message: "Webhook dropped: its endpoint is no longer configured",
      fields: { endpoint: delivery.endpointId },
    });
  }
  let state: WebhookEndpointState | undefined;
  try {
    state = await readEndpointState(sending.store, endpoint.id);
  } catch (error) {
    return { kind: "retry", error: `The endpoint's state could not be read: ${describe(error)}` };
  }
  if (state) {
    return finish(sending, delivery, { outcome: "disabled", attempts }, {
      level: "info",
      message: "Webhook dropped: its endpoint is disabled",
      fields: { endpoint: endpoint.id },
    });
  }
  const answer = await post(sending, endpoint, delivery);
  if ("status" in answer && answer.status >= 200 && answer.status < 300) {
    return finish(sending, delivery, {
      outcome: "delivered",
      attempts: attempts + 1,
      status: answer.status,
    }, { level: "info", message: "Webhook delivered", fields: { attempts: attempts + 1 } });
  }
  if ("status" in answer && answer.status === 410) return disable(sending, endpoint, delivery);
  const error = "status" in answer ? `HTTP ${answer.status}` : answer.error;
  const ageMilliseconds = sending.clock.now().epochMilliseconds -
    Temporal.Instant.from(delivery.createdAt).epochMilliseconds;
  if (ageMilliseconds < sending.retryPeriodMilliseconds) return { kind: "retry", error };
  return finish(sending, delivery, {
    outcome: "expired",
    attempts: attempts + 1,
    ...("status" in answer ? { status: answer.status } : {}),
    lastError: error,
  }, {
    level: "error",
    message: "Webhook given up: still failing after the retry period",
    fields: { endpoint: endpoint.id, attempts: attempts + 1, error },
  });
}

/**
 * Creates the webhook lane of an outbox (`createOutbox`'s `webhooks`).
 *
 * @param options The endpoints, the store, clock and logger, and the timeout and retries.
 * @returns The lane.
 */
export function createWebhookLane(options: WebhookLaneOptions): WebhookLane {
  const { endpoints, clock } = options;
  const sending: Sending = {
    endpoints: new Map(endpoints.map((endpoint) => [endpoint.id, endpoint])),
    store: options.store,
    clock,
    fetch: options.fetch ?? globalThis.fetch,
    timeoutMilliseconds: (options.timeoutSeconds ?? 10) * 1000,
    retryPeriodMilliseconds: (options.retryPeriodSeconds ?? 72 * 3600) * 1000,
    signers: new Map(),
    loadStandardWebhooks: loadOnce(() => import("standardwebhooks")),
  };
  return {
    noun: "Webhook",
    waitingPrefix: WEBHOOK_OUTBOX_PREFIX,
    duePrefix: WEBHOOK_DUE_PREFIX,
    donePrefix: WEBHOOK_DONE_PREFIX,
    doneMilliseconds: WEBHOOK_DONE_RECORD_MILLISECONDS,
    retryBaseSeconds: options.retryBaseSeconds ?? 5,
    retryMaxSeconds: options.retryMaxSeconds ?? 3600,
    endpoints,
    describe: (delivery) => ({ type: delivery.type, endpoint: delivery.endpointId }),
    add: (operation, events) => addDeliveries(operation, events, endpoints, clock),
    attempt: (delivery) => attempt(sending, delivery),
  };
}
