/**
 * Personal data on request (GDPR articles 15 and 17): everything the store holds about one e-mail
 * address, exported as one JSON document or erased. The team's desk and the operator's CLI
 * (`deno task inbox export|erase`, `studio-website inbox export|erase`) call these functions.
 *
 * Erasure leaves no key or value that holds the address: inquiries, bookings, the mail they
 * caused (waiting or delivered), the bookings counted per address and the idempotency records of
 * its bookings are deleted, and so are its bookings' waiting reminders, the webhook deliveries
 * waiting whose payload carries the address and the records of its records' finished deliveries
 * (`find_personal_data.ts`). What the receiving tools keep is theirs to erase: a booking's
 * `booking.cancelled` event, which carries no address, still reaches them. An upcoming booking is first cancelled through the same transition as
 * the cancel link, so that both sides receive its METHOD:CANCEL invite, and erased once that mail
 * has left the outbox. What stays is an erasure record (when, by whom, how many records of each
 * kind) under `["erasure", id]`, with no personal data.
 *
 * Both refuse the studio's own addresses (its inbox, its From address, the team's members): they
 * receive every visitor's notices, so matching mail by recipient would export and erase other
 * visitors' mail. A request under the GDPR concerns a visitor's data; a former member's address
 * can be erased once it is no longer in `STUDIO_TEAM`.
 *
 * @module
 */
import type { BookingRecord } from "../booking/booking_mail.ts";
import { SLOTS_VERSION_KEY } from "../availability/slot_holds.ts";
import { applyBookingAction, type BookingServices } from "../booking/bookings.ts";
import type { InquiryRecord } from "../contact/inquiries.ts";
import { ApiError } from "../contract/api_error.ts";
import { readStudioAddresses, type StudioAddresses } from "./studio_addresses.ts";
import { OUTBOX_PREFIX } from "../mail/outbox.ts";
import type { Clock } from "../ports.ts";
import { createId } from "../store/ids.ts";
import { SIGN_IN_WINDOW_MILLISECONDS } from "../team/team.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";
import type { AtomicOperation, KvKey, Store } from "../store/store.ts";
import { findPersonalData, type FoundPersonalData, readAddress } from "./find_personal_data.ts";

export { readAddress } from "./find_personal_data.ts";

/** Key prefix of erasure records: `["erasure", id]`, ids sorting by time; kept for good. */
export const ERASURE_PREFIX = ["erasure"] as const;

/** One message of an export: what the outbox keeps of it, without its body. */
export interface ExportedMail {
  /** The outbox id. */
  id: string;
  /** `waiting`: not delivered yet; `sent`: the mail server accepted it. */
  state: "waiting" | "sent";
  /** What it is about: `inquiry` or `booking`. */
  topic: string;
  /** The inquiry or booking it belongs to. */
  recordId: string;
  /** Its recipients. */
  to: string[];
  /** Its subject. */
  subject: string;
  /** When it was queued (waiting mail), ISO 8601 UTC. */
  createdAt?: string;
  /** When the mail server accepted it (sent mail), ISO 8601 UTC. */
  sentAt?: string;
  /** Delivery attempts so far. */
  attempts: number;
}

/** One webhook delivery of an export: what became of it, without its payload. */
export interface ExportedWebhook {
  /** The delivery's `webhook-id`. */
  id: string;
  /** The event type, e.g. `inquiry.received`. */
  type: string;
  /** The inquiry or booking it told of. */
  recordId: string;
  /** The endpoint's id. */
  endpointId: string;
  /** `waiting`, or how it ended (`delivered`, `gone`, `disabled`, `unconfigured`, `expired`). */
  state: string;
  /** When it was queued, ISO 8601 UTC. */
  createdAt: string;
  /** Attempts so far. */
  attempts: number;
}

/**
 * Everything the store holds about one address, as one JSON document. Mail bodies are left out:
 * they are written from the inquiries and bookings listed here, and the studio's copies carry
 * signed confirm and decline links meant for the team alone.
 */
export interface PersonalDataExport {
  /** What the document is. */
  kind: "personal-data-export";
  /** The address, in lower case. */
  address: string;
  /** When the export was made, ISO 8601 UTC. */
  exportedAt: string;
  /** The inquiries it sent, as stored (fields, time, client address key, User-Agent, Referer). */
  inquiries: InquiryRecord[];
  /** The bookings it is the attendee of, as stored (every state). */
  bookings: BookingRecord[];
  /** The mail its records caused or that was addressed to it, waiting or delivered. */
  mail: ExportedMail[];
  /** Its bookings counted per day (UTC) for the per-address quota. */
  quota: Array<{ day: string; bookings: number }>;
  /**
   * The sign-in links asked for it at the team's sign-in form, per window (kept for the window,
   * 15 minutes, whether or not it is a team member's address).
   */
  signInRequests: Array<{ windowStart: string; requests: number }>;
  /** The idempotency records of its bookings (a repeat within 24 hours replays the answer). */
  idempotency: Array<{ bookingId?: string; expiresAt: string }>;
  /**
   * The webhook deliveries waiting whose payload carries it, and the finished deliveries of its
   * records (the payloads are left out, as mail bodies are: they are built from the records).
   */
  webhooks: ExportedWebhook[];
}

/** How many records of each kind an erasure deleted. */
export interface ErasureCounts {
  /** Inquiries. */
  inquiries: number;
  /** Bookings, in every state. */
  bookings: number;
  /**
   * Of those, upcoming bookings this run cancelled first, with their CANCEL invites sent (a run
   * that stopped for undelivered mail has cancelled them already, and is not recorded).
   */
  cancelledBookings: number;
  /** Mail still waiting for delivery. */
  queuedMail: number;
  /** Delivery records of sent mail. */
  deliveryRecords: number;
  /** Per-address quota counters: bookings per day, and sign-in links asked per window. */
  quotaRecords: number;
  /** Idempotency records. */
  idempotencyRecords: number;
  /** Webhook deliveries waiting whose payload carried the address; present when there were any. */
  queuedWebhooks?: number;
  /** Records of its records' finished webhook deliveries; present when there were any. */
  webhookRecords?: number;
}

/** The record an erasure leaves: when, by whom, how many of each kind; no personal data. */
export interface ErasureRecord {
  /** A ULID. */
  id: string;
  /** When the erasure finished, ISO 8601 UTC. */
  erasedAt: string;
  /** The team member or operator who erased, as they named themselves. */
  actor: string;
  /** What was deleted. */
  counts: ErasureCounts;
}

/** Options of {@linkcode erasePersonalData}. */
export interface ErasureOptions {
  /** Who erases: the team member's address or the operator's name (never the erased address). */
  actor: string;
  /**
   * How long to wait for the e-mails of upcoming bookings (their cancellations) to be delivered
   * before giving up, in milliseconds. @default {20000}
   */
  deliveryTimeoutMilliseconds?: number;
  /**
   * Erase even when those e-mails could not be delivered in time, discarding them (an address
   * that refuses mail for good, or no mail server). @default {false}
   */
  discardUndelivered?: boolean;
  /**
   * Adds writes to the commit of the erasure record, e.g. the desk's audit entry, so that they
   * are stored with it or not at all. @default {none}
   */
  withCommit?(operation: AtomicOperation, record: ErasureRecord): void;
}

export type { StudioAddresses } from "./studio_addresses.ts";

/** The ports an export reads, and the studio's addresses it refuses. */
export type ExportServices = { store: Store; clock: Clock } & StudioAddresses;

/** The ports an erasure uses: those of bookings (a cancellation's transition and mail), and the team. */
export type ErasureServices = BookingServices & StudioAddresses;

/**
 * Reads the address of an export or an erasure, refusing the studio's own: those of the
 * configuration and those the service recorded in the store (`studio_addresses.ts`).
 *
 * @throws {ApiError} 400 `validation-failed` for an invalid address or one of the studio's.
 */
async function readVisitorAddress(
  services: StudioAddresses & { store: Store },
  email: string,
): Promise<string> {
  const address = readAddress(email);
  const own = await readStudioAddresses(services.store, services);
  if (own.has(address)) {
    throw new ApiError("validation-failed", {
      status: 400,
      message: `"${address}" is the studio's own address`,
      hint:
        "Export and erasure are for a visitor's data: the studio's inbox, its From address and the team's addresses receive every visitor's notices (remove a former member from STUDIO_TEAM first)",
    });
  }
  return address;
}

/**
 * Exports everything the store holds about an address as one JSON document.
 *
 * @param services The store, the clock and the studio's addresses.
 * @param email The address, in any case, e.g. `"Ana@Example.pt"`.
 * @returns The document; `JSON.stringify` it for the file.
 * @throws {ApiError} 400 `validation-failed` when `email` is not an e-mail address, or is the
 * studio's inbox, From address or a team member's.
 * @throws Whatever the store throws.
 */
export async function exportPersonalData(
  services: ExportServices,
  email: string,
): Promise<PersonalDataExport> {
  const found = await findPersonalData(services.store, await readVisitorAddress(services, email));
  return {
    kind: "personal-data-export",
    address: found.address,
    exportedAt: services.clock.now().toString(),
    inquiries: found.inquiries.map((entry) => entry.value),
    bookings: found.bookings.map((entry) => entry.value),
    mail: [
      ...found.queuedMail.map(({ value }): ExportedMail => ({
        id: value.id,
        state: "waiting",
        topic: value.topic,
        recordId: value.recordId,
        to: value.mail.to,
        subject: value.mail.subject,
        createdAt: value.createdAt,
        attempts: value.attempts,
      })),
      ...found.deliveryRecords.map(({ value }): ExportedMail => ({
        id: value.id,
        state: "sent",
        topic: value.topic,
        recordId: value.recordId,
        to: value.to,
        subject: value.subject,
        sentAt: value.sentAt,
        attempts: value.attempts,
      })),
    ],
    quota: found.quotaRecords.map((entry) => ({
      day: toDay(entry.key[entry.key.length - 1]),
      bookings: entry.value,
    })),
    signInRequests: found.signInQuotaRecords.map((entry) => ({
      windowStart: Temporal.Instant.fromEpochMilliseconds(
        Number(entry.key[entry.key.length - 1]) * SIGN_IN_WINDOW_MILLISECONDS,
      ).toString(),
      requests: entry.value,
    })),
    idempotency: found.idempotencyRecords.map(({ value }) => ({
      ...(value.bookingId ? { bookingId: value.bookingId } : {}),
      expiresAt: Temporal.Instant.fromEpochMilliseconds(value.expiresAtEpochMs).toString(),
    })),
    webhooks: [
      ...found.queuedWebhooks.map(({ value }) => ({ ...value, state: "waiting" })),
      ...found.webhookRecords.map(({ value }) => ({ ...value, state: value.outcome })),
    ].map(({ id, type, recordId, endpointId, state, createdAt, attempts }) => ({
      id,
      type,
      recordId,
      endpointId,
      state,
      createdAt,
      attempts,
    })),
  };
}

/** The UTC day of a quota window (days since the epoch), e.g. `2026-12-01`. */
function toDay(window: unknown): string {
  return Temporal.Instant.fromEpochMilliseconds(Number(window) * 86_400_000).toString()
    .slice(0, 10);
}

/**
 * Reads who erases: a name or address of at most 200 characters, without control characters,
 * that does not hold the erased address (the record must hold no personal data of it). The
 * address is looked for as a word of its own, in any case (`Ana <ana@example.pt>` holds it;
 * `ana@studio.example` does not hold `na@studio.example`).
 */
function readActor(value: string, address: string): string {
  const actor = value.trim();
  // deno-lint-ignore no-control-regex -- control characters are what it refuses
  if (!actor || actor.length > 200 || /[\u0000-\u001f\u007f-\u009f]/.test(actor)) {
    throw new ApiError("validation-failed", {
      status: 400,
      message: "The actor is missing or not a name",
      hint: "Name who erases: the team member's address or the operator's name (200 characters)",
    });
  }
  const words = actor.toLowerCase().split(/[\s<>()[\]"',;]+|mailto:/);
  if (words.includes(address)) {
    throw new ApiError("validation-failed", {
      status: 400,
      message: "The actor holds the address being erased",
      hint: "The erasure record keeps no trace of the address: name another team member",
    });
  }
  return actor;
}

/** Whether a booking still lies ahead and holds its slot (or waits for the team). */
function isUpcoming(booking: BookingRecord, nowEpochMs: number): boolean {
  return (booking.status === "pending" || booking.status === "accepted") &&
    nowEpochMs < booking.startEpochMs;
}

/**
 * Cancels the address's upcoming bookings through the cancel link's transition (METHOD:CANCEL
 * to both sides, the slot freed).
 *
 * @returns How many it cancelled.
 */
async function cancelUpcoming(
  services: BookingServices,
  found: FoundPersonalData,
): Promise<number> {
  const nowEpochMs = services.clock.now().epochMilliseconds;
  let cancelled = 0;
  for (const { value: booking } of found.bookings) {
    if (!isUpcoming(booking, nowEpochMs)) continue;
    const outcome = await applyBookingAction(services, "cancel", booking.id);
    if (outcome.kind === "done") cancelled++;
  }
  return cancelled;
}

/**
 * Delivers the waiting mail of bookings that have not started (their cancellations among it) and
 * waits until it has left the outbox, by this process's outbox or another's on the same store.
 *
 * @throws {ApiError} 503 `no-backend` when some is still waiting after the timeout, unless it is
 * to be discarded.
 */
async function deliverUpcomingMail(
  services: BookingServices,
  found: FoundPersonalData,
  options: ErasureOptions,
): Promise<void> {
  const timeoutMilliseconds = options.deliveryTimeoutMilliseconds ?? 20_000;
  const nowEpochMs = services.clock.now().epochMilliseconds;
  const ahead = new Set(
    found.bookings.filter(({ value }) => nowEpochMs < value.startEpochMs)
      .map(({ value }) => value.id),
  );
  let waiting = found.queuedMail.filter(({ value }) => ahead.has(value.recordId))
    .map(({ value }) => value.id);
  const deadline = performance.now() + timeoutMilliseconds;
  while (waiting.length) {
    await services.outbox.deliverDue();
    const left = await Promise.all(
      waiting.map((id) => services.store.get([...OUTBOX_PREFIX, id])),
    );
    waiting = waiting.filter((_, index) => left[index].value !== null);
    if (!waiting.length) return;
    if (performance.now() >= deadline) {
      if (options.discardUndelivered) {
        services.logger.warn("Erasure discards undelivered mail", { count: waiting.length });
        return;
      }
      throw new ApiError("no-backend", {
        status: 503,
        message: `${waiting.length} e-mail(s) of upcoming bookings could not be delivered yet`,
        hint:
          "The bookings are cancelled and their CANCEL invites wait in the outbox: erase again once the mail server takes them (is STUDIO_SMTP_URL set?), or erase discarding them (the desk's option to discard undelivered mail, or --discard-undelivered)",
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every key of what was found. */
function keysOf(found: FoundPersonalData): KvKey[] {
  return [
    ...found.inquiries,
    ...found.bookings,
    ...found.queuedMail,
    ...found.deliveryRecords,
    ...found.quotaRecords,
    ...found.signInQuotaRecords,
    ...found.idempotencyRecords,
    ...found.slotHolds,
    ...found.reminders,
    ...found.queuedWebhooks,
    ...found.webhookRecords,
  ].map((entry) => entry.key).concat(found.dueKeys, found.webhookDueKeys);
}

/** Adds the ids of what was found to `known`, for the next look. */
function addKnown(
  known: { recordIds: Set<string>; mailIds: Set<string> },
  found: FoundPersonalData,
) {
  for (const { value } of [...found.inquiries, ...found.bookings]) {
    known.recordIds.add(value.id);
    for (const id of value.mailIds) known.mailIds.add(id);
  }
  for (const { value } of [...found.queuedMail, ...found.deliveryRecords]) {
    known.mailIds.add(value.id);
  }
  for (const { value } of found.queuedWebhooks) known.mailIds.add(value.id);
}

/** Adds the counts of what was found to `counts`. */
function addCounts(counts: ErasureCounts, found: FoundPersonalData): void {
  counts.inquiries += found.inquiries.length;
  counts.bookings += found.bookings.length;
  counts.queuedMail += found.queuedMail.length;
  counts.deliveryRecords += found.deliveryRecords.length;
  counts.quotaRecords += found.quotaRecords.length + found.signInQuotaRecords.length;
  counts.idempotencyRecords += found.idempotencyRecords.length;
  // Counted only where there are any, so that a studio without webhooks keeps its records' shape.
  if (found.queuedWebhooks.length) {
    counts.queuedWebhooks = (counts.queuedWebhooks ?? 0) + found.queuedWebhooks.length;
  }
  if (found.webhookRecords.length) {
    counts.webhookRecords = (counts.webhookRecords ?? 0) + found.webhookRecords.length;
  }
}

/** Keys deleted per commit, well under Deno KV's 1,000 mutations per atomic operation. */
const DELETES_PER_COMMIT = 100;

/**
 * Deletes what was found, in commits of {@linkcode DELETES_PER_COMMIT}; when slot holds are among
 * it, the last commit also changes the holds' version token, so that every process reads them
 * again.
 */
async function deleteFound(services: BookingServices, found: FoundPersonalData): Promise<void> {
  const keys = keysOf(found);
  const holdsFreed = found.slotHolds.length > 0;
  for (let start = 0; start < keys.length; start += DELETES_PER_COMMIT) {
    const operation = services.store.atomic();
    for (const key of keys.slice(start, start + DELETES_PER_COMMIT)) operation.delete(key);
    if (holdsFreed && start + DELETES_PER_COMMIT >= keys.length) {
      operation.set(SLOTS_VERSION_KEY, crypto.randomUUID());
    }
    await retry(() => operation.commit(), STORE_CONTENTION_RETRY);
  }
  if (holdsFreed) services.slotFinder.forgetHolds();
}

/**
 * Erases everything the store holds about an address (see the module's documentation): upcoming
 * bookings are cancelled first and their CANCEL invites delivered, then inquiries, bookings,
 * their mail (waiting and delivery records), the per-address quota counters and the idempotency
 * records are deleted, and an erasure record is written. Records the address made while it ran
 * are found by a second look and erased too, and so is mail the outbox recorded meanwhile (a
 * later look still matches the ids an earlier one found). Running it again for the same address
 * is safe.
 *
 * The deletions take several commits; the erasure record is written last, in a commit of its own
 * that `options.withCommit` may add to (the desk's audit entry).
 *
 * @param services The ports bookings use (the cancellation's transition and mail), and the
 * studio's addresses, which it refuses.
 * @param email The address, in any case.
 * @param options Who erases, how long to wait for the cancellations' delivery, what to add to
 * the record's commit.
 * @returns The erasure record, as stored under {@linkcode ERASURE_PREFIX}.
 * @throws {ApiError} 400 `validation-failed` for an invalid address, one of the studio's, or an
 * actor that names the address; 503 `no-backend` when the cancellations could not be delivered
 * in time (the bookings stay cancelled, nothing is erased; run it again later).
 * @throws Whatever the store throws.
 */
export async function erasePersonalData(
  services: ErasureServices,
  email: string,
  options: ErasureOptions,
): Promise<ErasureRecord> {
  const address = await readVisitorAddress(services, email);
  const actor = readActor(options.actor, address);
  const { store } = services;
  const counts: ErasureCounts = {
    inquiries: 0,
    bookings: 0,
    cancelledBookings: await cancelUpcoming(services, await findPersonalData(store, address)),
    queuedMail: 0,
    deliveryRecords: 0,
    quotaRecords: 0,
    idempotencyRecords: 0,
  };
  await deliverUpcomingMail(services, await findPersonalData(store, address), options);
  let found = await findPersonalData(store, address);
  const known = { recordIds: new Set<string>(), mailIds: new Set<string>() };
  const id = createId(services.clock.now().epochMilliseconds);
  for (let round = 0; round < 3 && keysOf(found).length; round++) {
    addCounts(counts, found);
    addKnown(known, found);
    await deleteFound(services, found);
    found = await findPersonalData(store, address, known);
  }
  const record: ErasureRecord = { id, erasedAt: services.clock.now().toString(), actor, counts };
  const operation = store.atomic().set([...ERASURE_PREFIX, record.id], record);
  options.withCommit?.(operation, record);
  await retry(() => operation.commit(), STORE_CONTENTION_RETRY);
  services.logger.info("Personal data erased", { erasure: record.id, counts: { ...counts } });
  return record;
}

/**
 * Lists erasure records, newest first.
 *
 * @param store The service's store.
 * @param options `limit`: the most records. @default {50}
 * @returns The records.
 */
export async function listErasures(
  store: Store,
  options: { limit?: number } = {},
): Promise<ErasureRecord[]> {
  const records: ErasureRecord[] = [];
  const selector = { prefix: ERASURE_PREFIX };
  for await (
    const entry of store.list<ErasureRecord>(selector, {
      limit: options.limit ?? 50,
      reverse: true,
    })
  ) {
    records.push(entry.value);
  }
  return records;
}
