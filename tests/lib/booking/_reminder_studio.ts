/**
 * A studio for the reminder tests: services over one store with a fixed clock, a mailer and a
 * reminder sweeper, on a weekday schedule of these tests' own (so that the studio's content does
 * not move their slots), with helpers to book and to list the waiting reminders. Internal to
 * tests/lib/booking/.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createServices } from "../../../compose/create_handler.ts";
import {
  createFixedClock,
  createMemoryMailer,
  createMemoryStore,
  type FixedClock,
  type MemoryMailer,
} from "../../../testing.ts";
import { createRecordingLogger, type RecordingLogger } from "../../_support.ts";
import type { Services } from "../../../lib/services.ts";
import type { Store } from "../../../lib/store/store.ts";
import type { Mailer } from "../../../lib/mail/mail.ts";
import type { BookingRecord } from "../../../lib/booking/booking_mail.ts";
import type { ScheduleSettings } from "../../../lib/availability/schedule.ts";
import { createBooking } from "../../../lib/booking/bookings.ts";
import { REMINDER_PREFIX, type ReminderEntry } from "../../../lib/booking/reminders.ts";
import {
  createReminderSweeper,
  type ReminderSweeper,
} from "../../../lib/booking/reminder_sweeper.ts";

/** Monday 23 November 2026, 08:00 in Lisbon (UTC+00:00 in winter). */
export const NOW = "2026-11-23T08:00:00Z";

/** Weekdays 09:00–18:00 in Lisbon, every 30 minutes, an hour's notice, no holidays. */
export const SCHEDULE: ScheduleSettings = {
  timeZone: "Europe/Lisbon",
  meetingMinutes: 30,
  gridMinutes: 30,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  minimumNoticeHours: 1,
  horizonDays: 60,
  maxMeetingsPerDay: null,
  weeklyHours: {
    monday: [["09:00", "18:00"]],
    tuesday: [["09:00", "18:00"]],
    wednesday: [["09:00", "18:00"]],
    thursday: [["09:00", "18:00"]],
    friday: [["09:00", "18:00"]],
    saturday: [],
    sunday: [],
  },
  closedDates: [],
  closedOnPublicHolidays: false,
  holidayCountry: "PT",
  meetingPlace: { pt: "Videochamada", en: "Video call" },
};

/** A studio's services, store, clock, mailer, logger and reminder sweeper. */
export interface Studio {
  services: Services;
  store: Store;
  clock: FixedClock;
  mailer: MemoryMailer;
  logger: RecordingLogger;
  sweeper: ReminderSweeper;
}

/**
 * Creates a studio; by default over a new in-memory store, with its own fixed clock at
 * {@linkcode NOW} and a memory mailer (a given `mailer` sends instead, `mailer.sent` staying
 * empty).
 */
export function createStudio(
  options: {
    confirmation?: "auto" | "manual";
    reminderLeadMinutes?: number;
    store?: Store;
    clock?: FixedClock;
    mailer?: Mailer;
  } = {},
): Studio {
  const { store = createMemoryStore(), clock = createFixedClock(NOW), ...settings } = options;
  const memory = createMemoryMailer();
  const logger = createRecordingLogger();
  const services = createServices({
    secret: "reminder-test-secret-0123456789abcdef",
    schedule: SCHEDULE,
    baseUrl: "https://studio.example",
    mailFrom: "Studio <site@studio.example>",
    inbox: "inbox@studio.example",
    bookingsPerAttendee: 1000,
    ...settings,
    store,
    clock,
    logger,
    mailer: settings.mailer ?? memory,
  });
  const sweeper = createReminderSweeper({ services });
  return { services, store, clock, mailer: memory, logger, sweeper };
}

/** Stops the studio's sweeper and outbox and closes its store. */
export async function close(studio: Studio): Promise<void> {
  await studio.sweeper.stop();
  await studio.services.outbox.stop();
  studio.store.close();
}

/** Epoch milliseconds of an ISO 8601 instant. */
export function epochMs(instant: string): number {
  return Temporal.Instant.from(instant).epochMilliseconds;
}

/** Books `start` for an attendee (Ana Sousa, in Portuguese by default); returns the booking. */
export async function book(
  studio: Studio,
  start: string,
  attendee: { email: string; locale?: "pt" | "en" } = { email: "ana@example.pt" },
): Promise<BookingRecord> {
  await createBooking(studio.services, {
    start,
    name: "Ana Sousa",
    email: attendee.email,
    topic: "Um novo site para a nossa marca",
    locale: attendee.locale ?? "pt",
  }, { origin: { clientAddress: "203.0.113.7" } });
  await studio.services.outbox.idle();
  return await findBooking(studio, attendee.email, start);
}

/** The one booking of `email` (at `start`, if given). */
export async function findBooking(
  studio: Studio,
  email: string,
  start?: string,
): Promise<BookingRecord> {
  const found: BookingRecord[] = [];
  for await (const entry of studio.store.list<BookingRecord>({ prefix: ["booking"] })) {
    if (entry.value.email !== email) continue;
    if (start === undefined || entry.value.startEpochMs === epochMs(start)) found.push(entry.value);
  }
  assert.equal(found.length, 1, `one booking for ${email}`);
  return found[0];
}

/** The waiting reminders: `[dueEpochMs, bookingId, entry]`, in due order. */
export async function listReminders(
  store: Store,
): Promise<Array<[number, string, ReminderEntry]>> {
  const found: Array<[number, string, ReminderEntry]> = [];
  for await (const entry of store.list<ReminderEntry>({ prefix: REMINDER_PREFIX })) {
    found.push([Number(entry.key[1]), String(entry.key[2]), entry.value]);
  }
  return found;
}
