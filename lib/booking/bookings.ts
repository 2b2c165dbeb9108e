/**
 * Bookings: reserving a slot in one atomic commit (the slot is free, the booking is written, the
 * hold is placed and the e-mails are queued — or nothing is), replaying idempotent repeats, and
 * the confirm, decline and cancel transitions of signed links.
 *
 * @module
 */
import type { BookingResult } from "../contract/responses.ts";
import { createId } from "../store/ids.ts";
import { ApiError } from "../contract/api_error.ts";
import {
  type BookingLinks,
  type BookingMailContext,
  type BookingMailKind,
  type BookingRecord,
  buildBookingMail,
  type InviteModule,
} from "./booking_mail.ts";
import { BOOKING_PREFIX } from "./booking_store.ts";
import {
  isHolding,
  SLOT_PREFIX,
  type SlotHold,
  SLOTS_VERSION_KEY,
} from "../availability/slot_holds.ts";

export { BOOKING_PREFIX, DEFAULT_BOOKINGS_PER_ATTENDEE } from "./booking_store.ts";
import { CalendarUnavailableError } from "../availability/busy_calendar.ts";
import {
  BOOKING_NOTHING_BOOKED_HINT,
  type BookingRequest,
  RETENTION_DAYS,
} from "../contract/contract.ts";
import type { SlotFinder } from "../availability/slots.ts";
import type { CandidateSlot } from "../availability/availability.ts";
import type { ScheduleSettings } from "../availability/schedule.ts";
import type { MailAddresses } from "../mail/mail.ts";
import type { Outbox } from "../mail/outbox.ts";
import type { Clock, Logger } from "../ports.ts";
import type { LinkSigner } from "./signed_links.ts";
import type { Store } from "../store/store.ts";
import type { BookingAction } from "./signed_links.ts";
import type { AtomicOperation, KvEntryMaybe, KvKey } from "../store/store.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";
import { sha256Hex } from "../store/digest.ts";
import { addReminderWrites } from "./reminders.ts";
import { type BookingEventType, buildBookingEvent } from "../webhooks/webhook_events.ts";
import { addToCounter, toErrorType, withSpan } from "../telemetry/telemetry.ts";

/** How long a booking is kept after its last change, in milliseconds. */
export const RETENTION_MILLISECONDS = RETENTION_DAYS * 86_400_000;

/** Key prefix of idempotency records: `["idempotency", key]`, kept 24 hours. */
export const IDEMPOTENCY_PREFIX = ["idempotency"] as const;

/** How long a repeat with the same Idempotency-Key replays the first answer, in milliseconds. */
export const IDEMPOTENCY_MILLISECONDS = 24 * 3600 * 1000;

/**
 * How long a pending booking (manual confirmation) holds its slot for the team, in milliseconds:
 * 48 hours, or until the start if that is sooner. Unconfirmed requests then lapse and free their
 * slots, so requests nobody answers cannot hold a month's slots, and a confirm link cannot book a
 * meeting that already passed.
 */
export const PENDING_HOLD_MILLISECONDS = 48 * 3600 * 1000;

/** Whether a pending booking's hold has lapsed at `nowEpochMs` (never, for other states). */
export function hasLapsed(record: BookingRecord, nowEpochMs: number): boolean {
  return record.status === "pending" &&
    nowEpochMs >= (record.holdUntilEpochMs ?? record.startEpochMs);
}

/**
 * Key prefix of the bookings counted per attendee address:
 * `["attendee_quota", sha256(lower-cased address), window]`, each kept until its window ends.
 */
export const ATTENDEE_QUOTA_PREFIX = ["attendee_quota"] as const;

/** The window of the per-address quota: a day (UTC), in milliseconds. */
export const ATTENDEE_WINDOW_MILLISECONDS = 86_400_000;

export type { BookingResult } from "../contract/responses.ts";

/** What an Idempotency-Key keeps: `["idempotency", key]`. */
export interface IdempotencyRecord {
  /** SHA-256 of the validated request, hex. */
  requestHash: string;
  /**
   * The booking it made, so that erasing the attendee's data finds the record (absent in records
   * written before bookings kept it).
   */
  bookingId?: string;
  /** The first answer's body. */
  result: BookingResult;
  /** Until when it replays, epoch milliseconds. */
  expiresAtEpochMs: number;
}

/** Where a booking request came from. */
export interface BookingOrigin {
  /** The client's rate-limit key. */
  clientAddress: string;
  /**
   * The attendee's IANA time zone, when the booking page knew it (the visitor's chosen or
   * browser zone, e.g. `America/New_York`): stored on the record, so the confirmation, the
   * e-mails and the reminder give the time in it as well as in the schedule's zone. A zone that
   * `Intl` does not know is not stored.
   */
  timeZone?: string;
}

/**
 * Whether `zone` is an IANA time zone this runtime knows (`Intl.DateTimeFormat` accepts it).
 *
 * @param zone A candidate, e.g. `America/Sao_Paulo`.
 */
export function isKnownTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function hashRequest(request: BookingRequest): Promise<string> {
  return sha256Hex(JSON.stringify(
    Object.keys(request).sort().map((key) => [key, request[key as keyof BookingRequest]]),
  ));
}

function conflict(): ApiError {
  return new ApiError("validation-failed", {
    status: 409,
    message: "The slot is not available",
    hint: "Refresh GET /api/v1/booking/slots and choose a listed slot",
  });
}

function unavailable(message: string, hint: string): ApiError {
  return new ApiError("no-backend", { status: 503, message, hint });
}

function attendeeLimited(limit: number, resetMilliseconds: number): ApiError {
  const seconds = Math.max(1, Math.ceil(resetMilliseconds / 1000));
  return new ApiError("rate-limited", {
    status: 429,
    message: `This e-mail address already has ${limit} bookings today`,
    hint:
      `Each address may book ${limit} conversations a day; retry after ${seconds} s, or write to the studio`,
    headers: { "Retry-After": String(seconds) },
  });
}

const UNCERTAIN_HINT =
  "The booking may or may not have been made: check the attendee's mailbox for a confirmation before any retry";

/**
 * What bookings use: narrow ports and settings, not the whole set of services (the handler's
 * resolved services satisfy it).
 */
export interface BookingServices {
  /** The public origin, for the signed links of the e-mails. */
  baseUrl: string;
  /** Where bookings, holds and idempotency records are kept. */
  store: Store;
  /** The current time. */
  clock: Clock;
  /** Where failures are logged. */
  logger: Logger;
  /** Queues the e-mails in the booking's commit, and delivers them. */
  outbox: Outbox;
  /** Finds the slot asked for, reading the busy calendars fresh. */
  slotFinder: SlotFinder;
  /** The meeting's zone, length and place. */
  schedule: ScheduleSettings;
  /** From and the studio's inbox. */
  mail: MailAddresses;
  /** Signs the confirm, decline, cancel and reschedule links. */
  linkSigner: LinkSigner;
  /**
   * Whether bookings are accepted at once or wait for the team, how many bookings one attendee
   * address may receive per day (UTC), and how many minutes before the start the attendee of an
   * accepted booking is reminded (absent or 0: no reminders; see `reminders.ts`).
   */
  booking: {
    confirmation: "auto" | "manual";
    bookingsPerAttendee: number;
    reminderLeadMinutes?: number;
  };
  /** Loads the invites' module once, with the first e-mail a booking queues. */
  loadInvites(): Promise<InviteModule>;
}

/** What the booking e-mails are written with: addresses, schedule, links, the clock, the outbox. */
export type BookingMailServices = Pick<
  BookingServices,
  "baseUrl" | "clock" | "outbox" | "schedule" | "mail" | "linkSigner" | "loadInvites"
>;

/**
 * The mail context of the services, at the current instant: the addresses, the schedule's zone,
 * meeting length and place, and the invites' builder.
 *
 * @param services The addresses, schedule and clock.
 * @param invites The invites' module (`services.loadInvites()`).
 * @returns The context the booking e-mails and invites are written with.
 */
export function toBookingMailContext(
  services: Pick<BookingMailServices, "mail" | "schedule" | "clock">,
  invites: Pick<InviteModule, "buildInvite">,
): BookingMailContext {
  return {
    from: services.mail.from,
    inbox: services.mail.inbox,
    domain: services.mail.messageIdDomain,
    timeZone: services.schedule.timeZone,
    durationMinutes: services.schedule.meetingMinutes,
    meetingPlace: services.schedule.meetingPlace,
    now: services.clock.now(),
    buildInvite: invites.buildInvite,
  };
}

async function buildLinks(
  services: BookingMailServices,
  record: BookingRecord,
): Promise<BookingLinks> {
  const { linkSigner, baseUrl } = services;
  const links: BookingLinks = { cancel: await linkSigner.buildUrl(baseUrl, "cancel", record.id) };
  if (record.status === "pending") {
    links.confirm = await linkSigner.buildUrl(baseUrl, "confirm", record.id);
    links.decline = await linkSigner.buildUrl(baseUrl, "decline", record.id);
  }
  if (record.status === "pending" || record.status === "accepted") {
    links.reschedule = await linkSigner.buildRescheduleUrl(baseUrl, record.id, record.sequence);
  }
  return links;
}

/**
 * Adds a booking's e-mails of `kinds` to `operation` (the outbox's records, delivered once it
 * commits), with the signed links the booking's state calls for.
 *
 * @param services The ports and settings the e-mails are written with.
 * @param operation The booking's atomic operation.
 * @param record The booking as the operation writes it.
 * @param kinds Which e-mails.
 * @returns The outbox ids of the e-mails.
 * @throws Whatever the store throws while the links' secret is read.
 */
export async function queueMails(
  services: BookingMailServices,
  operation: AtomicOperation,
  record: BookingRecord,
  kinds: BookingMailKind[],
  note?: string,
): Promise<string[]> {
  const links = await buildLinks(services, record);
  const context = toBookingMailContext(services, await services.loadInvites());
  if (note) context.note = note;
  const mails = kinds.map((kind) => buildBookingMail(kind, record, context, links));
  return services.outbox.add(
    operation,
    mails.map((mail) => ({ topic: "booking", recordId: record.id, mail })),
  );
}

/**
 * Adds a booking's webhook event to `operation`, so that it commits with the change it tells of
 * (nothing when webhooks are not configured). Its times carry the schedule zone's offset.
 *
 * @param services The outbox, the schedule's zone and the clock.
 * @param operation The booking's atomic operation.
 * @param type The event: `booking.requested` or `booking.confirmed` for a new booking (as it
 * waits for the team or is accepted at once), then `confirmed`, `declined`, `cancelled` or
 * `rescheduled`.
 * @param record The booking as the operation writes it.
 */
export function queueBookingEvent(
  services: Pick<BookingServices, "outbox" | "schedule" | "clock">,
  operation: AtomicOperation,
  type: BookingEventType,
  record: BookingRecord,
): void {
  const event = buildBookingEvent(type, record, {
    timeZone: services.schedule.timeZone,
    now: services.clock.now(),
  });
  services.outbox.addEvents(operation, [{ recordId: record.id, event }]);
}

function storeUnavailable(): ApiError {
  return unavailable("The booking store is unavailable", BOOKING_NOTHING_BOOKED_HINT);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A request's Idempotency-Key, with what the look-ups of its record found. */
interface Idempotency {
  key: KvKey;
  /** SHA-256 of the validated request, hex. */
  requestHash: string;
  /**
   * An expired record that the store still holds (Deno KV's expiry is best effort: a key is
   * deleted at some point after `expireIn`): the commit replaces it, if it is still the same.
   */
  expiredVersionstamp: string | null;
}

/** The ports the replay of an idempotent repeat reads. */
type ReplayPorts = Pick<BookingServices, "store" | "clock">;

/**
 * The first answer to this Idempotency-Key, if one is kept and has not expired.
 *
 * @throws {ApiError} 400 when the key was used with another request.
 */
async function replay(
  ports: ReplayPorts,
  idempotency: Idempotency | undefined,
): Promise<BookingResult | undefined> {
  if (!idempotency) return undefined;
  const previous = await ports.store.get<IdempotencyRecord>(idempotency.key);
  if (!previous.value) return undefined;
  if (previous.value.expiresAtEpochMs <= ports.clock.now().epochMilliseconds) {
    idempotency.expiredVersionstamp = previous.versionstamp;
    return undefined;
  }
  if (previous.value.requestHash !== idempotency.requestHash) {
    throw new ApiError("validation-failed", {
      status: 400,
      message: "This Idempotency-Key was used with another request",
      hint:
        "Send a new Idempotency-Key for a different booking, or repeat the first request unchanged",
    });
  }
  return previous.value.result;
}

/**
 * A slot found taken: by another booking (409), or by a concurrent repeat with the same key
 * that committed after this request's first look (its answer is replayed).
 */
async function replayOrConflict(
  ports: ReplayPorts,
  idempotency: Idempotency | undefined,
): Promise<BookingResult> {
  let again: BookingResult | undefined;
  try {
    again = await replay(ports, idempotency);
  } catch (error) {
    if (error instanceof ApiError) throw error;
  }
  if (again) return again;
  throw conflict();
}

/**
 * The slot that starts at `start`, read with fresh busy calendars and slot holds.
 *
 * @param services The ports and settings bookings use.
 * @param start The instant asked for.
 * @returns The slot, or `undefined` when no free slot starts then.
 * @throws {ApiError} 503 `no-backend` when a calendar or the store cannot be read.
 */
export async function findRequestedSlot(
  services: BookingServices,
  start: Temporal.Instant,
): Promise<CandidateSlot | undefined> {
  try {
    // Reads change nothing: a store that is briefly busy (e.g. a file locked by another process)
    // is asked again before the client is told to retry.
    return await retry(
      () => services.slotFinder.findSlot(start, "booking"),
      STORE_CONTENTION_RETRY,
    );
  } catch (error) {
    if (error instanceof CalendarUnavailableError) {
      throw unavailable(
        "The studio's calendar is temporarily unavailable",
        BOOKING_NOTHING_BOOKED_HINT,
      );
    }
    services.logger.error("Booking check could not read the store", { error: describe(error) });
    throw storeUnavailable();
  }
}

/** What one booking commits, worked out once before the attempts to commit it. */
interface PlannedBooking {
  record: BookingRecord;
  hold: SlotHold;
  result: BookingResult;
  slotKey: KvKey;
  /** The attendee's count of bookings in the current window. */
  quotaKey: KvKey;
  /** Until the attendee's window ends, from `now`. */
  quotaResetMilliseconds: number;
  idempotency: Idempotency | undefined;
  now: Temporal.Instant;
}

/** The booking's record, slot hold, answer and keys, for a slot found free at `now`. */
async function planBooking(
  services: BookingServices,
  request: BookingRequest,
  context: {
    slot: CandidateSlot;
    now: Temporal.Instant;
    origin: BookingOrigin;
    idempotency: Idempotency | undefined;
  },
): Promise<PlannedBooking> {
  const { slot, now } = context;
  const quotaWindow = Math.floor(now.epochMilliseconds / ATTENDEE_WINDOW_MILLISECONDS);
  const id = createId(now.epochMilliseconds);
  const status = services.booking.confirmation === "manual" ? "pending" : "accepted";
  const holdUntilEpochMs = status === "pending"
    ? Math.min(now.epochMilliseconds + PENDING_HOLD_MILLISECONDS, slot.startEpochMs)
    : undefined;
  const record: BookingRecord = {
    id,
    uid: `booking-${id}@${services.mail.messageIdDomain}`,
    sequence: 0,
    status,
    start: slot.start,
    startEpochMs: slot.startEpochMs,
    endEpochMs: slot.endEpochMs,
    name: request.name,
    email: request.email,
    ...(request.company ? { company: request.company } : {}),
    topic: request.topic,
    locale: request.locale,
    createdAt: now.toString(),
    updatedAt: now.toString(),
    clientAddress: context.origin.clientAddress,
    ...(context.origin.timeZone && isKnownTimeZone(context.origin.timeZone)
      ? { timeZone: context.origin.timeZone }
      : {}),
    attendeeInvited: status === "accepted",
    mailIds: [],
    ...(holdUntilEpochMs === undefined ? {} : { holdUntilEpochMs }),
  };
  return {
    record,
    hold: {
      bookingId: id,
      startEpochMs: slot.startEpochMs,
      endEpochMs: slot.endEpochMs,
      ...(holdUntilEpochMs === undefined ? {} : { lapsesAtEpochMs: holdUntilEpochMs }),
    },
    result: { ok: true, status, start: slot.start },
    slotKey: [...SLOT_PREFIX, slot.startEpochMs],
    quotaKey: [
      ...ATTENDEE_QUOTA_PREFIX,
      await sha256Hex(request.email.toLowerCase()),
      quotaWindow,
    ],
    quotaResetMilliseconds: (quotaWindow + 1) * ATTENDEE_WINDOW_MILLISECONDS -
      now.epochMilliseconds,
    idempotency: context.idempotency,
    now,
  };
}

/** Reads the slot's hold and the attendee's count; 503 when the store cannot be read. */
async function readHoldAndCount(
  store: Store,
  planned: PlannedBooking,
): Promise<[KvEntryMaybe<SlotHold>, KvEntryMaybe<number>]> {
  try {
    return await retry(
      () =>
        Promise.all([store.get<SlotHold>(planned.slotKey), store.get<number>(planned.quotaKey)]),
      STORE_CONTENTION_RETRY,
    );
  } catch {
    throw storeUnavailable();
  }
}

/**
 * Adds the booking's writes to `operation`: its e-mails, its webhook event, the record, the
 * slot's hold, the attendee's new count and the idempotency record.
 */
async function addBookingWrites(
  services: BookingServices,
  operation: AtomicOperation,
  planned: PlannedBooking,
  count: number,
): Promise<void> {
  const { record, idempotency, now } = planned;
  if (idempotency) {
    operation.check({ key: idempotency.key, versionstamp: idempotency.expiredVersionstamp });
  }
  try {
    // Signing the e-mails' links may need the store (for a generated secret).
    record.mailIds = await queueMails(
      services,
      operation,
      record,
      record.status === "accepted"
        ? ["attendee-booked", "studio-new"]
        : ["attendee-pending", "studio-new"],
    );
  } catch {
    throw storeUnavailable();
  }
  queueBookingEvent(
    services,
    operation,
    record.status === "accepted" ? "booking.confirmed" : "booking.requested",
    record,
  );
  const holdMilliseconds = record.endEpochMs - now.epochMilliseconds + 86_400_000;
  addReminderWrites(operation, record, {
    leadMinutes: services.booking.reminderLeadMinutes ?? 0,
    nowEpochMs: now.epochMilliseconds,
  });
  operation.set(planned.slotKey, planned.hold, { expireIn: holdMilliseconds })
    .set([...BOOKING_PREFIX, record.id], record, { expireIn: RETENTION_MILLISECONDS })
    .set(SLOTS_VERSION_KEY, crypto.randomUUID())
    .set(planned.quotaKey, count + 1, { expireIn: planned.quotaResetMilliseconds + 1000 });
  if (idempotency) {
    const kept: IdempotencyRecord = {
      requestHash: idempotency.requestHash,
      bookingId: record.id,
      result: planned.result,
      expiresAtEpochMs: now.epochMilliseconds + IDEMPOTENCY_MILLISECONDS,
    };
    operation.set(idempotency.key, kept, { expireIn: IDEMPOTENCY_MILLISECONDS });
  }
}

/**
 * Commits the booking's operation: `true` when it was written, `false` when a check failed.
 *
 * @throws {ApiError} 503 when the commit failed and the record is not there.
 */
async function commitWrites(
  services: BookingServices,
  operation: AtomicOperation,
  bookingId: string,
): Promise<boolean> {
  try {
    const committed = await withSpan(
      "booking commit",
      COMMIT_ATTRIBUTES,
      () => retry(() => operation.commit(), STORE_CONTENTION_RETRY),
    );
    return committed.ok;
  } catch (error) {
    // The commit is atomic: if the booking's record is there, it happened. Its absence proves
    // nothing (a commit that timed out may still land), so that stays uncertain.
    const written = await services.store.get([...BOOKING_PREFIX, bookingId]).then(
      (entry) => entry.value !== null,
      () => false,
    );
    if (!written) {
      services.logger.error("Booking commit failed; outcome unknown", { error: describe(error) });
      throw unavailable("The booking's outcome is uncertain", UNCERTAIN_HINT);
    }
    services.logger.warn("Booking commit reported a failure but was written", {
      error: describe(error),
    });
    return true;
  }
}

/** The attributes of the booking commit's span (the database semantic conventions'). */
const COMMIT_ATTRIBUTES = {
  "db.system.name": "deno_kv",
  "db.operation.name": "atomic.commit",
  "db.collection.name": "booking",
} as const;

/**
 * Commits a planned booking. The commit requires the slot's hold (none, or a lapsed pending one)
 * and the attendee's count to be as read; when either changed meanwhile, both are read again.
 */
async function commitBooking(
  services: BookingServices,
  planned: PlannedBooking,
): Promise<BookingResult> {
  const { store } = services;
  const { record, idempotency } = planned;
  for (let attempt = 1;; attempt++) {
    const [held, counted] = await readHoldAndCount(store, planned);
    if (held.value && isHolding(held.value, planned.now.epochMilliseconds)) {
      return await replayOrConflict(services, idempotency);
    }
    const count = counted.value ?? 0;
    const limit = services.booking.bookingsPerAttendee;
    if (count >= limit) {
      const again = await replay(services, idempotency).catch(() => undefined);
      if (again) return again;
      throw attendeeLimited(limit, planned.quotaResetMilliseconds);
    }
    const operation = store.atomic().check(held).check(counted);
    await addBookingWrites(services, operation, planned, count);
    if (await commitWrites(services, operation, record.id)) break;
    // The slot was taken meanwhile, a concurrent repeat with the same key won the race, or the
    // attendee's count moved: read again (the slot's hold and the replay decide).
    if (attempt >= 8) return await replayOrConflict(services, idempotency);
  }
  services.slotFinder.forgetHolds();
  services.outbox.wake();
  services.logger.info("Booking created", {
    id: record.id,
    status: record.status,
    start: record.start,
  });
  return planned.result;
}

/**
 * Books a slot.
 *
 * @param services The ports and settings bookings use.
 * @param request The validated BookingRequest.
 * @param options The client, and the `Idempotency-Key` header if sent.
 * @returns The BookingResult of a 201 (or the replayed first answer).
 * @throws {ApiError} 400 for an Idempotency-Key reused with another body; 409 when the slot is
 * not available; 429 `rate-limited` (with `Retry-After`) when the attendee's address had its
 * bookings of the day; 503 `no-backend` when a calendar cannot be read or the outcome is
 * uncertain.
 */
export async function createBooking(
  services: BookingServices,
  request: BookingRequest,
  options: { origin: BookingOrigin; idempotencyKey?: string },
): Promise<BookingResult> {
  try {
    const result = await bookSlot(services, request, options);
    addToCounter("bookings", { outcome: "booked" });
    return result;
  } catch (error) {
    addToCounter("bookings", { outcome: toErrorType(error) });
    throw error;
  }
}

/** Books a slot, as {@linkcode createBooking} says (which counts the outcome). */
async function bookSlot(
  services: BookingServices,
  request: BookingRequest,
  options: { origin: BookingOrigin; idempotencyKey?: string },
): Promise<BookingResult> {
  const now = services.clock.now();
  const idempotency: Idempotency | undefined = options.idempotencyKey
    ? {
      key: [...IDEMPOTENCY_PREFIX, options.idempotencyKey],
      requestHash: await hashRequest(request),
      expiredVersionstamp: null,
    }
    : undefined;
  let replayed: BookingResult | undefined;
  try {
    replayed = await replay(services, idempotency);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw storeUnavailable();
  }
  if (replayed) return replayed;

  const slot = await findRequestedSlot(services, Temporal.Instant.from(request.start));
  if (!slot) return await replayOrConflict(services, idempotency);
  const planned = await planBooking(services, request, {
    slot,
    now,
    origin: options.origin,
    idempotency,
  });
  return await commitBooking(services, planned);
}

/** The webhook event of each action's transition. */
const BOOKING_EVENTS: Readonly<Record<BookingAction, BookingEventType>> = {
  confirm: "booking.confirmed",
  decline: "booking.declined",
  cancel: "booking.cancelled",
};

/** Options of {@linkcode applyBookingAction}. */
export interface BookingActionOptions {
  /** The team's words to the attendee, in the decline or cancel e-mail (plain text). */
  note?: string;
  /** Adds writes to the transition's atomic commit, given the booking as it becomes. */
  withCommit?: (operation: AtomicOperation, next: BookingRecord) => void;
}

/** The outcome of a signed-link action. */
export type ActionOutcome =
  | { kind: "done"; record: BookingRecord }
  | { kind: "already"; record: BookingRecord }
  | { kind: "not-allowed"; record: BookingRecord }
  | { kind: "lapsed"; record: BookingRecord }
  | { kind: "not-found" };

/**
 * Applies a confirm, decline or cancel action to a booking, atomically with its e-mails and its
 * webhook event (`booking.confirmed`, `booking.declined`, `booking.cancelled`):
 * confirm (pending → accepted) sends the attendee the REQUEST invite; decline (pending →
 * declined) frees the slot and tells the attendee; cancel (pending or accepted → cancelled, before
 * the start) frees the slot and sends METHOD:CANCEL with a higher SEQUENCE to both sides.
 * Repeating an action that was done answers `already`; confirming or declining a pending booking
 * whose hold has lapsed ({@linkcode PENDING_HOLD_MILLISECONDS}) answers `lapsed` and changes
 * nothing. The signed links and the team's desk both act through here, so they share the
 * transitions, their checks and their e-mails.
 *
 * @param services The ports and settings bookings use.
 * @param action The action.
 * @param bookingId The booking.
 * @param options `note`: the team's words to the attendee, added to the decline or cancel
 * e-mail (the desk's); `withCommit`: writes to commit with the transition (the desk's audit
 * entry), given the booking as it becomes.
 * @throws Whatever the store throws when it is unavailable.
 */
export async function applyBookingAction(
  services: BookingServices,
  action: BookingAction,
  bookingId: string,
  options: BookingActionOptions = {},
): Promise<ActionOutcome> {
  const { store, clock } = services;
  for (let attempt = 0; attempt < 5; attempt++) {
    const entry = await store.get<BookingRecord>([...BOOKING_PREFIX, bookingId]);
    const current = entry.value;
    if (!current) return { kind: "not-found" };
    const done = action === "confirm"
      ? current.status === "accepted" && current.attendeeInvited
      : action === "decline"
      ? current.status === "declined"
      : current.status === "cancelled" || current.status === "declined";
    if (done) return { kind: "already", record: current };
    const nowEpochMs = clock.now().epochMilliseconds;
    if (action !== "cancel" && hasLapsed(current, nowEpochMs)) {
      return { kind: "lapsed", record: current };
    }
    const allowed = action === "cancel"
      ? nowEpochMs < current.startEpochMs
      : current.status === "pending";
    if (!allowed) return { kind: "not-allowed", record: current };
    // The slot's hold: kept for good on confirm, freed on decline or cancel, and touched only if
    // it is still this booking's (a lapsed request's slot may have been booked since).
    const slotKey = [...SLOT_PREFIX, current.startEpochMs] as const;
    const hold = await store.get<SlotHold>(slotKey);
    const ownHold = hold.value?.bookingId === current.id ? hold.value : undefined;

    const now = clock.now().toString();
    const next: BookingRecord = action === "confirm"
      ? { ...current, status: "accepted", attendeeInvited: true, updatedAt: now }
      : {
        ...current,
        status: action === "decline" ? "declined" : "cancelled",
        sequence: current.sequence + 1,
        updatedAt: now,
      };
    const kinds: BookingMailKind[] = action === "confirm"
      ? ["attendee-booked"]
      : action === "decline"
      ? ["attendee-declined", "studio-cancelled"]
      : ["attendee-cancelled", "studio-cancelled"];
    const operation = store.atomic().check(entry);
    const note = action === "confirm" ? undefined : options.note;
    const mailIds = await queueMails(services, operation, next, kinds, note);
    next.mailIds = [...current.mailIds, ...mailIds];
    queueBookingEvent(services, operation, BOOKING_EVENTS[action], next);
    // Confirming schedules the attendee's reminder; declining or cancelling deletes it.
    addReminderWrites(operation, next, {
      previous: current,
      leadMinutes: services.booking.reminderLeadMinutes ?? 0,
      nowEpochMs,
    });
    operation.set(entry.key, next, { expireIn: RETENTION_MILLISECONDS });
    options.withCommit?.(operation, next);
    if (ownHold && action === "confirm") {
      const { lapsesAtEpochMs: _lapsing, ...kept } = ownHold;
      operation.check(hold).set(slotKey, kept, {
        expireIn: Math.max(1, current.endEpochMs - nowEpochMs + 86_400_000),
      });
    } else if (ownHold) {
      operation.check(hold).delete(slotKey).set(SLOTS_VERSION_KEY, crypto.randomUUID());
    }
    if ((await retry(() => operation.commit(), STORE_CONTENTION_RETRY)).ok) {
      if (action !== "confirm") services.slotFinder.forgetHolds();
      services.outbox.wake();
      services.logger.info("Booking changed", { id: bookingId, action, status: next.status });
      return { kind: "done", record: next };
    }
  }
  throw new Error("Booking changed concurrently too often");
}
