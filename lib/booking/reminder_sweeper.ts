/**
 * The reminder sweeper: turns the reminders that are due (`reminders.ts`) into outbox mail. Each
 * reminder is queued in one atomic commit that checks the reminder's key and the booking as read,
 * deletes the key, writes the booking (the mail's id added) and adds the e-mail to the outbox; so
 * of several processes on one store only one queues it, a crash before the commit leaves it due
 * for the next sweep, and a booking cancelled, declined or moved meanwhile gets none for the old
 * time. The outbox then delivers it (at least once: see its module).
 *
 * A started sweeper looks every `intervalSeconds` (less a random quarter, so that processes spread
 * out), and sooner when the earliest waiting reminder is due sooner: a reminder is queued within
 * a second or so of its due time when it was scheduled before the previous sweep, and within the
 * interval otherwise.
 *
 * @module
 */
import type { BookingRecord } from "./booking_mail.ts";
import { BOOKING_PREFIX } from "./booking_store.ts";
import type { BookingMailServices, BookingServices } from "./bookings.ts";
import { REMINDER_PREFIX, type ReminderEntry } from "./reminders.ts";
import type { KvEntry, KvEntryMaybe, Store } from "../store/store.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";
import { loadOnce } from "../load_once.ts";
import { addToCounter } from "../telemetry/telemetry.ts";

/** The bookings' module, which writes the e-mails: loaded by the first reminder due. */
type BookingsModule = typeof import("./bookings.ts");

/** What the sweeper uses: the booking e-mails' services, the store and the logger. */
export type ReminderServices = BookingMailServices & Pick<BookingServices, "store" | "logger">;

/** The services, and the bookings' module loaded on first use. */
interface SweepContext {
  services: ReminderServices;
  loadBookings(): Promise<BookingsModule>;
}

/** Options of {@linkcode createReminderSweeper}. */
export interface ReminderSweeperOptions {
  /** The services: the store the reminders wait in, the outbox, the clock, the logger. */
  services: ReminderServices;
  /** The longest wait between two sweeps while started, in seconds. @default {30} */
  intervalSeconds?: number;
}

/** What sweeps did. */
export interface SweepReport {
  /** Reminders added to the outbox. */
  queued: number;
  /**
   * Due reminders deleted without mail: their booking is gone, no longer accepted, or moved, or
   * its start has passed.
   */
  skipped: number;
}

/** Finds due reminders and queues their mail; see the module's documentation. */
export interface ReminderSweeper {
  /** Queues every reminder due now, once. Never rejects; store failures are logged. */
  sweepDue(): Promise<SweepReport>;
  /**
   * Starts sweeping: the first sweep after `firstPassInMilliseconds` (at once by default), then
   * as the module's documentation says.
   */
  start(firstPassInMilliseconds?: number): void;
  /** Stops sweeping and waits for the sweep under way. */
  stop(): Promise<void>;
  /**
   * The reminders this sweeper queued and skipped since it was created, for metrics (a process's
   * own count: each reminder is counted by the one process that queued it).
   */
  counts(): SweepReport;
}

/** How many due reminders one read takes. */
const SWEEP_BATCH_SIZE = 64;

/** How many times a reminder whose booking changed under its commit is read again, per sweep. */
const MAX_ATTEMPTS = 5;

/** The shortest wait before a sweep for a reminder due soon, in milliseconds. */
const MIN_WAIT_MILLISECONDS = 1000;

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

/** Whether the booking still stands as the reminder knew it, before its start. */
function isStillDue(
  reminder: KvEntry<ReminderEntry>,
  booking: BookingRecord | null,
  nowEpochMs: number,
): booking is BookingRecord {
  return booking !== null && booking.status === "accepted" &&
    booking.reminderDueEpochMs === reminder.key[1] &&
    booking.sequence === reminder.value.sequence &&
    booking.startEpochMs === reminder.value.startEpochMs &&
    nowEpochMs < booking.startEpochMs;
}

/**
 * Queues one due reminder's mail, or deletes the reminder if its booking no longer stands: one
 * commit that checks the reminder and the booking. When either changed meanwhile, the reminder is
 * read again (gone: another process queued it, or the booking's change deleted it).
 */
async function sweepOne(
  context: SweepContext,
  due: KvEntry<ReminderEntry>,
  report: SweepReport,
): Promise<void> {
  const { services } = context;
  const { store, clock, logger } = services;
  const { queueMails, RETENTION_MILLISECONDS } = await context.loadBookings();
  let reminder: KvEntryMaybe<ReminderEntry> = due;
  for (let attempt = 1; reminder.value !== null && attempt <= MAX_ATTEMPTS; attempt++) {
    const current: KvEntry<ReminderEntry> = reminder;
    const bookingKey = [...BOOKING_PREFIX, current.value.bookingId];
    const booking = await retry(() => store.get<BookingRecord>(bookingKey), STORE_CONTENTION_RETRY);
    const operation = store.atomic().check(current).check(booking).delete(current.key);
    const standing = isStillDue(current, booking.value, clock.now().epochMilliseconds);
    if (standing && booking.value) {
      const { reminderDueEpochMs: _queued, ...next } = booking.value;
      const ids = await queueMails(services, operation, next, ["attendee-reminder"]);
      next.mailIds = [...next.mailIds, ...ids];
      operation.set(bookingKey, next, { expireIn: RETENTION_MILLISECONDS });
    }
    if ((await retry(() => operation.commit(), STORE_CONTENTION_RETRY)).ok) {
      if (standing) {
        report.queued++;
        addToCounter("remindersSent");
        logger.info("Reminder queued", { id: current.value.bookingId });
      } else {
        report.skipped++;
        logger.info("Reminder dropped", { id: current.value.bookingId });
      }
      return;
    }
    reminder = await retry(() => store.get<ReminderEntry>(current.key), STORE_CONTENTION_RETRY);
  }
}

/** Sweeps what is due, in batches, until nothing new is due or the sweeper stops. */
async function sweepAllDue(
  context: SweepContext,
  report: SweepReport,
  isStopping: () => boolean,
): Promise<void> {
  const { services } = context;
  const seen = new Set<string>();
  for (;;) {
    const nowEpochMs = services.clock.now().epochMilliseconds;
    const range = { start: [...REMINDER_PREFIX], end: [...REMINDER_PREFIX, nowEpochMs + 1] };
    const due: KvEntry<ReminderEntry>[] = [];
    for await (
      const entry of services.store.list<ReminderEntry>(range, { limit: SWEEP_BATCH_SIZE })
    ) {
      const name = `${String(entry.key[1])} ${entry.value.bookingId}`;
      if (!seen.has(name)) {
        seen.add(name);
        due.push(entry);
      }
    }
    if (!due.length) return;
    for (const entry of due) {
      if (isStopping()) return;
      await sweepOne(context, entry, report);
    }
  }
}

/** When the earliest waiting reminder is due, epoch milliseconds, if one waits. */
async function readNextDue(store: Store): Promise<number | undefined> {
  for await (const entry of store.list({ prefix: REMINDER_PREFIX }, { limit: 1 })) {
    return Number(entry.key[1]);
  }
  return undefined;
}

/**
 * One pass of a sweeper: queues every due reminder, adds its counts to `totals`, and wakes the
 * outbox when it queued any; a failure is logged, not thrown.
 */
async function runPass(
  context: SweepContext,
  totals: SweepReport,
  isStopping: () => boolean,
): Promise<{ report: SweepReport; failed: boolean }> {
  const report: SweepReport = { queued: 0, skipped: 0 };
  let failed = false;
  try {
    await sweepAllDue(context, report, isStopping);
  } catch (error) {
    failed = true;
    context.services.logger.error("Reminder sweep failed", { error: describe(error) });
  }
  totals.queued += report.queued;
  totals.skipped += report.skipped;
  if (report.queued) context.services.outbox.wake();
  return { report, failed };
}

/**
 * Creates the reminder sweeper of a service (the service's start runs it, as it runs the outbox).
 *
 * @param options The services and the interval.
 * @returns The sweeper, not started.
 */
export function createReminderSweeper(options: ReminderSweeperOptions): ReminderSweeper {
  const { services } = options;
  const { store, clock } = services;
  const intervalMilliseconds = (options.intervalSeconds ?? 30) * 1000;
  const totals: SweepReport = { queued: 0, skipped: 0 };
  // The bookings' module (and the invites') only once a reminder is due, not at start-up.
  const context: SweepContext = {
    services,
    loadBookings: loadOnce(() => import("./bookings.ts")),
  };
  let running: Promise<SweepReport> | undefined;
  /** The look for the next due time after a sweep, which `stop` waits for. */
  let scheduling: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;
  let stopping = false;

  /** Waits the interval less a random quarter, or until the next reminder is due if sooner. */
  async function scheduleNext(failed: boolean): Promise<void> {
    let wait = intervalMilliseconds * (0.75 + 0.25 * Math.random());
    if (!failed) {
      const next = await readNextDue(store).catch(() => undefined);
      if (next !== undefined) {
        const untilDue = next - clock.now().epochMilliseconds + 1000 * Math.random();
        wait = Math.min(wait, Math.max(MIN_WAIT_MILLISECONDS, untilDue));
      }
    }
    if (!started) return;
    clearTimeout(timer);
    timer = setTimeout(() => void sweeper.sweepDue(), wait);
    // As the outbox's: the timer alone does not hold a process open on Node and Bun (a server's
    // socket does), so a process whose service has stopped, or failed to open its store, ends.
    (timer as { unref?: () => void }).unref?.();
  }

  const sweeper: ReminderSweeper = {
    sweepDue() {
      // A sweep asked for while one runs follows it, so that it sees what is due by then.
      if (running) return running.then(() => sweeper.sweepDue());
      running = (async () => {
        const { report, failed } = await runPass(context, totals, () => stopping);
        if (started) scheduling = scheduleNext(failed);
        running = undefined;
        return report;
      })();
      return running;
    },
    start(firstPassInMilliseconds = 0) {
      if (started) return;
      started = true;
      if (firstPassInMilliseconds > 0) {
        // As the outbox's first pass: no Node timers module loaded before the first request.
        AbortSignal.timeout(firstPassInMilliseconds).addEventListener("abort", () => {
          if (started) void sweeper.sweepDue();
        });
      } else void sweeper.sweepDue();
    },
    async stop() {
      stopping = true;
      started = false;
      clearTimeout(timer);
      while (running) await running;
      await scheduling;
      stopping = false;
    },
    counts: () => ({ ...totals }),
  };
  return sweeper;
}
