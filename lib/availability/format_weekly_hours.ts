/**
 * The studio's weekly opening hours as a phrase for people, in a language: what the contact page
 * says (`{{hours}}` in the content) from the schedule itself, so the hours are written once, in
 * `content/schedule.json`.
 *
 * @module
 */
import { type ScheduleSettings, WEEKDAYS } from "./schedule.ts";

/** A Monday, whose week gives each weekday its name (any week would do). */
const A_MONDAY = Date.UTC(2026, 10, 30, 12);

/**
 * Writes weekly opening hours as a phrase: consecutive days with the same hours are one range of
 * days, each day's intervals a list in the language (`Intl.DateTimeFormat#formatRange`,
 * `Intl.ListFormat`), the groups separated by semicolons. Closed days are left out.
 *
 * @param weeklyHours The schedule's opening intervals per weekday, wall-clock `HH:MM`.
 * @param locale A BCP 47 tag, e.g. `pt-PT` or `en`.
 * @returns E.g. "Monday – Friday, 09:30–12:30 and 14:00–18:00" (`en`) or
 *   "segunda-feira – sexta-feira, 09:30–12:30 e 14:00–18:00" (`pt-PT`); an empty string when
 *   every day is closed.
 * @throws {RangeError} When the locale is not valid.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatWeeklyHours } from "./format_weekly_hours.ts";
 *
 * const day: [string, string][] = [["10:00", "13:00"], ["14:00", "19:00"]];
 * const hours = formatWeeklyHours({
 *   monday: day, tuesday: day, wednesday: day, thursday: day, friday: day,
 *   saturday: [["10:00", "13:00"]], sunday: [],
 * }, "en");
 * assert.equal(hours, "Monday – Friday, 10:00–13:00 and 14:00–19:00; Saturday, 10:00–13:00");
 * ```
 */
export function formatWeeklyHours(
  weeklyHours: ScheduleSettings["weeklyHours"],
  locale: string,
): string {
  const days = new Intl.DateTimeFormat(locale, { weekday: "long", timeZone: "UTC" });
  const list = new Intl.ListFormat(locale, { type: "conjunction" });
  const dayOf = (index: number) => new Date(A_MONDAY + index * 86_400_000);
  const describe = (index: number) =>
    list.format(weeklyHours[WEEKDAYS[index]].map(([open, close]) => `${open}–${close}`));
  const groups: string[] = [];
  for (let first = 0; first < WEEKDAYS.length;) {
    const hours = describe(first);
    let last = first;
    while (last + 1 < WEEKDAYS.length && describe(last + 1) === hours) last++;
    if (hours) {
      const span = first === last
        ? days.format(dayOf(first))
        : days.formatRange(dayOf(first), dayOf(last));
      groups.push(`${span}, ${hours}`);
    }
    first = last + 1;
  }
  return groups.join("; ");
}
