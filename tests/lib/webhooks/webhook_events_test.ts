/**
 * The webhook events of inquiries and bookings, end to end inside one process: the API and the
 * booking transitions queue them in their commits, the outbox POSTs them to a real receiver, and
 * every payload received verifies with standardwebhooks and matches the OpenAPI document's
 * `webhooks` schema for its type.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { applyBookingAction } from "../../../lib/booking/bookings.ts";
import { moveBooking } from "../../../lib/booking/move_booking.ts";
import { BOOKING_PREFIX } from "../../../lib/booking/booking_store.ts";
import type { BookingRecord } from "../../../lib/booking/booking_mail.ts";
import { buildOpenApiDocument } from "../../../lib/contract/openapi.ts";
import { RATE_LIMIT_POLICIES } from "../../../lib/contract/contract.ts";
import { buildBookingEvent, WEBHOOK_EVENT_TYPES } from "../../../lib/webhooks/webhook_events.ts";
import { SAMPLE_SCHEDULE } from "../../_fixture_studio.ts";
import { book, sendInquiry } from "../../_studio_app.ts";
import {
  createReceiverPool,
  deliverQueued,
  verifyWebhook,
  type WebhookPayload,
} from "./_receiver.ts";
import { createWebhookStudio, listNextMonthSlots, type WebhookStudio } from "./_webhook_studio.ts";

const SECRET = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
const receivers = createReceiverPool();
after(() => receivers.stop());

const DOCUMENT = buildOpenApiDocument({
  baseUrl: "https://studio.example",
  policies: RATE_LIMIT_POLICIES,
  timeZone: SAMPLE_SCHEDULE.timeZone,
  meetingMinutes: SAMPLE_SCHEDULE.meetingMinutes,
  contactEmail: "studio@studio.example",
});

/** A validator of each event type's payload, from the document's `webhooks` section. */
function compilePayloadSchemas(): Map<string, (value: unknown) => boolean> {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: "openapi.json", components: DOCUMENT.components }, "openapi.json");
  const validators = new Map<string, (value: unknown) => boolean>();
  const webhooks = DOCUMENT.webhooks as Record<string, { post: { requestBody: unknown } }>;
  for (const [type, item] of Object.entries(webhooks)) {
    const schema = (item.post.requestBody as {
      content: { "application/json": { schema: { $ref: string } } };
    }).content["application/json"].schema;
    const validate = ajv.compile({ $ref: `openapi.json${schema.$ref}` });
    validators.set(type, (value) => {
      const ok = validate(value);
      if (!ok) assert.fail(`${type}: ${ajv.errorsText(validate.errors)}`);
      return ok;
    });
  }
  return validators;
}

const VALIDATORS = compilePayloadSchemas();

test("the OpenAPI document's webhooks section describes every event type with the Standard Webhooks headers", () => {
  const webhooks = DOCUMENT.webhooks as Record<string, { post: Record<string, unknown> }>;
  assert.deepEqual(Object.keys(webhooks), [...WEBHOOK_EVENT_TYPES]);
  for (const item of Object.values(webhooks)) {
    const names = (item.post.parameters as Array<{ name: string; in: string; required: boolean }>)
      .map((parameter) => `${parameter.in}:${parameter.name}:${parameter.required}`);
    assert.deepEqual(names, [
      "header:webhook-id:true",
      "header:webhook-timestamp:true",
      "header:webhook-signature:true",
    ]);
    assert.deepEqual(Object.keys(item.post.responses as object), ["200", "410", "default"]);
  }
});

test("buildBookingEvent() gives the times with the zone's offset and the attendee only where the tool needs it", () => {
  const booking = {
    id: "01KAB3N6Z9Q8W4T2R7YV5XHMJD",
    status: "accepted" as const,
    startEpochMs: Date.parse("2026-07-01T09:00:00Z"),
    endEpochMs: Date.parse("2026-07-01T09:30:00Z"),
    locale: "en" as const,
    name: "Ana Sousa",
    email: "ana@example.pt",
    timeZone: "America/New_York",
    previousStartEpochMs: Date.parse("2026-06-30T14:00:00Z"),
  };
  const options = {
    timeZone: "Europe/Lisbon",
    now: Temporal.Instant.from("2026-06-01T12:00:00Z"),
  };
  assert.deepEqual(buildBookingEvent("booking.confirmed", booking, options), {
    type: "booking.confirmed",
    timestamp: "2026-06-01T12:00:00Z",
    data: {
      id: booking.id,
      status: "accepted",
      start: "2026-07-01T10:00:00+01:00",
      end: "2026-07-01T10:30:00+01:00",
      locale: "en",
      timeZone: "America/New_York",
      name: "Ana Sousa",
      email: "ana@example.pt",
    },
  });
  const moved = buildBookingEvent("booking.rescheduled", booking, options);
  assert.equal("email" in moved.data, false);
  assert.equal("name" in moved.data, false);
  assert.equal(
    (moved.data as { previousStart?: string }).previousStart,
    "2026-06-30T15:00:00+01:00",
  );
  const cancelled = buildBookingEvent(
    "booking.cancelled",
    { ...booking, status: "cancelled" },
    options,
  );
  assert.equal(JSON.stringify(cancelled).includes("ana@example.pt"), false);
  for (const event of [moved, cancelled]) VALIDATORS.get(event.type)?.(event);
});

/** A sample studio whose outbox sends webhooks to a real receiver. */
async function createStudio(confirmation: "auto" | "manual"): Promise<WebhookStudio> {
  return createWebhookStudio({ receiver: await receivers.start(), secret: SECRET }, {
    confirmation,
  });
}

/** The payloads received so far, each verified and checked against its schema. */
function readPayloads(studio: WebhookStudio): WebhookPayload[] {
  return studio.receiver.received.map((request) => {
    const payload = verifyWebhook(SECRET, request);
    VALIDATORS.get(payload.type)?.(payload);
    return payload;
  });
}

async function readBooking(studio: WebhookStudio, email: string): Promise<BookingRecord> {
  for await (const entry of studio.store.list<BookingRecord>({ prefix: BOOKING_PREFIX })) {
    if (entry.value.email === email) return entry.value;
  }
  throw new Error(`No booking of ${email}`);
}

test("POST /api/v1/contact queues an inquiry.received webhook that reaches the receiver signed", async () => {
  const studio = await createStudio("auto");
  const fields = {
    Name: "Rita Lopes",
    Email: "rita@example.pt",
    Category: "Branding",
    Message: "A new identity, please.",
  };
  await sendInquiry(studio, fields);
  await deliverQueued(studio.outbox);
  const [payload] = readPayloads(studio);
  assert.equal(payload.type, "inquiry.received");
  assert.equal(payload.data.name, "Rita Lopes");
  assert.equal(payload.data.email, "rita@example.pt");
  assert.equal(payload.data.category, "Branding");
  assert.equal(JSON.stringify(payload).includes("A new identity"), false, "the message stays");
});

test("a booking's life sends booking.confirmed, booking.rescheduled and booking.cancelled", async () => {
  const studio = await createStudio("auto");
  const [start, later] = await listNextMonthSlots(studio);
  await book(studio, start, { name: "Ana Sousa", email: "ana@example.pt" });
  const booking = await readBooking(studio, "ana@example.pt");
  const moved = await moveBooking(studio.services, {
    bookingId: booking.id,
    sequence: booking.sequence,
    start: Temporal.Instant.from(later),
  });
  assert.equal(moved.kind, "moved");
  const cancelled = await applyBookingAction(studio.services, "cancel", booking.id);
  assert.equal(cancelled.kind, "done");
  await deliverQueued(studio.outbox);

  // Delivered at once, so in any order.
  const payloads = new Map(readPayloads(studio).map((payload) => [payload.type, payload.data]));
  assert.deepEqual([...payloads.keys()].sort(), [
    "booking.cancelled",
    "booking.confirmed",
    "booking.rescheduled",
  ]);
  const [confirmed, rescheduled, gone] = [
    "booking.confirmed",
    "booking.rescheduled",
    "booking.cancelled",
  ].map((type) => payloads.get(type) ?? {});
  assert.equal(confirmed.id, booking.id);
  assert.equal(confirmed.status, "accepted");
  assert.equal(confirmed.email, "ana@example.pt");
  assert.equal(
    Temporal.Instant.from(confirmed.start as string).toString(),
    Temporal.Instant.from(start).toString(),
  );
  assert.equal(
    Temporal.Instant.from(confirmed.end as string).epochMilliseconds -
      Temporal.Instant.from(confirmed.start as string).epochMilliseconds,
    SAMPLE_SCHEDULE.meetingMinutes * 60_000,
  );
  assert.equal(rescheduled.previousStart, confirmed.start);
  assert.equal(
    Temporal.Instant.from(rescheduled.start as string).toString(),
    Temporal.Instant.from(later).toString(),
  );
  assert.equal(gone.status, "cancelled");
  for (const data of [rescheduled, gone]) {
    assert.equal("email" in data || "name" in data, false, "later events name the booking only");
  }
});

test("a booking awaiting the team sends booking.requested, then booking.declined", async () => {
  const studio = await createStudio("manual");
  const [start] = await listNextMonthSlots(studio);
  await book(studio, start, { name: "Eva Prado", email: "eva@example.pt" });
  const booking = await readBooking(studio, "eva@example.pt");
  assert.equal((await applyBookingAction(studio.services, "decline", booking.id)).kind, "done");
  await deliverQueued(studio.outbox);
  const payloads = readPayloads(studio).sort((a, b) => a.type.localeCompare(b.type));
  assert.deepEqual(payloads.map((payload) => [payload.type, payload.data.status]), [
    ["booking.declined", "declined"],
    ["booking.requested", "pending"],
  ]);
  assert.equal(payloads[1].data.name, "Eva Prado");
  assert.equal("email" in payloads[0].data, false);
});
