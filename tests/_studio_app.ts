/**
 * The sample fixture studio for tests of the team's tools (personal data, the calendar feed): the handler and the
 * services the desk and the CLI act with, over one store, one outbox delivering to a real SMTP
 * server, and one fixed clock; with helpers that make inquiries and bookings through the API.
 * Internal to tests/.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { HandlerOptions } from "../compose/create_handler.ts";
import type { Handler } from "../lib/http/create_pipeline.ts";
import { createOutbox, type Outbox } from "../lib/mail/outbox.ts";
import type { Mailer } from "../lib/mail/mail.ts";
import type { Services } from "../lib/services.ts";
import type { Store } from "../lib/store/store.ts";
import { createFixedClock, type FixedClock } from "../testing.ts";
import { buildBookingBody } from "./_booking.ts";
import { createSampleHandler, createSampleServices } from "./_fixture_studio.ts";
import {
  buildRequest,
  createRecordingLogger,
  fromAddress,
  type RecordingLogger,
} from "./_support.ts";

/** The studio's inbox in these tests. */
export const INBOX = "inbox@studio.example";
/** The From address in these tests. */
export const MAIL_FROM = "Studio <site@studio.example>";
/** A Saturday in winter (Lisbon is +00:00), as in the booking tests. */
export const NOW = "2026-11-21T10:00:00Z";

/** A studio over one store. */
export interface StudioApp {
  handler: Handler;
  /** What the desk and the CLI act with: the same store, outbox, clock and settings. */
  services: Services;
  store: Store;
  clock: FixedClock;
  outbox: Outbox;
  logger: RecordingLogger;
}

/**
 * Creates a studio over `store` whose outbox delivers with `mailer`.
 *
 * @param store The store (a KV file, or memory).
 * @param mailer The mailer (an SMTP mailer to the test server).
 * @param options Other handler options (confirmation, rate limiter); a clock (else fixed at
 * {@linkcode NOW}), a logger, and an outbox of their own (else one over `store` and `mailer`).
 */
export function createStudioApp(
  store: Store,
  mailer: Mailer,
  options: Omit<HandlerOptions, "store" | "clock" | "logger" | "outbox"> & {
    clock?: FixedClock;
    logger?: RecordingLogger;
    outbox?: Outbox;
  } = {},
): StudioApp {
  const {
    clock = createFixedClock(NOW),
    logger = createRecordingLogger(),
    outbox = createOutbox({ store, mailer, clock, logger }),
    ...rest
  } = options;
  const all: HandlerOptions = {
    mailFrom: MAIL_FROM,
    inbox: INBOX,
    secret: "team-tools-test-secret-0123456789abcdef",
    rateLimits: { read: 100_000, write: 100_000, booking: 100_000 },
    ...rest,
    store,
    clock,
    logger,
    outbox,
  };
  return {
    handler: createSampleHandler(all),
    services: createSampleServices(all),
    store,
    clock,
    outbox,
    logger,
  };
}

/** The listed starts of a month (`YYYY-MM`). */
export async function listSlots(app: StudioApp, month: string): Promise<string[]> {
  const response = await app.handler(
    buildRequest(`/api/v1/booking/slots?month=${month}`),
    fromAddress("198.51.100.1"),
  );
  assert.equal(response.status, 200);
  const body: { slots: Record<string, Array<{ start: string }>> } = await response.json();
  return Object.values(body.slots).flat().map((slot) => slot.start);
}

/** Sends an inquiry through the API; asserts its 200. */
export async function sendInquiry(
  app: StudioApp,
  fields: { Name: string; Email: string; Message: string },
): Promise<void> {
  const response = await app.handler(
    buildRequest("/api/v1/contact", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(fields),
    }),
    fromAddress("203.0.113.7"),
  );
  assert.equal(response.status, 200, await response.clone().text());
  await response.body?.cancel();
}

/** Books `start` through the API; asserts its 201. */
export async function book(
  app: StudioApp,
  start: string,
  attendee: { name: string; email: string; topic?: string },
  idempotencyKey?: string,
): Promise<void> {
  const response = await app.handler(
    buildRequest("/api/v1/booking", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}),
      },
      body: JSON.stringify(buildBookingBody(start, attendee)),
    }),
    fromAddress("203.0.113.7"),
  );
  assert.equal(response.status, 201, await response.clone().text());
  await response.body?.cancel();
}
