/**
 * National public holidays, from the `date-holidays` library (not a hand-typed list). The years
 * of the default schedule's country are computed at build time into a table, which the
 * composition root passes in (generated code stays out of `lib/`); any other country or year loads
 * the library when first asked for, so that starting the service loads no holiday library.
 *
 * @module
 */
import { loadOnce } from "../load_once.ts";

/**
 * National public holidays computed ahead of time, by country (ISO 3166-1 alpha-2) and year, as
 * `YYYY-MM-DD` dates: the studio's is built by `deno task build`.
 */
export type HolidayTable = Readonly<Record<string, Readonly<Record<number, readonly string[]>>>>;

/** The public holidays of a country in a year, as `YYYY-MM-DD` dates. */
export type HolidayCalendar = (country: string, year: number) => ReadonlySet<string>;

/** The `date-holidays` library's class. */
type HolidaysLibrary = typeof import("date-holidays").default;

/**
 * The national public holidays of a country in a year, by `date-holidays`. Regional holidays and
 * optional days (such as Carnival in Portugal) are not included.
 */
function computePublicHolidays(
  Holidays: HolidaysLibrary,
  country: string,
  year: number,
): ReadonlySet<string> {
  const holidays = new Holidays(country).getHolidays(year) || [];
  return new Set(
    holidays.filter((holiday) => holiday.type === "public").map((holiday) =>
      holiday.date.slice(0, 10)
    ),
  );
}

/** A holiday calendar, and how to make the years it is asked for available first. */
export interface HolidaySource {
  /**
   * The calendar: answers from the table, or from years {@linkcode prepare} computed.
   * @throws {Error} For a country and year neither in the table nor prepared.
   */
  calendar: HolidayCalendar;
  /**
   * Makes years of a country available to `calendar`, computing those the table lacks (this loads
   * `date-holidays` once).
   *
   * @param country ISO 3166-1 alpha-2 code.
   * @param years The years.
   */
  prepare(country: string, years: readonly number[]): Promise<void>;
}

/**
 * Creates a holiday calendar that keeps what it computed for its own lifetime (a slot finder's),
 * so that no cache is shared between handlers.
 *
 * @param table Holidays computed ahead of time, answered without loading the library.
 * @default {{}}: every country and year is computed
 * @returns The calendar and its `prepare`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHolidayCalendar } from "./holidays.ts";
 *
 * const { calendar, prepare } = createHolidayCalendar({ PT: { 2026: ["2026-12-25"] } });
 * assert.ok(calendar("PT", 2026).has("2026-12-25")); // from the table
 * await prepare("ES", [2026]);
 * assert.ok(calendar("ES", 2026).has("2026-10-12"));
 * ```
 */
export function createHolidayCalendar(table: HolidayTable = {}): HolidaySource {
  const loadLibrary = loadOnce(async () => (await import("date-holidays")).default);
  const computed = new Map<string, ReadonlySet<string>>();
  const fromTable = new Map<string, ReadonlySet<string>>();
  function known(country: string, year: number): ReadonlySet<string> | undefined {
    const key = `${country}:${year}`;
    const cached = computed.get(key) ?? fromTable.get(key);
    if (cached) return cached;
    const dates = table[country]?.[year];
    if (!dates) return undefined;
    const set = new Set(dates);
    fromTable.set(key, set);
    return set;
  }
  return {
    calendar(country, year) {
      const dates = known(country, year);
      if (!dates) {
        throw new Error(`The public holidays of ${country} in ${year} were not prepared`);
      }
      return dates;
    },
    async prepare(country, years) {
      for (const year of years) {
        if (known(country, year)) continue;
        computed.set(
          `${country}:${year}`,
          computePublicHolidays(await loadLibrary(), country, year),
        );
      }
    },
  };
}
