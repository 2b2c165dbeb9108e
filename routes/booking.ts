/**
 * Booking: `GET /api/v1/booking/slots` (availability) and `POST /api/v1/booking` (a booking of a
 * conversation of the schedule's `meetingMinutes`) — spec, Endpoints.
 *
 * @module
 */
import type { BookingSlots } from "../lib/contract/responses.ts";
import { ApiError } from "../lib/contract/api_error.ts";
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN } from "../lib/contract/contract.ts";
import { discardBody } from "../lib/http/read_body.ts";
import { CalendarUnavailableError } from "../lib/availability/busy_calendar.ts";
import { buildOperationRoutes, type RouteDefinition } from "../lib/http/route.ts";
import type { Services } from "../lib/services.ts";
import { loadOnce } from "../lib/load_once.ts";

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
  return checkMonth(url.searchParams.getAll("month"), now, timeZone);
}

/**
 * Checks the values given for a month (the query's `month` parameters, or the MCP tool's
 * `month` argument): exactly one, `YYYY-MM`, from the current month in the schedule's zone to six
 * months ahead.
 *
 * @param values Every value given.
 * @param now The current instant.
 * @param timeZone The schedule's zone.
 * @returns The month, `YYYY-MM`.
 * @throws {ApiError} 400 `validation-failed` whose hint states the accepted range.
 */
export function checkMonth(
  values: readonly string[],
  now: Temporal.Instant,
  timeZone: string,
): string {
  const current = now.toZonedDateTimeISO(timeZone).toPlainDate().toPlainYearMonth();
  const latest = current.add({ months: MONTHS_AHEAD });
  const hint = `Use a month from ${current} to ${latest}, as ?month=YYYY-MM`;
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

export type { BookingSlots } from "../lib/contract/responses.ts";

/**
 * Lists a month's free slots, as `GET /api/v1/booking/slots` and the MCP tool
 * `list_available_slots` answer them.
 *
 * @param services The schedule and the availability service.
 * @param month A checked month, `YYYY-MM` (see {@linkcode checkMonth}).
 * @returns The BookingSlots body.
 * @throws {ApiError} 503 `no-backend` when a calendar is unavailable.
 */
export async function listSlots(
  services: Pick<Services, "schedule" | "slotFinder">,
  month: string,
): Promise<BookingSlots> {
  let available;
  try {
    available = await services.slotFinder.listMonth(month, "listing");
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
  return { ok: true, timeZone: services.schedule.timeZone, slots };
}

/** The routes of booking. */
export function bookingRoutes(services: Services): RouteDefinition[] {
  const { schedule } = services;
  // The booking engine, its validation and its mail are loaded by the first booking rather than
  // at start-up.
  const loadBookings = loadOnce(() =>
    Promise.all([import("../lib/booking/bookings.ts"), import("../lib/booking/booking_request.ts")])
  );
  const book = buildOperationRoutes("createBooking", async (request, context) => {
    const [{ createBooking }, { readBookingRequest }] = await loadBookings();
    const idempotencyKey = request.headers.get("Idempotency-Key")?.trim();
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
      discardBody(request);
      throw new ApiError("validation-failed", {
        status: 400,
        message: "Header Idempotency-Key is invalid",
        hint: `Use 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters, e.g. a UUID`,
      });
    }
    const fields = await readBookingRequest(request);
    const result = await createBooking(services, fields, {
      origin: { clientAddress: context.clientKey },
      idempotencyKey,
    });
    return { body: result, status: 201, headers: { "Cache-Control": "no-store" } };
  });
  const list = buildOperationRoutes("listBookingSlots", async (request) => {
    const month = readMonth(new URL(request.url), services.clock.now(), schedule.timeZone);
    return { body: await listSlots(services, month), headers: { "Cache-Control": "no-store" } };
  });
  return [...list, ...book];
}
