import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler } from "../../_fixture_studio.ts";
import { createFixedClock, createMemoryMailer, createMemoryStore } from "../../../testing.ts";
import type { BookingRecord } from "../../../lib/booking/booking_mail.ts";
import { BOOKING_PREFIX } from "../../../lib/booking/booking_store.ts";
import { INQUIRY_PREFIX, type InquiryRecord } from "../../../lib/contact/inquiries.ts";
import { createId } from "../../../lib/store/ids.ts";
import type { Store } from "../../../lib/store/store.ts";
import { DESK_SCAN_LIMIT, readDesk } from "../../../lib/team/desk_data.ts";
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

test("readDesk() searches every inquiry and booking kept, not only the newest it lists", async () => {
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
    body: JSON.stringify(buildBookingBody(Object.values(days).flat()[0].start, { email: old })),
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
      fields: { ...first.fields, Email: email },
    });
    await store.set([...BOOKING_PREFIX, id], { ...booked, id, email });
  }

  const nowEpochMs = clock.now().epochMilliseconds;
  const found = await readDesk(store, { nowEpochMs, search: "OLD.client@" });
  assert.deepEqual(found.inquiries.map((record) => record.id), [first.id]);
  assert.deepEqual(
    [...found.pending, ...found.upcoming, ...found.past].map((record) => record.id),
    [booked.id],
  );
  const newest = await readDesk(store, { nowEpochMs, search: `newer${DESK_SCAN_LIMIT + 9}@` });
  assert.equal(newest.inquiries.length, 1);
  const listed = await readDesk(store, { nowEpochMs });
  assert.equal(listed.inquiries.length, 50);
  assert.ok(listed.inquiries.every((record) => record.fields.Email.startsWith("newer")));
});
