/**
 * Checks the studio's booking schedule (see `schedule.ts`) where it enters the service: a
 * superstruct validator typed by `Describe` of {@linkcode ScheduleSettings}, then the rules a
 * schema cannot see (known time zone, ordered intervals, calendar dates).
 *
 * @module
 */
import {
  array,
  boolean,
  type Describe,
  integer,
  min,
  nullable,
  number,
  object,
  optional,
  pattern,
  record,
  size,
  string,
  type Struct,
  tuple,
  validate,
} from "superstruct";
import { type OpeningInterval, type ScheduleSettings, WEEKDAYS } from "./schedule.ts";

const TIME: Struct<string, null> = pattern(string(), /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/);
const DATE: Struct<string, null> = pattern(string(), /^\d{4}-\d{2}-\d{2}$/);
const MINUTES: Struct<number, null> = min(integer(), 0);
const HOURS: Describe<OpeningInterval[]> = array(tuple([TIME, TIME]));

/** The validator of the schedule settings. */
const ScheduleSettings: Describe<ScheduleSettings> = object({
  /** Unused, for the file's own documentation. */
  $comment: optional(string()),
  /** IANA time zone of the opening hours and of the listing. */
  timeZone: string(),
  /** Length of a conversation, in minutes. */
  meetingMinutes: min(integer(), 5),
  /** Slots start every `gridMinutes` from each opening time. */
  gridMinutes: min(integer(), 5),
  /** Free time kept before each meeting, in minutes. */
  bufferBeforeMinutes: MINUTES,
  /** Free time kept after each meeting, in minutes. */
  bufferAfterMinutes: MINUTES,
  /** The earliest bookable slot starts this many hours from now. */
  minimumNoticeHours: min(number(), 0),
  /** The latest bookable slot starts within this many days from now. */
  horizonDays: min(integer(), 1),
  /** At most this many meetings on one day; `null` for no limit. */
  maxMeetingsPerDay: nullable(min(integer(), 1)),
  /** Opening intervals per weekday, `[["09:30", "12:30"], …]`, wall-clock, end exclusive. */
  weeklyHours: object({
    monday: HOURS,
    tuesday: HOURS,
    wednesday: HOURS,
    thursday: HOURS,
    friday: HOURS,
    saturday: HOURS,
    sunday: HOURS,
  }),
  /** Dates (`YYYY-MM-DD`) on which the studio takes no meetings. */
  closedDates: array(DATE),
  /** Whether the country's national public holidays are closed. */
  closedOnPublicHolidays: boolean(),
  /** ISO 3166 country of the public holidays. */
  holidayCountry: size(string(), 2, 2),
  /** Where meetings take place, per booking locale (put into invites). */
  meetingPlace: record(string(), string()),
});

/**
 * Checks schedule settings.
 *
 * @param value Parsed settings (e.g. the JSON file).
 * @returns The settings, typed.
 * @throws {TypeError} Naming the first invalid setting, or an unknown time zone, or an opening
 * interval that does not end after it starts.
 */
export function readSchedule(value: unknown): ScheduleSettings {
  const [error, settings] = validate(value, ScheduleSettings);
  if (error) {
    throw new TypeError(`Invalid schedule setting "${error.path.join(".")}": ${error.message}`);
  }
  try {
    Temporal.Now.plainDateTimeISO(settings.timeZone);
  } catch {
    throw new TypeError(`Invalid schedule setting "timeZone": "${settings.timeZone}" is unknown`);
  }
  for (const day of WEEKDAYS) {
    // "HH:MM" strings order by code unit; `localeCompare` would start ICU's collator (a cost to
    // every cold start) to say the same.
    const intervals = [...settings.weeklyHours[day]].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
    for (const [index, [open, close]] of intervals.entries()) {
      if (open >= close) {
        throw new TypeError(
          `Invalid schedule setting "weeklyHours.${day}": ${open}–${close} does not end after it starts`,
        );
      }
      const next = intervals[index + 1];
      if (next && next[0] < close) {
        throw new TypeError(
          `Invalid schedule setting "weeklyHours.${day}": ${open}–${close} overlaps ${next[0]}–${
            next[1]
          }`,
        );
      }
    }
  }
  for (const [index, date] of settings.closedDates.entries()) {
    try {
      Temporal.PlainDate.from(date, { overflow: "reject" });
    } catch {
      throw new TypeError(
        `Invalid schedule setting "closedDates.${index}": "${date}" is not a date`,
      );
    }
  }
  return settings;
}
