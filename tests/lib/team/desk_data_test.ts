import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler } from "../../_fixture_studio.ts";
import { createFixedClock, createMemoryMailer, createMemoryStore } from "../../../testing.ts";
import type { BookingRecord } from "../../../lib/booking/booking_mail.ts";
import { BOOKING_PREFIX } from "../../../lib/booking/booking_store.ts";
import { INQUIRY_PREFIX, type InquiryRecord } from "../../../lib/contact/inquiries.ts";
import { createId } from "../../../lib/store/ids.ts";
import type { Store } from "../../../lib/store/store.ts";
import {
  DESK_PAGE_SIZE,
  DESK_SCAN_LIMIT,
  readBookingList,
  readDeskCounts,
  readInquiryList,
  readMailHistory,
  readMessageKind,
} from "../../../lib/team/desk_data.ts";
import { buildBookingBody } from "../../_booking.ts";
import { buildRequest } from "../../_support.ts";

const NOW = "2026-11-21T10:00:00Z";

/** The one record under `prefix`. */
async function readOnly<T>(store: Store, prefix: readonly string[]): Promise<T> {
  const found: T[] = [];
  for await (const entry of store.list<T>({ prefix })) found.push(entry.value);
  assert.equal(found.length, 1);
  return found[0];
}

test("readInquiryList() and readBookingList() search far past the newest records they list, within a bound", async () => {
  const store = createMemoryStore();
  const clock = createFixedClock(NOW);
  const handler = createSampleHandler({ store, clock, mailer: createMemoryMailer() });
  const old = "old.client@example.pt";
  const inquiry = await handler(buildRequest("/api/v1/contact", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ Name: "Old Client", Email: old, Message: "An old question." }),
  }));
  assert.equal(inquiry.status, 200);
  await inquiry.body?.cancel();
  const slots = await handler(buildRequest("/api/v1/booking/slots?month=2026-12"));
  const { slots: days }: { slots: Record<string, Array<{ start: string }>> } = await slots.json();
  const booking = await handler(buildRequest("/api/v1/booking", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(
      buildBookingBody(Object.values(days).flat()[0].start, {
        email: old,
        topic: "An old topic about a new site",
      }),
    ),
  }));
  assert.equal(booking.status, 201);
  await booking.body?.cancel();

  // Newer records than the desk's lists read, as their copies under later ids.
  const first = await readOnly<InquiryRecord>(store, INQUIRY_PREFIX);
  const booked = await readOnly<BookingRecord>(store, BOOKING_PREFIX);
  const laterMs = clock.now().epochMilliseconds + 1000;
  for (let index = 0; index < DESK_SCAN_LIMIT + 10; index++) {
    const id = createId(laterMs + index);
    const email = `newer${index}@example.pt`;
    await store.set([...INQUIRY_PREFIX, id], {
      ...first,
      id,
      fields: { ...first.fields, Name: "Newer", Email: email },
    });
    await store.set([...BOOKING_PREFIX, id], { ...booked, id, email, topic: "Newer topic" });
  }

  const nowEpochMs = clock.now().epochMilliseconds;
  const inquiries = await readInquiryList(store, { search: "old.client@" });
  assert.deepEqual(inquiries.records.map((record) => record.id), [first.id]);
  assert.equal(inquiries.limited, false);
  const bookings = await readBookingList(store, { nowEpochMs, search: "old topic" });
  assert.deepEqual(bookings.records.map((record) => record.id), [booked.id]);
  // Bounded: a search that may read only the newest 100 does not reach the old records, and says so.
  const bounded = await readInquiryList(store, { search: "old.client@", scanLimit: 100 });
  assert.deepEqual(bounded.records, []);
  assert.equal(bounded.limited, true);

  const listed = await readInquiryList(store, {});
  assert.equal(listed.total, DESK_SCAN_LIMIT, "a list reads the newest records only");
  assert.equal(listed.limited, true);
  assert.equal(listed.records.length, DESK_PAGE_SIZE);
  assert.equal(listed.pageCount, DESK_SCAN_LIMIT / DESK_PAGE_SIZE);
  assert.ok(listed.records.every((record) => record.fields.Email.startsWith("newer")));
  const counts = await readDeskCounts(store, nowEpochMs);
  assert.equal(counts.openInquiries, DESK_SCAN_LIMIT);
  assert.equal(counts.pendingBookings + counts.upcomingBookings, DESK_SCAN_LIMIT);
});

test("readBookingList() lists requests soonest first, then upcoming soonest first, then the rest latest first, and filters by each", async () => {
  const store = createMemoryStore();
  const base = {
    uid: "u",
    sequence: 0,
    start: "",
    name: "N",
    email: "n@example.pt",
    topic: "T",
    locale: "en",
    createdAt: NOW,
    updatedAt: NOW,
    clientAddress: "198.51.100.1",
    attendeeInvited: false,
    mailIds: [],
  } as const;
  const nowEpochMs = Date.parse(NOW);
  const hour = 3_600_000;
  const records: Array<[string, Partial<BookingRecord>]> = [
    ["past-early", { status: "accepted", startEpochMs: nowEpochMs - 5 * hour }],
    ["upcoming-late", { status: "accepted", startEpochMs: nowEpochMs + 9 * hour }],
    ["pending-late", { status: "pending", startEpochMs: nowEpochMs + 8 * hour }],
    ["cancelled-late", { status: "cancelled", startEpochMs: nowEpochMs + 7 * hour }],
    ["upcoming-soon", { status: "accepted", startEpochMs: nowEpochMs + 2 * hour }],
    ["pending-soon", { status: "pending", startEpochMs: nowEpochMs + 3 * hour }],
    ["lapsed", {
      status: "pending",
      startEpochMs: nowEpochMs + 4 * hour,
      holdUntilEpochMs: nowEpochMs - 1,
    }],
  ];
  for (const [index, [name, fields]] of records.entries()) {
    const id = createId(nowEpochMs + index);
    const startEpochMs = fields.startEpochMs ?? 0;
    await store.set([...BOOKING_PREFIX, id], {
      ...base,
      ...fields,
      id,
      name,
      endEpochMs: startEpochMs + hour / 2,
    });
  }
  const names = async (show?: "pending" | "upcoming" | "past") =>
    (await readBookingList(store, { nowEpochMs, show })).records.map((record) => record.name);
  assert.deepEqual(await names(), [
    "pending-soon",
    "pending-late",
    "upcoming-soon",
    "upcoming-late",
    "cancelled-late",
    "lapsed",
    "past-early",
  ]);
  assert.deepEqual(await names("pending"), ["pending-soon", "pending-late"]);
  assert.deepEqual(await names("upcoming"), ["upcoming-soon", "upcoming-late"]);
  assert.deepEqual(await names("past"), ["cancelled-late", "lapsed", "past-early"]);
  assert.deepEqual(await readDeskCounts(store, nowEpochMs), {
    openInquiries: 0,
    pendingBookings: 2,
    upcomingBookings: 2,
  });
});

test("readMailHistory() gives each e-mail of a record its delivery state, and readMessageKind() reads a booking e-mail's kind and SEQUENCE", async () => {
  const store = createMemoryStore();
  const text = new TextEncoder().encode("Hello");
  await store.set(["outbox", "01KAB3N6Z9Q8W4T2R7YV5XHMJA"], {
    id: "01KAB3N6Z9Q8W4T2R7YV5XHMJA",
    topic: "booking",
    recordId: "01KAB3N6Z9Q8W4T2R7YV5XHMJD",
    mail: {
      messageId: "attendee-moved-01KAB3N6Z9Q8W4T2R7YV5XHMJD-2@studio.example",
      from: "studio@studio.example",
      to: ["marta@example.com"],
      subject: "Moved",
      text,
    },
    createdAt: NOW,
    attempts: 2,
    nextAttemptAt: "2026-11-21T10:05:00Z",
    lastError: "Connection refused",
  });
  await store.set(["outbox_sent", "01KAB3N6Z9Q8W4T2R7YV5XHMJB"], {
    id: "01KAB3N6Z9Q8W4T2R7YV5XHMJB",
    topic: "booking",
    recordId: "01KAB3N6Z9Q8W4T2R7YV5XHMJD",
    to: ["inbox@studio.example"],
    subject: "New",
    sentAt: NOW,
    attempts: 1,
  });
  const history = await readMailHistory(store, [
    "01KAB3N6Z9Q8W4T2R7YV5XHMJB",
    "01KAB3N6Z9Q8W4T2R7YV5XHMJA",
    "01KAB3N6Z9Q8W4T2R7YV5XHMJC",
  ]);
  assert.deepEqual(history, [
    {
      id: "01KAB3N6Z9Q8W4T2R7YV5XHMJB",
      state: "sent",
      to: ["inbox@studio.example"],
      subject: "New",
      at: NOW,
      attempts: 1,
    },
    {
      id: "01KAB3N6Z9Q8W4T2R7YV5XHMJA",
      state: "retrying",
      to: ["marta@example.com"],
      subject: "Moved",
      at: "2026-11-21T10:05:00Z",
      attempts: 2,
      lastError: "Connection refused",
      kind: "attendee-moved",
      sequence: 2,
    },
  ], "a message the store no longer holds is left out");
  assert.deepEqual(
    readMessageKind("<studio-new-01KAB3N6Z9Q8W4T2R7YV5XHMJD-0@studio.example>"),
    { kind: "studio-new", sequence: 0 },
  );
  assert.equal(readMessageKind("not a message id"), undefined);
});
