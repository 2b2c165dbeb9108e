/**
 * Booking reminders: the attendee of an accepted booking gets one e-mail a lead time before the
 * start. A reminder waits in the store as `["reminder", dueEpochMs, bookingId]`, written and
 * deleted in the same atomic commits that change the booking: booked (accepted at once),
 * confirmed, moved (the reminder follows the new start), declined and cancelled (it is deleted).
 * A booking accepted or moved after its due time (less than the lead before the start) gets none,
 * and a pending request gets one only once it is confirmed. The sweeper
 * (`reminder_sweeper.ts`) turns due reminders into outbox mail.
 *
 * @module
 */
import type { BookingRecord } from "./booking_mail.ts";
import type { AtomicOperation, KvKey } from "../store/store.ts";

/** Key prefix of waiting reminders: `["reminder", dueEpochMs, bookingId]`, in due order. */
export const REMINDER_PREFIX = ["reminder"] as const;

/**
 * How long a reminder's key is kept after the start, in milliseconds (a day): one the sweeper
 * never reached (no process ran) expires rather than stay for good.
 */
const KEPT_AFTER_START_MILLISECONDS = 86_400_000;

/** A waiting reminder: the booking, as it stood when the reminder was scheduled. */
export interface ReminderEntry {
  /** The booking's id. */
  bookingId: string;
  /** The booking's SEQUENCE then. */
  sequence: number;
  /** The start it reminds of, epoch milliseconds. */
  startEpochMs: number;
}

/**
 * The key of a booking's reminder due at `dueEpochMs`.
 *
 * @param dueEpochMs When it is due, epoch milliseconds.
 * @param bookingId The booking's id.
 * @returns `["reminder", dueEpochMs, bookingId]`.
 */
export function toReminderKey(dueEpochMs: number, bookingId: string): KvKey {
  return [...REMINDER_PREFIX, dueEpochMs, bookingId];
}

/**
 * When a booking's reminder is due, if it gets one: an accepted booking whose start is more than
 * the lead away at `nowEpochMs`.
 *
 * @param record The booking.
 * @param options `leadMinutes`: the lead (0: no reminders); `nowEpochMs`: the current instant.
 * @returns The due instant, epoch milliseconds, or `undefined` when no reminder is due.
 */
export function buildReminderDue(
  record: BookingRecord,
  options: { leadMinutes: number; nowEpochMs: number },
): number | undefined {
  if (record.status !== "accepted" || options.leadMinutes <= 0) return undefined;
  const dueEpochMs = record.startEpochMs - options.leadMinutes * 60_000;
  return dueEpochMs > options.nowEpochMs ? dueEpochMs : undefined;
}

/** Options of {@linkcode addReminderWrites}. */
export interface ReminderWriteOptions {
  /** The booking as stored before this commit; absent for a new booking. */
  previous?: BookingRecord;
  /** Minutes before the start that the attendee is reminded; 0: no reminders. */
  leadMinutes: number;
  /** The current instant, epoch milliseconds. */
  nowEpochMs: number;
}

/**
 * Adds a booking's reminder writes to the operation that writes `next`: the reminder the booking
 * had (`previous.reminderDueEpochMs`) is deleted unless it stays as it is, and the one `next` gets
 * ({@linkcode buildReminderDue}) is written. Sets or clears `next.reminderDueEpochMs` to match, so
 * call it before the operation writes `next`.
 *
 * @param operation The booking's atomic operation.
 * @param next The booking as the operation writes it; its `reminderDueEpochMs` is set here.
 * @param options The booking before, the lead and the current instant.
 */
export function addReminderWrites(
  operation: AtomicOperation,
  next: BookingRecord,
  options: ReminderWriteOptions,
): void {
  const dueEpochMs = buildReminderDue(next, options);
  const before = options.previous?.reminderDueEpochMs;
  if (before !== undefined && before !== dueEpochMs) {
    operation.delete(toReminderKey(before, next.id));
  }
  if (dueEpochMs === undefined) {
    delete next.reminderDueEpochMs;
    return;
  }
  next.reminderDueEpochMs = dueEpochMs;
  const entry: ReminderEntry = {
    bookingId: next.id,
    sequence: next.sequence,
    startEpochMs: next.startEpochMs,
  };
  operation.set(toReminderKey(dueEpochMs, next.id), entry, {
    expireIn: next.startEpochMs - options.nowEpochMs + KEPT_AFTER_START_MILLISECONDS,
  });
}
