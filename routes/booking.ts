/**
 * Booking: `GET /api/v1/booking/slots` (availability) — spec, Endpoints.
 *
 * @module
 */
import { ApiError } from "../lib/api_error.ts";
import { CalendarUnavailableError } from "../lib/busy_calendar.ts";
import { jsonResponse } from "../lib/json_response.ts";
import { buildOperationRoutes, type RouteDefinition } from "../lib/route.ts";
import type { Services } from "../lib/services.ts";
import { LISTING_MAX_AGE_SECONDS } from "../lib/slots.ts";

/** How many months ahead of the current one a listing may ask for (spec: "the next six months"). */
export const MONTHS_AHEAD = 6;

/**
 * Reads and checks the `month` query parameter: exactly one value, `YYYY-MM` in ASCII digits, a
 * real month, from the current month in the schedule's zone to six months ahead.
 *
 * @param url The request URL.
 * @param now The current instant.
 * @param timeZone The schedule's zone.
 * @returns The month, `YYYY-MM`.
 * @throws {ApiError} 400 `validation-failed` whose hint states the accepted range.
 */
export function readMonth(url: URL, now: Temporal.Instant, timeZone: string): string {
  const current = now.toZonedDateTimeISO(timeZone).toPlainDate().toPlainYearMonth();
  const latest = current.add({ months: MONTHS_AHEAD });
  const hint = `Use a month from ${current} to ${latest}, as ?month=YYYY-MM`;
  const values = url.searchParams.getAll("month");
  const fail = (message: string) =>
    new ApiError("validation-failed", {
      status: 400,
      message,
      hint,
      details: [{ field: "month", problem: values.length ? "format" : "missing", hint }],
    });
  if (values.length === 0) throw fail('Query parameter "month" is missing');
  if (values.length > 1) throw fail('Query parameter "month" is repeated');
  const [value] = values;
  const match = /^([0-9]{4})-([0-9]{2})$/.exec(value);
  const month = match ? Number(match[2]) : 0;
  if (!match || month < 1 || month > 12) {
    throw fail(`Month ${JSON.stringify(value.slice(0, 40))} is not a month in the form YYYY-MM`);
  }
  const requested = Temporal.PlainYearMonth.from({ year: Number(match[1]), month });
  if (
    Temporal.PlainYearMonth.compare(requested, current) < 0 ||
    Temporal.PlainYearMonth.compare(requested, latest) > 0
  ) {
    throw fail(`Month "${value}" is outside the next ${MONTHS_AHEAD} months`);
  }
  return value;
}

/** The routes of booking. */
export function bookingRoutes(services: Services): RouteDefinition[] {
  const { schedule, slotFinder } = services;
  return buildOperationRoutes("listBookingSlots", async (request) => {
    const month = readMonth(new URL(request.url), services.clock.now(), schedule.timeZone);
    let available;
    try {
      available = await slotFinder.listMonth(month, { maxAgeSeconds: LISTING_MAX_AGE_SECONDS });
    } catch (error) {
      if (error instanceof CalendarUnavailableError) {
        throw new ApiError("no-backend", {
          status: 503,
          message: "The studio's calendar is temporarily unavailable",
          hint: "Retry in a minute; nothing was reserved",
        });
      }
      throw error;
    }
    const slots: Record<string, Array<{ start: string }>> = {};
    for (const slot of available) (slots[slot.date] ??= []).push({ start: slot.start });
    return jsonResponse(
      { ok: true, timeZone: schedule.timeZone, slots },
      { headers: { "Cache-Control": "no-store" } },
    );
  });
}
