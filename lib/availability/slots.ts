/**
 * The availability service: the slots a person sees and the check a booking passes are the same
 * computation — the schedule's candidates, less what the calendars' busy time and the slot holds
 * in the store block (`excludeBusySlots`), within the booking window (`keepWithinWindow`), which
 * together are `filterAvailableSlots`.
 *
 * @module
 */
import { createHolidayCalendar, type HolidaySource, type HolidayTable } from "./holidays.ts";
import {
  buildBookingWindow,
  buildCandidateSlots,
  type BusyInterval,
  type CandidateSlot,
  describeMonth,
  excludeBusySlots,
  keepWithinWindow,
} from "./availability.ts";
import type { BusyCalendar } from "./busy_calendar.ts";
import { createHoldsReader } from "./slot_holds.ts";
import type { ScheduleSettings } from "./schedule.ts";
import type { Store } from "../store/store.ts";

/**
 * How long a listing may reuse its last check of the slot holds, in milliseconds. Holds this
 * process writes are seen at once; another process's within this time. A booking's own check
 * always reads the store.
 */
export const HOLDS_CHECK_MILLISECONDS = 1000;

/**
 * What a slot check is for: a `listing` (the busy calendars read live, the holds' last check
 * reused for up to {@linkcode HOLDS_CHECK_MILLISECONDS}) or a `booking` (both read afresh).
 */
export type SlotCheck = "listing" | "booking";

/** Finds available slots. */
export interface SlotFinder {
  /**
   * The available slots of a month. The busy calendars are read for every check (the spec: slot
   * results are not cached); an unchanged feed answers a conditional request cheaply.
   *
   * @param month `YYYY-MM`, already checked.
   * @param check What the slots are for.
   * @throws {CalendarUnavailableError} When a calendar cannot be read.
   */
  listMonth(month: string, check: SlotCheck): Promise<CandidateSlot[]>;
  /**
   * The available slot that starts at `start`, if there is one now.
   *
   * @param start Any instant; matched to a slot's start exactly.
   * @param check As for `listMonth`.
   */
  findSlot(start: Temporal.Instant, check: SlotCheck): Promise<CandidateSlot | undefined>;
  /** Forgets cached holds: call it after this process wrote or removed one. */
  forgetHolds(): void;
}

/** Options of {@linkcode createSlotFinder}. */
export interface SlotFinderOptions {
  /** The schedule. */
  settings: ScheduleSettings;
  /** The calendars' busy time. */
  busyCalendar: BusyCalendar;
  /** The store holding slot holds. */
  store: Store;
  /** The current time in epoch milliseconds. */
  nowMilliseconds: () => number;
  /**
   * Public holidays computed at build time, listed without loading `date-holidays`; other
   * countries and years load it with their first listing. @default {{}}
   */
  holidays?: HolidayTable;
}

interface MonthEntry {
  /** The month's candidates (schedule only). */
  candidates: CandidateSlot[];
  /** The span of busy time that matters for the month. */
  span: BusyInterval;
  /** The candidates left free by the busy time and holds they were computed from. */
  free?: { busy: BusyInterval[]; holds: BusyInterval[]; slots: CandidateSlot[] };
}

/** A month's candidates from the schedule alone, with the public holidays it needs prepared. */
async function buildMonthEntry(
  settings: ScheduleSettings,
  holidays: HolidaySource,
  month: string,
): Promise<MonthEntry> {
  const described = describeMonth(month, settings.timeZone);
  if (settings.closedOnPublicHolidays) {
    await holidays.prepare(settings.holidayCountry, [described.first.year, described.last.year]);
  }
  return {
    candidates: buildCandidateSlots(settings, described.first, described.last, holidays.calendar),
    span: described.span,
  };
}

/**
 * Creates the availability service. A month's candidates are computed once (they depend on the
 * schedule only); the free ones are recomputed whenever the busy time or the holds change (the
 * calendar and the holds reader hand back the same arrays while nothing changed); the booking
 * window (notice and horizon) is applied on every call.
 */
export function createSlotFinder(options: SlotFinderOptions): SlotFinder {
  const { settings, busyCalendar, nowMilliseconds } = options;
  const holds = createHoldsReader(options.store);
  const months = new Map<string, MonthEntry>();
  const holidays = createHolidayCalendar(options.holidays);
  let window: { minuteStartMs: number; latestEpochMs: number } | undefined;

  async function readMonth(month: string): Promise<MonthEntry> {
    let entry = months.get(month);
    if (!entry) {
      entry = await buildMonthEntry(settings, holidays, month);
      if (months.size > 24) months.clear();
      months.set(month, entry);
    }
    return entry;
  }

  /** The booking window now; the horizon's zone arithmetic is done once a minute. */
  function readWindow(nowMs: number) {
    const minuteStartMs = nowMs - (nowMs % 60_000);
    if (!window || window.minuteStartMs !== minuteStartMs) {
      const latestEpochMs = buildBookingWindow(
        settings,
        Temporal.Instant.fromEpochMilliseconds(minuteStartMs),
      ).latestEpochMs;
      window = { minuteStartMs, latestEpochMs };
    }
    return {
      earliestEpochMs: nowMs + settings.minimumNoticeHours * 3_600_000,
      latestEpochMs: window.latestEpochMs + (nowMs - minuteStartMs),
    };
  }

  const finder: SlotFinder = {
    async listMonth(month, check) {
      const nowMs = nowMilliseconds();
      const entry = await readMonth(month);
      const [busy, held] = await Promise.all([
        busyCalendar.read(entry.span, { maxAgeSeconds: 0 }),
        holds.read(entry.span, {
          nowEpochMs: nowMs,
          maxAgeMilliseconds: check === "listing" ? HOLDS_CHECK_MILLISECONDS : 0,
        }),
      ]);
      if (!entry.free || entry.free.busy !== busy || entry.free.holds !== held) {
        const slots = excludeBusySlots(entry.candidates, { settings, busy, bookings: held });
        entry.free = { busy, holds: held, slots };
      }
      return keepWithinWindow(entry.free.slots, readWindow(nowMs));
    },
    async findSlot(start, check) {
      const month = start.toZonedDateTimeISO(settings.timeZone).toPlainDate().toPlainYearMonth()
        .toString();
      const startEpochMs = start.epochMilliseconds;
      const { candidates } = await readMonth(month);
      if (!candidates.some((slot) => slot.startEpochMs === startEpochMs)) {
        return undefined;
      }
      const available = await finder.listMonth(month, check);
      return available.find((slot) => slot.startEpochMs === startEpochMs);
    },
    forgetHolds() {
      holds.forget();
    },
  };
  return finder;
}
