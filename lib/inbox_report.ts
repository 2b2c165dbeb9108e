/**
 * The operator's view of the store: stored inquiries and bookings, newest first, with their
 * state and the delivery state of their e-mail, and the erasures of personal data. Printed by `deno task inbox` and by
 * `studio-website inbox` (the npm package's executable).
 *
 * @module
 */
import { INQUIRY_PREFIX, type InquiryRecord } from "./contact/inquiries.ts";
import { BOOKING_PREFIX } from "./booking/booking_store.ts";
import type { BookingRecord } from "./booking/booking_mail.ts";
import { OUTBOX_PREFIX, type OutboxEntry, SENT_PREFIX, type SentRecord } from "./mail/outbox.ts";
import type { Store } from "./store/store.ts";
import { listErasures } from "./privacy/personal_data.ts";
import { toPrintable } from "./privacy/to_printable.ts";

/** Options of {@linkcode writeInboxReport}. */
export interface InboxReportOptions {
  /** The most inquiries and the most bookings listed. @default {50} */
  limit?: number;
  /** Where each line goes. @default {console.log} */
  write?: (line: string) => void;
}

/**
 * Writes the inbox report of a store: inquiries, then bookings, newest first, each with the
 * delivery state of its e-mail (pending with the last error, or sent), then the erasures of
 * personal data (when, by whom, how many of each kind), with a count of each.
 *
 * @param store The service's store.
 * @param options How many to list and where to write.
 */
export async function writeInboxReport(
  store: Store,
  options: InboxReportOptions = {},
): Promise<void> {
  const limit = options.limit ?? 50;
  const print = options.write ?? console.log;
  // Every line shows visitors' text: its control characters (ESC sequences, NUL, CR, LF) are
  // shown escaped, so no one can forge report lines or drive the operator's terminal.
  const write = (line: string) => print(toPrintable(line));

  async function describeDelivery(mailId: string): Promise<string> {
    const waiting = await store.get<OutboxEntry>([...OUTBOX_PREFIX, mailId]);
    if (waiting.value) {
      const { attempts, nextAttemptAt, lastError } = waiting.value;
      return attempts
        ? `pending (${attempts} failed attempt${
          attempts === 1 ? "" : "s"
        }, next ${nextAttemptAt}: ${lastError})`
        : "pending";
    }
    const sent = await store.get<SentRecord>([...SENT_PREFIX, mailId]);
    if (sent.value) return `sent ${sent.value.sentAt} to ${sent.value.to.join(", ")}`;
    return "unknown";
  }

  let count = 0;
  write("Inquiries, newest first:");
  write("");
  for await (
    const entry of store.list<InquiryRecord>({ prefix: INQUIRY_PREFIX }, { reverse: true, limit })
  ) {
    const inquiry = entry.value;
    count++;
    const states = await Promise.all(inquiry.mailIds.map(describeDelivery));
    write(`${inquiry.receivedAt}  ${inquiry.id}`);
    write(`  from:     ${inquiry.fields.Name} <${inquiry.fields.Email}>`);
    if (inquiry.fields.Category) write(`  category: ${inquiry.fields.Category}`);
    const message = inquiry.fields.Message.replace(/\s+/g, " ");
    write(`  message:  ${message.length > 100 ? message.slice(0, 99) + "…" : message}`);
    write(`  delivery: ${states.join("; ")}`);
    write("");
  }
  write(`${count} inquir${count === 1 ? "y" : "ies"}`);

  let bookings = 0;
  write("");
  write("Bookings, newest first:");
  write("");
  for await (
    const entry of store.list<BookingRecord>({ prefix: BOOKING_PREFIX }, { reverse: true, limit })
  ) {
    const booking = entry.value;
    bookings++;
    const states = await Promise.all(booking.mailIds.map(describeDelivery));
    write(`${booking.start}  ${booking.id}  ${booking.status}`);
    write(
      `  with:     ${booking.name} <${booking.email}>${
        booking.company ? `, ${booking.company}` : ""
      }`,
    );
    write(`  booked:   ${booking.createdAt} (${booking.locale})`);
    const topic = booking.topic.replace(/\s+/g, " ");
    write(`  topic:    ${topic.length > 100 ? topic.slice(0, 99) + "…" : topic}`);
    write(`  e-mail:   ${states.join("; ")}`);
    write("");
  }
  write(`${bookings} booking${bookings === 1 ? "" : "s"}`);

  let erasures = 0;
  write("");
  write("Erasures of personal data, newest first:");
  write("");
  for (const erasure of await listErasures(store, { limit })) {
    erasures++;
    const counts = Object.entries(erasure.counts).map(([kind, count]) => `${kind} ${count}`);
    write(`${erasure.erasedAt}  ${erasure.id}  by ${erasure.actor}`);
    write(`  erased:   ${counts.join(", ")}`);
  }
  write(`${erasures} erasure${erasures === 1 ? "" : "s"}`);
}
