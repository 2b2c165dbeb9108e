/**
 * The webhook events the service sends to the studio's other tools (Standard Webhooks 1.0,
 * https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
 * their types and payloads, `{ "type", "timestamp", "data" }`, built from the inquiry or booking they
 * tell of. The OpenAPI document's `webhooks` section describes the same payloads
 * (`lib/contract/openapi.ts`; a test checks every payload built here against it).
 *
 * What a payload carries is what a receiving tool needs to act on the event, and no more: ids,
 * times (ISO 8601 with an offset), the booking's status and locale. The attendee's or sender's
 * name and e-mail address travel only in the events that introduce a person to the tool
 * (`inquiry.received`, `booking.requested`, `booking.confirmed`): a CRM creates a contact or a
 * lead from them. The later events of a booking (`declined`, `cancelled`, `rescheduled`) name the
 * booking by its id only, which the tool already knows. An inquiry's message, a booking's topic
 * and company, client addresses and attribution stay in the studio's store and mail: they are
 * free text a tool does not need to act.
 *
 * @module
 */

/** Every event type, in the order the documentation lists them. */
export const WEBHOOK_EVENT_TYPES = [
  "inquiry.received",
  "booking.requested",
  "booking.confirmed",
  "booking.declined",
  "booking.cancelled",
  "booking.rescheduled",
  "webhook.test",
] as const;

/** An event type, e.g. `booking.confirmed`. */
export type WebhookEventType = typeof WEBHOOK_EVENT_TYPES[number];

/** The event types of a booking's life. */
export type BookingEventType = Extract<WebhookEventType, `booking.${string}`>;

/** The data of `inquiry.received`: the inquiry, and who sent it. */
export interface InquiryEventData {
  /** The inquiry's id (a ULID). */
  id: string;
  /** When it was received, ISO 8601 UTC. */
  receivedAt: string;
  /** The sender's name, as they wrote it. */
  name: string;
  /** The sender's e-mail address, as they wrote it. */
  email: string;
  /** The category the sender chose, if any. */
  category?: string;
}

/** The data of the `booking.*` events. */
export interface BookingEventData {
  /** The booking's id (a ULID). */
  id: string;
  /** Its status once the event happened. */
  status: "pending" | "accepted" | "declined" | "cancelled";
  /** Start, ISO 8601 with the schedule zone's offset. */
  start: string;
  /** End, ISO 8601 with the schedule zone's offset. */
  end: string;
  /** The language of the attendee's e-mails. */
  locale: "pt" | "en";
  /** The attendee's IANA time zone, when the booking page knew it. */
  timeZone?: string;
  /** The attendee's name (`booking.requested` and `booking.confirmed` only). */
  name?: string;
  /** The attendee's e-mail address (`booking.requested` and `booking.confirmed` only). */
  email?: string;
  /** `booking.rescheduled`: the start before the move, ISO 8601 with the zone's offset. */
  previousStart?: string;
}

/** The data of `webhook.test`, sent from the team's desk. */
export interface TestEventData {
  /** An id of its own (a ULID), so that the receiver can tell tests apart. */
  id: string;
  /** Who sent it from the desk. */
  sentBy: string;
}

/** A Standard Webhooks payload: the body of the POST, signed as it is sent. */
export interface WebhookEvent {
  /** The event type. */
  type: WebhookEventType;
  /** When the event happened, ISO 8601 UTC. */
  timestamp: string;
  /** What the event is about. */
  data: InquiryEventData | BookingEventData | TestEventData;
}

/** An event with the record it tells of (an inquiry's or a booking's id). */
export interface QueuedEvent {
  /** The inquiry or booking the event tells of; the test event's own id. */
  recordId: string;
  /** The payload. */
  event: WebhookEvent;
  /** Only to these endpoints (by id); absent: to every configured endpoint. */
  endpointIds?: readonly string[];
}

/** What `inquiry.received` is built from: the stored inquiry's id, time and sender. */
export interface InquiryFacts {
  id: string;
  receivedAt: string;
  fields: { Name: string; Email: string; Category?: string };
}

/**
 * Builds the `inquiry.received` event of a stored inquiry.
 *
 * @param inquiry The inquiry's id, time of receipt and fields.
 * @returns The event, timed at the receipt.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildInquiryEvent } from "./webhook_events.ts";
 *
 * const fields = { Name: "Ana Sousa", Email: "ana@example.pt", Message: "Hello." };
 * const event = buildInquiryEvent({
 *   id: "01KAB3N6Z9Q8W4T2R7YV5XHMJD",
 *   receivedAt: "2026-11-21T10:00:00Z",
 *   fields,
 * });
 * assert.equal(event.type, "inquiry.received");
 * assert.equal(JSON.stringify(event).includes("Hello."), false, "the message stays home");
 * ```
 */
export function buildInquiryEvent(inquiry: InquiryFacts): WebhookEvent {
  const { fields } = inquiry;
  return {
    type: "inquiry.received",
    timestamp: inquiry.receivedAt,
    data: {
      id: inquiry.id,
      receivedAt: inquiry.receivedAt,
      name: fields.Name,
      email: fields.Email,
      ...(fields.Category ? { category: fields.Category } : {}),
    },
  };
}

/** What a booking event is built from: the booking as the event leaves it. */
export interface BookingFacts {
  id: string;
  status: BookingEventData["status"];
  startEpochMs: number;
  endEpochMs: number;
  locale: "pt" | "en";
  name: string;
  email: string;
  timeZone?: string;
  previousStartEpochMs?: number;
}

/** The event types whose payload introduces the attendee (name and address). */
const INTRODUCING: ReadonlySet<WebhookEventType> = new Set([
  "booking.requested",
  "booking.confirmed",
]);

/**
 * An instant as ISO 8601 with the offset of `timeZone`, e.g. `2026-12-01T10:00:00+00:00`.
 *
 * @param epochMilliseconds The instant.
 * @param timeZone An IANA zone, e.g. the schedule's `Europe/Lisbon`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toOffsetDateTime } from "./webhook_events.ts";
 *
 * const start = Date.parse("2026-07-01T09:00:00Z");
 * assert.equal(toOffsetDateTime(start, "Europe/Lisbon"), "2026-07-01T10:00:00+01:00");
 * ```
 */
export function toOffsetDateTime(epochMilliseconds: number, timeZone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(epochMilliseconds).toZonedDateTimeISO(timeZone)
    .toString({ timeZoneName: "never" });
}

/**
 * Builds a booking event.
 *
 * @param type The event type.
 * @param booking The booking as the event leaves it.
 * @param options `timeZone`: the schedule's zone, whose offset the times carry; `now`: when the
 * event happened.
 * @returns The event; the attendee's name and address only in `booking.requested` and
 * `booking.confirmed` (see the module's documentation).
 */
export function buildBookingEvent(
  type: BookingEventType,
  booking: BookingFacts,
  options: { timeZone: string; now: Temporal.Instant },
): WebhookEvent {
  const at = (epochMs: number) => toOffsetDateTime(epochMs, options.timeZone);
  const data: BookingEventData = {
    id: booking.id,
    status: booking.status,
    start: at(booking.startEpochMs),
    end: at(booking.endEpochMs),
    locale: booking.locale,
    ...(booking.timeZone ? { timeZone: booking.timeZone } : {}),
  };
  if (INTRODUCING.has(type)) {
    data.name = booking.name;
    data.email = booking.email;
  }
  if (type === "booking.rescheduled" && booking.previousStartEpochMs !== undefined) {
    data.previousStart = at(booking.previousStartEpochMs);
  }
  return { type, timestamp: options.now.toString(), data };
}

/**
 * Whether an event's payload carries an e-mail address (compared without regard to case), for
 * an erasure of that address's data.
 *
 * @param event The payload.
 * @param address The address, in lower case.
 */
export function carriesAddress(event: WebhookEvent, address: string): boolean {
  const email = (event.data as { email?: unknown }).email;
  return typeof email === "string" && email.trim().toLowerCase() === address;
}
