/**
 * Operator tool: lists stored inquiries and bookings, newest first, with their state and the
 * delivery state of their e-mail, reading the same Deno KV file as the service (`STUDIO_KV_PATH`,
 * default `data/studio.kv`).
 *
 * Usage: `deno task inbox [--limit 50]`
 *
 * @module
 */
import { INQUIRY_PREFIX, type InquiryRecord } from "../lib/inquiries.ts";
import { BOOKING_PREFIX } from "../lib/bookings.ts";
import type { BookingRecord } from "../lib/booking_mail.ts";
import { OUTBOX_PREFIX, type OutboxEntry, SENT_PREFIX, type SentRecord } from "../lib/outbox.ts";

const limitIndex = Deno.args.indexOf("--limit");
const limit = limitIndex >= 0 ? Number(Deno.args[limitIndex + 1]) : 50;
const path = Deno.env.get("STUDIO_KV_PATH")?.trim() || "data/studio.kv";
try {
  await Deno.stat(path);
} catch {
  console.error(`No KV file at "${path}" (set STUDIO_KV_PATH)`);
  Deno.exit(1);
}
const kv = await Deno.openKv(path);

async function describeDelivery(mailId: string): Promise<string> {
  const waiting = await kv.get<OutboxEntry>([...OUTBOX_PREFIX, mailId]);
  if (waiting.value) {
    const { attempts, nextAttemptAt, lastError } = waiting.value;
    return attempts
      ? `pending (${attempts} failed attempt${
        attempts === 1 ? "" : "s"
      }, next ${nextAttemptAt}: ${lastError})`
      : "pending";
  }
  const sent = await kv.get<SentRecord>([...SENT_PREFIX, mailId]);
  if (sent.value) return `sent ${sent.value.sentAt} to ${sent.value.to.join(", ")}`;
  return "unknown";
}

let count = 0;
console.log("Inquiries, newest first:\n");
for await (
  const entry of kv.list<InquiryRecord>({ prefix: INQUIRY_PREFIX }, { reverse: true, limit })
) {
  const inquiry = entry.value;
  count++;
  const states = await Promise.all(inquiry.mailIds.map(describeDelivery));
  console.log(`${inquiry.receivedAt}  ${inquiry.id}`);
  console.log(`  from:     ${inquiry.fields.Name} <${inquiry.fields.Email}>`);
  if (inquiry.fields.Category) console.log(`  category: ${inquiry.fields.Category}`);
  const message = inquiry.fields.Message.replace(/\s+/g, " ");
  console.log(`  message:  ${message.length > 100 ? message.slice(0, 99) + "…" : message}`);
  console.log(`  delivery: ${states.join("; ")}`);
  console.log("");
}
console.log(`${count} inquir${count === 1 ? "y" : "ies"}`);

let bookings = 0;
console.log("\nBookings, newest first:\n");
for await (
  const entry of kv.list<BookingRecord>({ prefix: BOOKING_PREFIX }, { reverse: true, limit })
) {
  const booking = entry.value;
  bookings++;
  const states = await Promise.all(booking.mailIds.map(describeDelivery));
  console.log(`${booking.start}  ${booking.id}  ${booking.status}`);
  console.log(
    `  with:     ${booking.name} <${booking.email}>${
      booking.company ? `, ${booking.company}` : ""
    }`,
  );
  console.log(`  booked:   ${booking.createdAt} (${booking.locale})`);
  const topic = booking.topic.replace(/\s+/g, " ");
  console.log(`  topic:    ${topic.length > 100 ? topic.slice(0, 99) + "…" : topic}`);
  console.log(`  e-mail:   ${states.join("; ")}`);
  console.log("");
}
console.log(`${bookings} booking${bookings === 1 ? "" : "s"}`);
kv.close();
