/**
 * The availability service: the slots a person sees and the check a booking passes are the same
 * computation — {@linkcode filterAvailableSlots} over the schedule's candidates, the calendars'
 * busy time and the slot holds in the store.
 *
 * @module
 */
import {
  buildCandidateSlots,
  type CandidateSlot,
  describeMonth,
  filterAvailableSlots,
} from "./availability.ts";
import type { BusyCalendar } from "./busy_calendar.ts";
import { createHoldsReader } from "./booking_store.ts";
import type { ScheduleSettings } from "./schedule.ts";
import type { Clock } from "./services.ts";
import type { Store } from "./store.ts";

/** How old a calendar copy a listing may use, in seconds (issue: at most 30). */
export const LISTING_MAX_AGE_SECONDS = 30;

/** Finds available slots. */
export interface SlotFinder {
  /**
   * The available slots of a month.
   *
   * @param month `YYYY-MM`, already checked.
   * @param options `maxAgeSeconds`: the oldest calendar copy allowed (30 for listings, 0 for a
   * booking's check).
   * @throws {CalendarUnavailableError} When a calendar cannot be read fresh enough.
   */
  listMonth(month: string, options: { maxAgeSeconds: number }): Promise<CandidateSlot[]>;
  /**
   * The available slot that starts at `start`, if there is one now.
   *
   * @param start Any instant; matched to a slot's start exactly.
   * @param options As for `listMonth`.
   */
  findSlot(
    start: Temporal.Instant,
    options: { maxAgeSeconds: number },
  ): Promise<CandidateSlot | undefined>;
}

/** Options of {@linkcode createSlotFinder}. */
export interface SlotFinderOptions {
  /** The schedule. */
  settings: ScheduleSettings;
  /** The calendars' busy time. */
  busyCalendar: BusyCalendar;
  /** The store holding slot holds. */
  store: Store;
  /** The clock. */
  clock: Clock;
}

/**
 * Creates the availability service. Candidates of a month are computed once per month and kept
 * (they depend on the schedule only); busy time and holds are read on every call.
 */
export function createSlotFinder(options: SlotFinderOptions): SlotFinder {
  const { settings, busyCalendar, clock } = options;
  const holds = createHoldsReader(options.store);
  const candidatesByMonth = new Map<string, CandidateSlot[]>();

  function candidates(
    month: string,
  ): { slots: CandidateSlot[]; span: ReturnType<typeof describeMonth>["span"] } {
    const described = describeMonth(month, settings.timeZone);
    let slots = candidatesByMonth.get(month);
    if (!slots) {
      slots = buildCandidateSlots(settings, described.first, described.last);
      if (candidatesByMonth.size > 24) candidatesByMonth.clear();
      candidatesByMonth.set(month, slots);
    }
    return { slots, span: described.span };
  }

  const finder: SlotFinder = {
    async listMonth(month, { maxAgeSeconds }) {
      const now = clock.now();
      const { slots, span } = candidates(month);
      const [busy, bookings] = await Promise.all([
        busyCalendar.read(span, { maxAgeSeconds }),
        holds.read(now.epochMilliseconds),
      ]);
      return filterAvailableSlots(slots, { settings, now, busy, bookings });
    },
    async findSlot(start, { maxAgeSeconds }) {
      const month = start.toZonedDateTimeISO(settings.timeZone).toPlainDate().toPlainYearMonth()
        .toString();
      const startEpochMs = start.epochMilliseconds;
      if (!candidates(month).slots.some((slot) => slot.startEpochMs === startEpochMs)) {
        return undefined;
      }
      const available = await finder.listMonth(month, { maxAgeSeconds });
      return available.find((slot) => slot.startEpochMs === startEpochMs);
    },
  };
  return finder;
}
