/**
 * Finding everything the store holds about one e-mail address, by reading each key range that can
 * hold it: inquiries (`["inquiry", id]`, the sender's `Email`), bookings (`["booking", id]`, the
 * attendee's `email`), the e-mail those records caused or that is addressed to it (the outbox's
 * `["outbox", id]` and its due index `["outbox_due", ms, id]`, the delivery records
 * `["outbox_sent", id]`), the bookings counted per address (`["attendee_quota", sha256, day]`),
 * the sign-in links asked for it at the team's sign-in form (`["team_sign_in_quota",
 * sha256(address), sha256(client), window]`, counted for any address typed there), the idempotency records of its bookings
 * (`["idempotency", key]`), their slot holds (`["slot", start]`) and their waiting reminders
 * (`["reminder", due, bookingId]`), the webhook deliveries waiting whose payload carries the
 * address (`["webhook_outbox", id]` and their due keys `["webhook_due", ms, id]`) and the records
 * of finished deliveries of its inquiries and bookings (`["webhook_done", id]`, no payload).
 * Export and erasure both start here, so that they cannot disagree on what is held.
 *
 * A waiting delivery of one of its records whose payload does not carry the address (a booking's
 * `declined`, `cancelled` or `rescheduled` event: ids and times only) is not the address's data:
 * it stays, so that the receiving tool learns that the booking was cancelled.
 *
 * Addresses compare case-insensitively, as the per-address quota counts them. Mail is matched by
 * its record, its id, or a recipient (or Reply-To) that is the address; export and erasure refuse
 * the studio's own addresses, which receive every visitor's notices (`personal_data.ts`).
 *
 * @module
 */
import type { BookingRecord } from "../booking/booking_mail.ts";
import { BOOKING_PREFIX } from "../booking/booking_store.ts";
import { SLOT_PREFIX, type SlotHold } from "../availability/slot_holds.ts";
import {
  ATTENDEE_QUOTA_PREFIX,
  IDEMPOTENCY_MILLISECONDS,
  IDEMPOTENCY_PREFIX,
  type IdempotencyRecord,
} from "../booking/bookings.ts";
import { INQUIRY_PREFIX, type InquiryRecord } from "../contact/inquiries.ts";
import { ApiError } from "../contract/api_error.ts";
import { isEmailAddress } from "../contract/fields.ts";
import { toBareAddress } from "../mail/mail.ts";
import {
  DUE_PREFIX,
  OUTBOX_PREFIX,
  type OutboxEntry,
  SENT_PREFIX,
  type SentRecord,
} from "../mail/outbox.ts";
import { sha256Hex } from "../store/digest.ts";
import { SIGN_IN_QUOTA_PREFIX } from "../team/team.ts";
import { REMINDER_PREFIX, type ReminderEntry } from "../booking/reminders.ts";
import { carriesAddress, type WebhookEvent } from "../webhooks/webhook_events.ts";
import {
  WEBHOOK_DONE_PREFIX,
  WEBHOOK_DUE_PREFIX,
  WEBHOOK_OUTBOX_PREFIX,
  type WebhookDelivery,
  type WebhookDeliveryRecord,
} from "../webhooks/webhook_store.ts";
import type { KvEntry, KvKey, Store } from "../store/store.ts";

/** What the store holds about one address, entry by entry (keys, values and versionstamps). */
export interface FoundPersonalData {
  /** The address, trimmed and in lower case. */
  address: string;
  /** Inquiries it sent. */
  inquiries: KvEntry<InquiryRecord>[];
  /** Bookings it is the attendee of. */
  bookings: KvEntry<BookingRecord>[];
  /** Mail waiting for delivery that belongs to those records or is addressed to it. */
  queuedMail: KvEntry<OutboxEntry>[];
  /** The due-index keys of the waiting mail. */
  dueKeys: KvKey[];
  /** Delivery records of mail that belonged to those records or was addressed to it. */
  deliveryRecords: KvEntry<SentRecord>[];
  /** Its bookings counted per day for the per-address quota. */
  quotaRecords: KvEntry<number>[];
  /** The sign-in links asked for it per window at the team's sign-in form. */
  signInQuotaRecords: KvEntry<number>[];
  /** The idempotency records of its bookings. */
  idempotencyRecords: KvEntry<IdempotencyRecord>[];
  /** The slot holds its bookings still have. */
  slotHolds: KvEntry<SlotHold>[];
  /** The reminders its bookings still wait for (they hold the booking's id, not the address). */
  reminders: KvEntry<ReminderEntry>[];
  /** Webhook deliveries waiting whose payload carries the address. */
  queuedWebhooks: KvEntry<WebhookDelivery>[];
  /** The due-index keys of those deliveries. */
  webhookDueKeys: KvKey[];
  /** Records of finished webhook deliveries of its inquiries and bookings. */
  webhookRecords: KvEntry<WebhookDeliveryRecord>[];
}

/**
 * Reads an e-mail address given by a team member or an operator: trimmed, in lower case.
 *
 * @param value The address, e.g. `" Ana@Example.pt "`.
 * @returns The address in lower case, e.g. `"ana@example.pt"`.
 * @throws {ApiError} 400 `validation-failed` when it is not a valid e-mail address.
 */
export function readAddress(value: string): string {
  const address = value.trim().toLowerCase();
  if (!isEmailAddress(address) || address.length > 254) {
    throw new ApiError("validation-failed", {
      status: 400,
      message: `"${value.slice(0, 100)}" is not an e-mail address`,
      hint: 'Give the address the person wrote with, such as "ana@example.pt"',
    });
  }
  return address;
}

/** The entries under `prefix` whose value `keep` accepts, in key order. */
async function collect<T>(
  store: Store,
  prefix: KvKey,
  keep: (value: T) => boolean,
): Promise<KvEntry<T>[]> {
  const found: KvEntry<T>[] = [];
  for await (const entry of store.list<T>({ prefix })) {
    if (keep(entry.value)) found.push(entry);
  }
  return found;
}

/**
 * Ids an earlier look found, matched again by a later one although their records are deleted by
 * then: mail the outbox recorded, or a booking's action queued, between the look and the deletion.
 */
export interface KnownIds {
  /** Ids of inquiries and bookings. */
  recordIds: Iterable<string>;
  /** Ids of outbox messages and webhook deliveries. */
  mailIds: Iterable<string>;
}

/** Decides whether a message concerns the address or one of its records. */
function createMailMatcher(
  address: string,
  records: ReadonlyArray<{ id: string; mailIds: readonly string[] }>,
  known: KnownIds,
): (id: string, recordId: string, recipients: readonly string[]) => boolean {
  const recordIds = new Set([...known.recordIds, ...records.map((record) => record.id)]);
  const mailIds = new Set([...known.mailIds, ...records.flatMap((record) => record.mailIds)]);
  const isAddress = (mailbox: string) => toBareAddress(mailbox).trim().toLowerCase() === address;
  return (id, recordId, recipients) =>
    mailIds.has(id) || recordIds.has(recordId) || recipients.some(isAddress);
}

/**
 * Whether an idempotency record was written with one of `bookings`: by the booking it names, or,
 * for a record that names none, by the booking committed with it (same start, and written at the
 * booking's creation, which is when the record's 24 hours began).
 */
function createIdempotencyMatcher(
  bookings: readonly BookingRecord[],
): (record: IdempotencyRecord) => boolean {
  const ids = new Set(bookings.map((booking) => booking.id));
  const commits = new Set(
    bookings.map((booking) => `${booking.start} ${Date.parse(booking.createdAt)}`),
  );
  return (record) =>
    record.bookingId !== undefined ? ids.has(record.bookingId) : commits.has(
      `${record.result.start} ${record.expiresAtEpochMs - IDEMPOTENCY_MILLISECONDS}`,
    );
}

/** The slot holds that `bookings` still have. */
async function findHolds(
  store: Store,
  bookings: readonly BookingRecord[],
): Promise<KvEntry<SlotHold>[]> {
  const holds = await Promise.all(
    bookings.map((booking) => store.get<SlotHold>([...SLOT_PREFIX, booking.startEpochMs])),
  );
  return holds.filter((hold, index): hold is KvEntry<SlotHold> =>
    hold.value !== null && hold.value.bookingId === bookings[index].id
  );
}

const decoder = new TextDecoder();

/** Whether a waiting delivery's payload carries the address (an unreadable one does not). */
function isDeliveryOf(delivery: WebhookDelivery, address: string): boolean {
  try {
    return carriesAddress(JSON.parse(decoder.decode(delivery.payload)) as WebhookEvent, address);
  } catch {
    return false;
  }
}

/**
 * The webhook deliveries of an address: those waiting whose payload carries it (or that an
 * earlier look found), their due keys, and the records of finished deliveries of its records.
 */
async function findWebhooks(
  store: Store,
  address: string,
  known: { recordIds: ReadonlySet<string>; ids: ReadonlySet<string> },
): Promise<Pick<FoundPersonalData, "queuedWebhooks" | "webhookDueKeys" | "webhookRecords">> {
  const queuedWebhooks = await collect<WebhookDelivery>(
    store,
    WEBHOOK_OUTBOX_PREFIX,
    (delivery) => known.ids.has(delivery.id) || isDeliveryOf(delivery, address),
  );
  const queuedIds = new Set([...known.ids, ...queuedWebhooks.map((entry) => entry.value.id)]);
  const dueEntries = await collect<string>(store, WEBHOOK_DUE_PREFIX, (id) => queuedIds.has(id));
  return {
    queuedWebhooks,
    webhookDueKeys: dueEntries.map((entry) => entry.key),
    webhookRecords: await collect<WebhookDeliveryRecord>(
      store,
      WEBHOOK_DONE_PREFIX,
      (record) => known.recordIds.has(record.recordId),
    ),
  };
}

/**
 * Finds everything the store holds about an address (see the module's documentation for the
 * key ranges read). It reads every inquiry, booking, waiting message, delivery record and
 * idempotency record once: an operator's action, not a request's.
 *
 * @param store The service's store.
 * @param address The address, as {@linkcode readAddress} returns it.
 * @param known Ids an earlier look found, whose mail is matched too. @default {none}
 * @returns The entries found.
 * @throws Whatever the store throws.
 */
export async function findPersonalData(
  store: Store,
  address: string,
  known: KnownIds = { recordIds: [], mailIds: [] },
): Promise<FoundPersonalData> {
  const isAddress = (value: string | undefined) => value?.trim().toLowerCase() === address;
  const inquiries = await collect<InquiryRecord>(
    store,
    INQUIRY_PREFIX,
    (inquiry) => isAddress(inquiry.fields.Email),
  );
  const bookings = await collect<BookingRecord>(
    store,
    BOOKING_PREFIX,
    (booking) => isAddress(booking.email),
  );
  const records = [...inquiries, ...bookings].map((entry) => entry.value);
  const concerns = createMailMatcher(address, records, known);
  const queuedMail = await collect<OutboxEntry>(
    store,
    OUTBOX_PREFIX,
    (entry) =>
      concerns(entry.id, entry.recordId, [
        ...entry.mail.to,
        ...(entry.mail.replyTo ? [entry.mail.replyTo] : []),
      ]),
  );
  // A due key whose message an earlier look found is deleted too: the outbox may have moved it.
  const queuedIds = new Set([...known.mailIds, ...queuedMail.map((entry) => entry.value.id)]);
  const dueEntries = await collect<string>(store, DUE_PREFIX, (id) => queuedIds.has(id));
  const deliveryRecords = await collect<SentRecord>(
    store,
    SENT_PREFIX,
    (sent) => concerns(sent.id, sent.recordId, sent.to),
  );
  const digest = await sha256Hex(address);
  const bookingRecords = bookings.map((entry) => entry.value);
  // Ids an earlier look found count too: their bookings are deleted by the next look.
  const bookingIds = new Set([...known.recordIds, ...bookingRecords.map((booking) => booking.id)]);
  return {
    address,
    inquiries,
    bookings,
    queuedMail,
    dueKeys: dueEntries.map((entry) => entry.key),
    deliveryRecords,
    quotaRecords: await collect<number>(store, [...ATTENDEE_QUOTA_PREFIX, digest], () => true),
    signInQuotaRecords: await collect<number>(store, [...SIGN_IN_QUOTA_PREFIX, digest], () => true),
    idempotencyRecords: await collect<IdempotencyRecord>(
      store,
      IDEMPOTENCY_PREFIX,
      createIdempotencyMatcher(bookingRecords),
    ),
    slotHolds: await findHolds(store, bookingRecords),
    reminders: await collect<ReminderEntry>(
      store,
      REMINDER_PREFIX,
      (reminder) => bookingIds.has(reminder.bookingId),
    ),
    ...await findWebhooks(store, address, {
      recordIds: new Set([...known.recordIds, ...records.map((record) => record.id)]),
      ids: new Set([...known.mailIds].filter((id) => id.startsWith("msg_"))),
    }),
  };
}
