/**
 * National public holidays, from the `date-holidays` library (not a hand-typed list).
 *
 * @module
 */
import Holidays from "date-holidays";

const cache = new Map<string, Set<string>>();

/**
 * The national public holidays of a country in a year, as `YYYY-MM-DD` dates. Regional holidays
 * and optional days (such as Carnival in Portugal) are not included.
 *
 * @param country ISO 3166-1 alpha-2 code, e.g. `PT`.
 * @param year The year.
 */
export function listPublicHolidays(country: string, year: number): Set<string> {
  const key = `${country}:${year}`;
  let dates = cache.get(key);
  if (!dates) {
    const holidays = new Holidays(country).getHolidays(year) || [];
    dates = new Set(
      holidays.filter((holiday) => holiday.type === "public").map((holiday) =>
        holiday.date.slice(0, 10)
      ),
    );
    cache.set(key, dates);
  }
  return dates;
}
