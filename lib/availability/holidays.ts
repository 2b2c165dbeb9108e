/**
 * National public holidays, from the `date-holidays` library (not a hand-typed list).
 *
 * @module
 */
import Holidays from "date-holidays";

/** The public holidays of a country in a year, as `YYYY-MM-DD` dates. */
export type HolidayCalendar = (country: string, year: number) => ReadonlySet<string>;

/**
 * The national public holidays of a country in a year, as `YYYY-MM-DD` dates. Regional holidays
 * and optional days (such as Carnival in Portugal) are not included. Computed on each call: see
 * {@linkcode createHolidayCalendar} for a remembering one.
 *
 * @param country ISO 3166-1 alpha-2 code, e.g. `PT`.
 * @param year The year.
 */
export function listPublicHolidays(country: string, year: number): ReadonlySet<string> {
  const holidays = new Holidays(country).getHolidays(year) || [];
  return new Set(
    holidays.filter((holiday) => holiday.type === "public").map((holiday) =>
      holiday.date.slice(0, 10)
    ),
  );
}

/**
 * Creates a holiday calendar that computes each country's year once and keeps it for its own
 * lifetime (a slot finder's), so that no cache is shared between handlers.
 *
 * @returns The calendar.
 */
export function createHolidayCalendar(): HolidayCalendar {
  const known = new Map<string, ReadonlySet<string>>();
  return (country, year) => {
    const key = `${country}:${year}`;
    let dates = known.get(key);
    if (!dates) {
      dates = listPublicHolidays(country, year);
      known.set(key, dates);
    }
    return dates;
  };
}
