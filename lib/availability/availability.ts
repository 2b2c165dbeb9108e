/**
 * Availability: the slots of the studio's schedule that are free. One function decides, for both
 * the listing (`GET /api/v1/booking/slots`) and the booking check (`POST /api/v1/booking`), so the
 * two cannot disagree.
 *
 * Wall-clock opening hours become instants with Temporal in the schedule's time zone: a wall time
 * that does not exist (the hour skipped when clocks go forward) gives no slot, and a wall time
 * that exists twice (the hour repeated when clocks go back) gives one slot, at its earlier instant.
 *
 * @module
 */
import type { HolidayCalendar } from "./holidays.ts";
import { type ScheduleSettings, WEEKDAYS } from "./schedule.ts";

/** A busy span of time, as epoch milliseconds, start inclusive and end exclusive. */
export interface BusyInterval {
  /** Start, epoch milliseconds. */
  startEpochMs: number;
  /** End, epoch milliseconds (exclusive). */
  endEpochMs: number;
}

/** A candidate slot of the schedule, before busy time is taken into account. */
export interface CandidateSlot {
  /** The calendar date of the start in the schedule's time zone, `YYYY-MM-DD`. */
  date: string;
  /** The start as ISO 8601 with the zone's offset at that instant, e.g. `2026-12-01T09:30:00+00:00`. */
  start: string;
  /** Start, epoch milliseconds. */
  startEpochMs: number;
  /** End, epoch milliseconds. */
  endEpochMs: number;
}

/** What availability depends on at one moment. */
export interface AvailabilityInput {
  /** The schedule. */
  settings: ScheduleSettings;
  /** The current instant. */
  now: Temporal.Instant;
  /** Busy time from calendars, taken as it is. */
  busy: readonly BusyInterval[];
  /** Existing bookings (pending or confirmed): they block their time plus the buffers, and count toward the daily limit. */
  bookings: readonly BusyInterval[];
}

function toMinutes(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/**
 * Lists the candidate slots of the schedule on the dates from `first` to `last` (inclusive), in
 * the schedule's time zone: opening hours of each weekday on the grid, less closed dates and
 * public holidays. Pure: the same settings and dates give the same list, so callers may cache it.
 *
 * @param settings The schedule.
 * @param first The first date.
 * @param last The last date.
 * @param holidays The public holidays, prepared for the dates' years (see `createHolidayCalendar`).
 * @returns The candidates in time order.
 */
export function buildCandidateSlots(
  settings: ScheduleSettings,
  first: Temporal.PlainDate,
  last: Temporal.PlainDate,
  holidays: HolidayCalendar,
): CandidateSlot[] {
  const slots: CandidateSlot[] = [];
  const closed = new Set(settings.closedDates);
  const meetingMs = settings.meetingMinutes * 60_000;
  for (
    let date = first;
    Temporal.PlainDate.compare(date, last) <= 0;
    date = date.add({ days: 1 })
  ) {
    const day = date.toString();
    if (closed.has(day)) continue;
    if (
      settings.closedOnPublicHolidays &&
      holidays(settings.holidayCountry, date.year).has(day)
    ) continue;
    for (const [open, close] of settings.weeklyHours[WEEKDAYS[date.dayOfWeek - 1]]) {
      const closeMinutes = toMinutes(close);
      for (
        let minutes = toMinutes(open);
        minutes + settings.meetingMinutes <= closeMinutes;
        minutes += settings.gridMinutes
      ) {
        const wall = date.toPlainDateTime({ hour: Math.floor(minutes / 60), minute: minutes % 60 });
        const zoned = wall.toZonedDateTime(settings.timeZone, { disambiguation: "earlier" });
        // A wall time in the hour skipped by a clock change does not exist: no slot there.
        if (!zoned.toPlainDateTime().equals(wall)) continue;
        const startEpochMs = zoned.epochMilliseconds;
        slots.push({
          date: day,
          start: zoned.toString({ timeZoneName: "never", smallestUnit: "second" }),
          startEpochMs,
          endEpochMs: startEpochMs + meetingMs,
        });
      }
    }
  }
  return slots;
}

/** Sorts and merges intervals into disjoint ones, in time order. */
export function mergeIntervals(intervals: readonly BusyInterval[]): BusyInterval[] {
  const sorted = [...intervals].filter((interval) => interval.endEpochMs > interval.startEpochMs)
    .sort((a, b) => a.startEpochMs - b.startEpochMs);
  const merged: BusyInterval[] = [];
  for (const interval of sorted) {
    const last = merged[merged.length - 1];
    if (last && interval.startEpochMs <= last.endEpochMs) {
      last.endEpochMs = Math.max(last.endEpochMs, interval.endEpochMs);
    } else {
      merged.push({ ...interval });
    }
  }
  return merged;
}

/** Whether [startEpochMs, endEpochMs) overlaps any of the disjoint, sorted `intervals`. */
export function overlapsAny(
  intervals: readonly BusyInterval[],
  startEpochMs: number,
  endEpochMs: number,
): boolean {
  // The first interval that ends after the start; it overlaps when it starts before the end.
  let low = 0;
  let high = intervals.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (intervals[middle].endEpochMs <= startEpochMs) low = middle + 1;
    else high = middle;
  }
  return low < intervals.length && intervals[low].startEpochMs < endEpochMs;
}

/**
 * Removes the candidates that busy time or existing bookings block: a slot widened by the buffers
 * must not overlap busy time nor a booking widened by the buffers, and its day must be below the
 * daily limit. It does not depend on the current instant, so callers may keep its result while
 * busy time and bookings are unchanged.
 *
 * @param candidates Candidates from {@linkcode buildCandidateSlots}.
 * @param input The schedule, busy time and existing bookings.
 * @returns The free candidates, in time order.
 */
export function excludeBusySlots(
  candidates: readonly CandidateSlot[],
  input: Omit<AvailabilityInput, "now">,
): CandidateSlot[] {
  const { settings } = input;
  const beforeMs = settings.bufferBeforeMinutes * 60_000;
  const afterMs = settings.bufferAfterMinutes * 60_000;
  const blocked = mergeIntervals([
    ...input.busy,
    ...input.bookings.map((booking) => ({
      startEpochMs: booking.startEpochMs - beforeMs,
      endEpochMs: booking.endEpochMs + afterMs,
    })),
  ]);
  const perDay = new Map<string, number>();
  if (settings.maxMeetingsPerDay !== null && input.bookings.length) {
    for (const booking of input.bookings) {
      const day = Temporal.Instant.fromEpochMilliseconds(booking.startEpochMs)
        .toZonedDateTimeISO(settings.timeZone).toPlainDate().toString();
      perDay.set(day, (perDay.get(day) ?? 0) + 1);
    }
  }
  return candidates.filter((slot) =>
    (settings.maxMeetingsPerDay === null ||
      (perDay.get(slot.date) ?? 0) < settings.maxMeetingsPerDay) &&
    !overlapsAny(blocked, slot.startEpochMs - beforeMs, slot.endEpochMs + afterMs)
  );
}

/**
 * The bookable window at an instant: from the minimum notice to the horizon (calendar days in
 * the schedule's zone), as epoch milliseconds, both inclusive.
 */
export function buildBookingWindow(
  settings: ScheduleSettings,
  now: Temporal.Instant,
): { earliestEpochMs: number; latestEpochMs: number } {
  return {
    earliestEpochMs: now.epochMilliseconds + settings.minimumNoticeHours * 3_600_000,
    latestEpochMs: now.toZonedDateTimeISO(settings.timeZone).add({ days: settings.horizonDays })
      .epochMilliseconds,
  };
}

/** Keeps the slots that start within a booking window. */
export function keepWithinWindow(
  slots: readonly CandidateSlot[],
  window: { earliestEpochMs: number; latestEpochMs: number },
): CandidateSlot[] {
  return slots.filter((slot) =>
    slot.startEpochMs >= window.earliestEpochMs && slot.startEpochMs <= window.latestEpochMs
  );
}

/**
 * Filters candidate slots down to the available ones: after the minimum notice, within the
 * horizon, clear of busy time and of existing bookings (each widened by the buffers), and on days
 * below the daily limit. The listing and the booking check both come down to this.
 *
 * @param candidates Candidates from {@linkcode buildCandidateSlots}.
 * @param input The schedule, the current instant, busy time and existing bookings.
 * @returns The available slots, in time order.
 */
export function filterAvailableSlots(
  candidates: readonly CandidateSlot[],
  input: AvailabilityInput,
): CandidateSlot[] {
  return keepWithinWindow(
    excludeBusySlots(candidates, input),
    buildBookingWindow(input.settings, input.now),
  );
}

/**
 * The dates of a month in the schedule's time zone, and the span of instants a listing of it
 * must know busy time for (widened by a day on each side for buffers and clock changes).
 *
 * @param month `YYYY-MM`, already checked.
 */
export function describeMonth(month: string, timeZone: string): {
  first: Temporal.PlainDate;
  last: Temporal.PlainDate;
  span: BusyInterval;
} {
  const yearMonth = Temporal.PlainYearMonth.from(month);
  const first = yearMonth.toPlainDate({ day: 1 });
  const last = yearMonth.toPlainDate({ day: yearMonth.daysInMonth });
  return {
    first,
    last,
    span: {
      startEpochMs: first.subtract({ days: 1 }).toZonedDateTime(timeZone).epochMilliseconds,
      endEpochMs: last.add({ days: 2 }).toZonedDateTime(timeZone).epochMilliseconds,
    },
  };
}
