/**
 * The studio the end-to-end servers serve, as `deno task build` made it from `content/`: its
 * corpus (`build/corpus.generated.ts`) and its schedule (`build/schedule.generated.ts`), and the
 * facts the tests expect, derived from them — the zone, the months as the studio counts them, a
 * page by id or layout — so that a studio with other content keeps the tests green. Internal to
 * tests/.
 *
 * @module
 */
import assert from "node:assert/strict";
import { CORPUS } from "../../build/corpus.generated.ts";
import { DEFAULT_SCHEDULE } from "../../build/schedule.generated.ts";
import { PUBLIC_HOLIDAYS } from "../../build/public_holidays.generated.ts";
import type { CorpusPage, Language, PageLayout } from "../../lib/site/corpus.ts";
import type { ScheduleSettings } from "../../lib/availability/schedule.ts";

export { CORPUS };

/** The studio's booking schedule, as the server reads it. */
export const SCHEDULE: ScheduleSettings = DEFAULT_SCHEDULE;

/** The studio's IANA time zone: slot listings, invites and booking pages speak in it. */
export const STUDIO_ZONE: string = DEFAULT_SCHEDULE.timeZone;

/** How long a booked conversation lasts, in minutes. */
export const MEETING_MINUTES: number = DEFAULT_SCHEDULE.meetingMinutes;

/** How long a booked conversation lasts, in milliseconds. */
export const MEETING_MILLISECONDS: number = MEETING_MINUTES * 60_000;

/** How far ahead a slot must start to be listed, in milliseconds. */
export const NOTICE_MILLISECONDS: number = DEFAULT_SCHEDULE.minimumNoticeHours * 3_600_000;

const WEEKDAYS = [
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
  "sunday",
] as const;

/** The ISO weekdays (1 = Monday … 7 = Sunday) on which the schedule has opening hours. */
export const OPEN_WEEKDAYS: readonly number[] = WEEKDAYS.flatMap((day, index) =>
  DEFAULT_SCHEDULE.weeklyHours[day].length ? [index + 1] : []
);

/** The iCalendar BYDAY code of an ISO weekday, e.g. `WE` for 3. */
export function toIcsWeekday(isoWeekday: number): string {
  return WEEKDAYS[isoWeekday - 1].slice(0, 2).toUpperCase();
}

/**
 * A page of the studio in `language`: the page of that id, else the first of that layout; given
 * several, the first of them the studio has.
 *
 * @param idOrLayout A page id (`contact_thanks`) or a layout (`booking`, `contact`, `case`), or
 *   several in order of preference, e.g. `["agents", "page"]`.
 * @throws {AssertionError} When the studio has no such page in that language.
 */
export function pageOf(
  idOrLayout: string | PageLayout | readonly string[],
  language: Language,
): CorpusPage {
  const wanted = typeof idOrLayout === "string" ? [idOrLayout] : idOrLayout;
  const pages = CORPUS.pages.filter((item) => item.language === language);
  const page = wanted.map((name) =>
    pages.find((item) => item.id === name) ?? pages.find((item) => item.layout === name)
  ).find((found) => found !== undefined);
  assert.ok(page, `the studio has a page "${wanted.join('" or "')}" in "${language}"`);
  return page;
}

/** The text of a page's H1, the first line of its Markdown. */
export function headingOf(page: CorpusPage): string {
  const heading = /^# (.+)$/m.exec(page.markdown)?.[1];
  assert.ok(heading, `${page.path} starts with an H1`);
  return heading;
}

/** The page a visitor sees after sending the contact form in `language`. */
export function thanksPageOf(language: Language): CorpusPage {
  return pageOf(CORPUS.languages[language].form.thanksPage, language);
}

/**
 * The words a message of the corpus starts with, up to its first `{placeholder}`, inline Markdown
 * or character that HTML escapes: what a page shows of it, as text or in its HTML, whatever fills
 * it in.
 *
 * @throws {AssertionError} When fewer than 8 characters remain, too few to tell messages apart.
 */
export function leadOf(message: string): string {
  const lead = message.split(/[{[*_`<>&"']/)[0].trim();
  assert.ok(lead.length >= 8, `"${message}" starts with words of its own`);
  return lead;
}

/** `text` as a regular expression that matches it literally. */
export function toLiteralPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * A message of the corpus as a pattern of the whole text a page shows: its `{placeholders}` filled
 * with `values`, any other placeholder matching any text.
 *
 * @param message A message with placeholders, e.g. `booking.uncertain`.
 * @param values What fills the placeholders known to the test, e.g. `{ attendee }`.
 */
export function toMessagePattern(message: string, values: Record<string, string> = {}): RegExp {
  const parts = message.split(/(\{\w+\})/).map((part) => {
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    if (name === undefined) return toLiteralPattern(part);
    return name in values ? toLiteralPattern(values[name]) : ".+?";
  });
  return new RegExp(`^${parts.join("")}$`, "s");
}

/**
 * The `YYYY-MM` months from the month of `now` in the studio's zone to `count` months later
 * (`count + 1` months).
 */
export function listStudioMonths(count: number, now = Temporal.Now.instant()): string[] {
  const first = now.toZonedDateTimeISO(STUDIO_ZONE).toPlainDate().toPlainYearMonth();
  return Array.from({ length: count + 1 }, (_, index) => first.add({ months: index }).toString());
}

/**
 * The month after this one in the studio's zone, `YYYY-MM`: inside the booking horizon, and its
 * slots lie beyond the minimum notice.
 */
export function nextMonth(): string {
  return listStudioMonths(1)[1];
}

/**
 * Whether the schedule opens on `date`: a weekday with opening hours, not a closed date nor (when
 * the schedule says so) a public holiday, and not past the booking horizon.
 */
export function isOpenDate(date: Temporal.PlainDate): boolean {
  const today = Temporal.Now.plainDateISO(STUDIO_ZONE);
  const holidays = PUBLIC_HOLIDAYS[DEFAULT_SCHEDULE.holidayCountry]?.[date.year] ?? [];
  return OPEN_WEEKDAYS.includes(date.dayOfWeek) &&
    !DEFAULT_SCHEDULE.closedDates.includes(date.toString()) &&
    !(DEFAULT_SCHEDULE.closedOnPublicHolidays && holidays.includes(date.toString())) &&
    Temporal.PlainDate.compare(date, today.add({ days: DEFAULT_SCHEDULE.horizonDays })) <= 0;
}

/**
 * The open dates of `month` ({@linkcode isOpenDate}) whose every slot lies beyond the minimum
 * notice: those from the day after the notice ends, but the last day of the horizon (its slots may
 * lie beyond the horizon's instant).
 *
 * @param month `YYYY-MM`, as the studio counts months.
 */
export function listOpenDates(month: string): Temporal.PlainDate[] {
  const now = Temporal.Now.zonedDateTimeISO(STUDIO_ZONE);
  const first = now.add({ milliseconds: NOTICE_MILLISECONDS }).toPlainDate().add({ days: 1 });
  const last = now.toPlainDate().add({ days: DEFAULT_SCHEDULE.horizonDays - 1 });
  const yearMonth = Temporal.PlainYearMonth.from(month);
  return Array.from(
    { length: yearMonth.daysInMonth },
    (_, index) => yearMonth.toPlainDate({ day: index + 1 }),
  ).filter((date) =>
    Temporal.PlainDate.compare(date, first) >= 0 && Temporal.PlainDate.compare(date, last) <= 0 &&
    isOpenDate(date)
  );
}

/** The studio's wall-clock date of a listed start (`2026-12-02T09:30:00+00:00`). */
export function toStudioDate(start: string): Temporal.PlainDate {
  return Temporal.Instant.from(start).toZonedDateTimeISO(STUDIO_ZONE).toPlainDate();
}

/**
 * The free starts the service lists, from next month on (the studio's months), month after month
 * until at least `minimum` are found or `months` months were read.
 *
 * @param origin The server's origin.
 * @returns The starts in listing order, at least `minimum` of them.
 */
export async function findFreeStarts(
  origin: string,
  options: { minimum?: number; months?: number } = {},
): Promise<string[]> {
  const minimum = options.minimum ?? 1;
  const starts: string[] = [];
  for (const month of listStudioMonths(options.months ?? 6).slice(1)) {
    if (starts.length >= minimum) break;
    const response = await fetch(`${origin}/api/v1/booking/slots?month=${month}`);
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const body: { timeZone: string; slots: Record<string, Array<{ start: string }>> } = JSON
      .parse(text);
    assert.equal(body.timeZone, STUDIO_ZONE);
    starts.push(...Object.values(body.slots).flat().map((slot) => slot.start));
  }
  assert.ok(starts.length >= minimum, `${minimum} free start(s) listed, got ${starts.length}`);
  return starts;
}

/**
 * A time zone whose offset differs from the studio's at `instant`: a visitor's zone in which a
 * time shown in the studio's zone would read differently.
 */
export function findForeignZone(instant: Temporal.Instant): string {
  const offsetOf = (zone: string) => instant.toZonedDateTimeISO(zone).offsetNanoseconds;
  const zone = ["America/New_York", "Asia/Tokyo"].find((candidate) =>
    offsetOf(candidate) !== offsetOf(STUDIO_ZONE)
  );
  assert.ok(zone);
  return zone;
}
