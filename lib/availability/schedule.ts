/**
 * The studio's booking schedule (`content/schedule.json`): time zone, weekly opening hours,
 * meeting length and grid, buffers, minimum notice, horizon, daily limit, closed days and public
 * holidays, and where meetings take place. Checked once when a handler is created, by
 * `readSchedule` (`read_schedule.ts`): its validator shares the name of
 * {@linkcode ScheduleSettings}, and a value and a type of one name in one module are one symbol to
 * `deno doc`, which would publish the struct (and superstruct's types) with the interface.
 *
 * @module
 */

/** The days of the week, Monday first (ISO 8601 day 1 to 7). */
export const WEEKDAYS = [
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
  "sunday",
] as const;

/** An opening interval: wall-clock `["09:30", "12:30"]`, end exclusive. */
export type OpeningInterval = [open: string, close: string];

/** The studio's booking schedule, as `content/schedule.json` states it. */
export interface ScheduleSettings {
  /** Unused, for the file's own documentation. */
  $comment?: string;
  /** IANA time zone of the opening hours and of the listing, e.g. `Europe/Lisbon`. */
  timeZone: string;
  /** Length of a conversation, in minutes (at least 5). */
  meetingMinutes: number;
  /** Slots start every `gridMinutes` from each opening time. */
  gridMinutes: number;
  /** Free time kept before each meeting, in minutes. */
  bufferBeforeMinutes: number;
  /** Free time kept after each meeting, in minutes. */
  bufferAfterMinutes: number;
  /** The earliest bookable slot starts this many hours from now. */
  minimumNoticeHours: number;
  /** The latest bookable slot starts within this many days from now. */
  horizonDays: number;
  /** At most this many meetings on one day; `null` for no limit. */
  maxMeetingsPerDay: number | null;
  /** Opening intervals per weekday. */
  weeklyHours: Record<typeof WEEKDAYS[number], OpeningInterval[]>;
  /** Dates (`YYYY-MM-DD`) on which the studio takes no meetings. */
  closedDates: string[];
  /** Whether the country's national public holidays are closed. */
  closedOnPublicHolidays: boolean;
  /** ISO 3166 country of the public holidays, e.g. `PT`. */
  holidayCountry: string;
  /** Where meetings take place, per booking locale (`pt`, `en`), put into invites. */
  meetingPlace: Record<string, string>;
}
