/**
 * Moving a booking to another free slot at the attendee's request, in one atomic commit: the new
 * slot is held, the old one released, the booking record updated (a new SEQUENCE) and the
 * e-mails and the `booking.rescheduled` webhook event queued — or nothing is. A concurrent booking or move that takes the slot first makes
 * this one answer `taken`.
 *
 * @module
 */
import type { BookingMailKind, BookingRecord } from "./booking_mail.ts";
import { BOOKING_PREFIX } from "./booking_store.ts";
import {
  isHolding,
  SLOT_PREFIX,
  type SlotHold,
  SLOTS_VERSION_KEY,
} from "../availability/slot_holds.ts";
import {
  type BookingServices,
  findRequestedSlot,
  hasLapsed,
  queueBookingEvent,
  queueMails,
  RETENTION_MILLISECONDS,
} from "./bookings.ts";
import type { CandidateSlot } from "../availability/availability.ts";
import type { KvEntry, KvKey } from "../store/store.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";
import { addReminderWrites } from "./reminders.ts";

/** What the attendee asks for: the booking, as their link knew it, and the new start. */
export interface MoveRequest {
  /** The booking's id. */
  bookingId: string;
  /** The booking's SEQUENCE that the attendee's link was signed for. */
  sequence: number;
  /** The new start, an instant. */
  start: Temporal.Instant;
}

/** Why a booking cannot be moved. */
export type MoveRefusal =
  /** Cancelled by either side. */
  | "cancelled"
  /** Declined by the studio. */
  | "declined"
  /** A request the studio did not confirm in time: its slot is free for others. */
  | "lapsed"
  /** The conversation has started (or is over). */
  | "started"
  /** The booking changed since the link was sent (moved again): a newer e-mail has the link. */
  | "superseded";

/** The outcome of a move. */
export type MoveOutcome =
  /** Moved: `record` is the booking as it is now, with `previousStartEpochMs` set. */
  | { kind: "moved"; record: BookingRecord }
  /** The booking already starts then: nothing changed. */
  | { kind: "unchanged"; record: BookingRecord }
  /** The slot is not free (taken meanwhile, or never listed): nothing changed. */
  | { kind: "taken"; record: BookingRecord }
  /** The booking cannot be moved: nothing changed. */
  | { kind: "refused"; reason: MoveRefusal; record: BookingRecord }
  /** No booking has this id. */
  | { kind: "not-found" };

/** How many times a move reads again after a concurrent change before it gives up. */
const MAX_ATTEMPTS = 8;

/**
 * Why the booking as stored cannot be moved by a link signed for `sequence` at `nowEpochMs`, if
 * it cannot.
 *
 * @param record The booking.
 * @param sequence The SEQUENCE the link was signed for.
 * @param nowEpochMs The current instant, epoch milliseconds.
 */
export function checkMovable(
  record: BookingRecord,
  sequence: number,
  nowEpochMs: number,
): MoveRefusal | undefined {
  if (record.status === "cancelled" || record.status === "declined") return record.status;
  if (hasLapsed(record, nowEpochMs)) return "lapsed";
  if (nowEpochMs >= record.startEpochMs) return "started";
  if (record.sequence !== sequence) return "superseded";
  return undefined;
}

/** The booking as the move writes it: at the slot, one SEQUENCE on, the old start kept. */
function buildMovedRecord(
  current: BookingRecord,
  slot: CandidateSlot,
  now: Temporal.Instant,
): BookingRecord {
  // A pending request keeps the time the team has to confirm it, but never past its new start.
  const holdUntilEpochMs = current.status === "pending"
    ? Math.min(current.holdUntilEpochMs ?? slot.startEpochMs, slot.startEpochMs)
    : undefined;
  return {
    ...current,
    start: slot.start,
    startEpochMs: slot.startEpochMs,
    endEpochMs: slot.endEpochMs,
    sequence: current.sequence + 1,
    updatedAt: now.toString(),
    previousStartEpochMs: current.startEpochMs,
    ...(holdUntilEpochMs === undefined ? {} : { holdUntilEpochMs }),
  };
}

/** Reads a key, asking again while the store is briefly busy. */
function read<T>(services: BookingServices, key: KvKey) {
  return retry(() => services.store.get<T>(key), STORE_CONTENTION_RETRY);
}

/**
 * Commits one attempt of a move: `true` when it was written, `false` when a check failed (the
 * booking, the new slot or the old hold changed since they were read).
 */
async function commitMove(
  services: BookingServices,
  entry: KvEntry<BookingRecord>,
  slot: CandidateSlot,
  next: BookingRecord,
): Promise<boolean> {
  const { store, clock } = services;
  const current = entry.value;
  const nowEpochMs = clock.now().epochMilliseconds;
  const newKey = [...SLOT_PREFIX, slot.startEpochMs];
  const oldKey = [...SLOT_PREFIX, current.startEpochMs];
  const [newHold, oldHold] = await Promise.all([
    read<SlotHold>(services, newKey),
    read<SlotHold>(services, oldKey),
  ]);
  if (newHold.value && isHolding(newHold.value, nowEpochMs)) return false;
  const operation = store.atomic().check(entry).check(newHold);
  const kinds: BookingMailKind[] = ["attendee-moved", "studio-moved"];
  next.mailIds = [...current.mailIds, ...await queueMails(services, operation, next, kinds)];
  queueBookingEvent(services, operation, "booking.rescheduled", next);
  const hold: SlotHold = {
    bookingId: next.id,
    startEpochMs: next.startEpochMs,
    endEpochMs: next.endEpochMs,
    ...(next.holdUntilEpochMs === undefined ? {} : { lapsesAtEpochMs: next.holdUntilEpochMs }),
  };
  // The attendee's reminder follows the new start (none if its due time has passed).
  addReminderWrites(operation, next, {
    previous: current,
    leadMinutes: services.booking.reminderLeadMinutes ?? 0,
    nowEpochMs,
  });
  operation.set(newKey, hold, { expireIn: next.endEpochMs - nowEpochMs + 86_400_000 })
    .set(entry.key, next, { expireIn: RETENTION_MILLISECONDS })
    .set(SLOTS_VERSION_KEY, crypto.randomUUID());
  // The old slot is released only if it is still this booking's to release.
  if (oldHold.value?.bookingId === current.id) operation.check(oldHold).delete(oldKey);
  return (await retry(() => operation.commit(), STORE_CONTENTION_RETRY)).ok;
}

/**
 * Moves a booking to the free slot that starts at `request.start`, atomically: the new slot's
 * hold is written only if the slot is still free, the old slot's hold (if still this booking's)
 * is deleted, the record gets the new times, SEQUENCE + 1 and `previousStartEpochMs`, and the
 * e-mails are queued in the same commit: the attendee's (with a METHOD:REQUEST invite of the same
 * UID once they have been invited; a pending request's, a notice) and the studio's (a REQUEST).
 * A pending request stays pending, its hold lapsing when it would have (or at the new start).
 *
 * @param services The ports and settings bookings use.
 * @param request The booking, the SEQUENCE its link was signed for, and the new start.
 * @returns What happened; only `moved` changed anything.
 * @throws {ApiError} 503 `no-backend` when a calendar cannot be read for the slot check.
 * @throws Whatever the store throws while it stays unavailable (reads and the commit are tried
 * again while it is briefly busy).
 */
export async function moveBooking(
  services: BookingServices,
  request: MoveRequest,
): Promise<MoveOutcome> {
  const key = [...BOOKING_PREFIX, request.bookingId];
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const entry = await read<BookingRecord>(services, key);
    if (entry.value === null) return { kind: "not-found" };
    const current = entry.value;
    const now = services.clock.now();
    const reason = checkMovable(current, request.sequence, now.epochMilliseconds);
    if (reason) return { kind: "refused", reason, record: current };
    if (request.start.epochMilliseconds === current.startEpochMs) {
      return { kind: "unchanged", record: current };
    }
    const slot = await findRequestedSlot(services, request.start);
    if (!slot) return { kind: "taken", record: current };
    const next = buildMovedRecord(current, slot, now);
    if (await commitMove(services, entry, slot, next)) {
      services.slotFinder.forgetHolds();
      services.outbox.wake();
      services.logger.info("Booking moved", {
        id: current.id,
        from: current.start,
        start: next.start,
        sequence: next.sequence,
      });
      return { kind: "moved", record: next };
    }
    // Someone took the slot, or the booking changed: read both again. The slot's hold decides.
  }
  const last = (await read<BookingRecord>(services, key)).value;
  return last ? { kind: "taken", record: last } : { kind: "not-found" };
}
