import { test } from "node:test";
import assert from "node:assert/strict";
import { HOLDS_CHECK_MILLISECONDS } from "../../lib/availability/slots.ts";
import type { Handler } from "../../compose/create_handler.ts";
import { createSampleHandler } from "../_fixture_studio.ts";
import { type BusyInterval, describeMonth } from "../../lib/availability/availability.ts";
import {
  type BusyCalendar,
  CalendarUnavailableError,
  createIcsCalendar,
} from "../../lib/availability/busy_calendar.ts";
import {
  SLOT_PREFIX,
  type SlotHold,
  SLOTS_VERSION_KEY,
} from "../../lib/availability/slot_holds.ts";
import { type ErrorResponseBody, INTERNAL_ERROR_MESSAGE } from "../../lib/contract/api_error.ts";
import type { Store } from "../../lib/store/store.ts";
import type { Clock } from "../../lib/ports.ts";
import {
  buildRequest,
  createRecordingLogger,
  fromAddress,
  type RecordingLogger,
  WEEKDAY_TIMES,
} from "../_support.ts";
import { buildCalendar, buildEvent } from "../_ics_feed.ts";
import { createFixedClock, createMemoryStore } from "../../testing.ts";

const SLOTS_PATH = "/api/v1/booking/slots";
const CLIENT = fromAddress("203.0.113.7");
const DOCS = "http://localhost:8000/openapi.json";

/** The open weekdays of December 2026 (1st, 8th and 25th are holidays; 24th and 31st closed). */
const DECEMBER_DAYS = [2, 3, 4, 7, 9, 10, 11, 14, 15, 16, 17, 18, 21, 22, 23, 28, 29, 30]
  .map((day) => `2026-12-${String(day).padStart(2, "0")}`);

interface SlotsBody {
  ok: boolean;
  timeZone: string;
  slots: Record<string, Array<{ start: string }>>;
}

/** The ErrorResponse body as the library types it. */
type ErrorBody = ErrorResponseBody;

interface Setup {
  handler: Handler;
  store: Store;
  clock: ReturnType<typeof createFixedClock>;
  logger: RecordingLogger;
}

function setup(
  now: string,
  options: { busyCalendar?: BusyCalendar; rateLimits?: { read?: number } } = {},
): Setup {
  const clock = createFixedClock(now);
  const store = createMemoryStore();
  const logger = createRecordingLogger();
  const handler = createSampleHandler({ clock, store, logger, ...options });
  return { handler, store, clock, logger };
}

function getSlots(handler: Handler, query: string): Promise<Response> {
  return handler(buildRequest(`${SLOTS_PATH}${query}`), CLIENT);
}

async function readSlots(handler: Handler, month: string): Promise<SlotsBody> {
  const response = await getSlots(handler, `?month=${month}`);
  assert.equal(response.status, 200, await response.clone().text());
  return await response.json();
}

function starts(body: SlotsBody): string[] {
  return Object.values(body.slots).flat().map((slot) => slot.start);
}

function wallStarts(date: string, offset: string, times = WEEKDAY_TIMES): string[] {
  return times.map((time) => `${date}T${time}:00${offset}`);
}

/** Writes holds and a new version token in one atomic commit, as a booking does. */
async function writeHolds(
  store: Store,
  holds: Array<{ start: string; bookingId: string }>,
  version: string,
): Promise<void> {
  const operation = store.atomic();
  for (const hold of holds) {
    const startEpochMs = Temporal.Instant.from(hold.start).epochMilliseconds;
    const value: SlotHold = {
      bookingId: hold.bookingId,
      startEpochMs,
      endEpochMs: startEpochMs + 30 * 60_000,
    };
    operation.set([...SLOT_PREFIX, startEpochMs], value);
  }
  operation.set(SLOTS_VERSION_KEY, version);
  assert.deepEqual((await operation.commit()).ok, true);
}

/** A calendar over one iCalendar text, through the real parser, with an injected fetch. */
function createTextCalendar(clock: Clock, text: () => string): BusyCalendar {
  const fetchFeed: typeof fetch = () =>
    Promise.resolve(new Response(text(), { headers: { "Content-Type": "text/calendar" } }));
  return createIcsCalendar({
    urls: ["https://calendar.example/private/basic.ics"],
    defaultTimeZone: "Europe/Lisbon",
    clock,
    logger: createRecordingLogger(),
    fetch: fetchFeed,
  });
}

// ---------------------------------------------------------------------------------------------
// The listing

test("GET /api/v1/booking/slots answers BookingSlots keyed by Lisbon date, with only start", async () => {
  const { handler } = setup("2026-11-21T10:00:00Z");
  const response = await getSlots(handler, "?month=2026-12");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "application/json");
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.equal(response.headers.get("API-Version"), "1");
  assert.equal(response.headers.get("RateLimit-Policy"), '"read";q=120;w=60');
  assert.equal(response.headers.get("RateLimit-Limit"), "120");
  assert.equal(response.headers.get("RateLimit-Remaining"), "119");
  assert.match(response.headers.get("RateLimit") ?? "", /^"read";r=119;t=\d+$/);
  assert.ok(Number(response.headers.get("RateLimit-Reset")) >= 1);
  const body: SlotsBody = await response.json();
  assert.deepEqual(Object.keys(body), ["ok", "timeZone", "slots"]);
  assert.equal(body.ok, true);
  assert.equal(body.timeZone, "Europe/Lisbon");
  assert.deepEqual(Object.keys(body.slots), DECEMBER_DAYS);
  for (const [date, slots] of Object.entries(body.slots)) {
    assert.deepEqual(slots.map((slot) => slot.start), wallStarts(date, "+00:00"));
    for (const slot of slots) assert.deepEqual(Object.keys(slot), ["start"]);
  }
});

test("GET /api/v1/booking/slots gives +01:00 in summer and changes offset within a DST month", async () => {
  const { handler } = setup("2027-03-01T00:00:00Z");
  const april = await readSlots(handler, "2027-04");
  assert.ok(starts(april).every((start) => start.endsWith("+01:00")));
  assert.deepEqual(
    april.slots["2027-04-14"],
    wallStarts("2027-04-14", "+01:00").map((start) => ({ start })),
  );

  const march = await readSlots(handler, "2027-03");
  assert.deepEqual(
    march.slots["2027-03-25"].map((slot) => slot.start),
    wallStarts("2027-03-25", "+00:00"),
  );
  assert.equal(march.slots["2027-03-26"], undefined, "Good Friday");
  assert.equal(march.slots["2027-03-28"], undefined, "the DST Sunday");
  assert.deepEqual(
    march.slots["2027-03-29"].map((slot) => slot.start),
    wallStarts("2027-03-29", "+01:00"),
  );

  const { handler: autumn } = setup("2026-10-01T00:00:00Z");
  const october = await readSlots(autumn, "2026-10");
  assert.equal(october.slots["2026-10-05"], undefined, "Republic Day");
  assert.deepEqual(
    october.slots["2026-10-23"].map((slot) => slot.start),
    wallStarts("2026-10-23", "+01:00"),
  );
  assert.deepEqual(
    october.slots["2026-10-26"].map((slot) => slot.start),
    wallStarts("2026-10-26", "+00:00"),
  );
});

test("GET /api/v1/booking/slots leaves out the slots inside the 12 h notice of the current instant", async () => {
  const { handler, clock } = setup("2026-12-02T21:45:00Z");
  const body = await readSlots(handler, "2026-12");
  assert.equal(body.slots["2026-12-02"], undefined);
  assert.equal(body.slots["2026-12-03"][0].start, "2026-12-03T10:00:00+00:00");
  // Exactly 12 h before 10:00 the slot is still listed; a second later it is not.
  clock.set("2026-12-02T22:00:00Z");
  assert.equal(
    (await readSlots(handler, "2026-12")).slots["2026-12-03"][0].start,
    "2026-12-03T10:00:00+00:00",
  );
  clock.set("2026-12-02T22:00:01Z");
  assert.equal(
    (await readSlots(handler, "2026-12")).slots["2026-12-03"][0].start,
    "2026-12-03T10:30:00+00:00",
  );
});

test("GET /api/v1/booking/slots answers an empty object for a month wholly inside the notice", async () => {
  const { handler } = setup("2026-12-31T12:00:00Z");
  assert.deepEqual((await readSlots(handler, "2026-12")).slots, {});
});

test("GET /api/v1/booking/slots reads busy time over the month's span, live (no copy reused)", async () => {
  const reads: Array<{ span: BusyInterval; maxAgeSeconds: number }> = [];
  const busyCalendar: BusyCalendar = {
    read(span, { maxAgeSeconds }) {
      reads.push({ span, maxAgeSeconds });
      return Promise.resolve([
        { startEpochMs: Date.UTC(2026, 11, 2, 10), endEpochMs: Date.UTC(2026, 11, 2, 11) },
      ]);
    },
  };
  const { handler } = setup("2026-11-21T10:00:00Z", { busyCalendar });
  const body = await readSlots(handler, "2026-12");
  assert.deepEqual(
    body.slots["2026-12-02"].map((slot) => slot.start),
    wallStarts("2026-12-02", "+00:00").filter((start) => !/T10:[03]0/.test(start)),
  );
  assert.deepEqual(reads, [{
    span: describeMonth("2026-12", "Europe/Lisbon").span,
    maxAgeSeconds: 0,
  }]);
});

test("GET /api/v1/booking/slots removes the slots under events of an iCalendar feed", async () => {
  const clock = createFixedClock("2026-11-21T10:00:00Z");
  const busyCalendar = createTextCalendar(clock, () =>
    buildCalendar(
      buildEvent("dentist", "DTSTART:20261203T143000Z", "DTEND:20261203T153000Z"),
      buildEvent("holiday", "DTSTART;VALUE=DATE:20261204", "DTEND;VALUE=DATE:20261205"),
      buildEvent(
        "standup",
        "DTSTART;TZID=Europe/Lisbon:20261130T093000",
        "DTEND;TZID=Europe/Lisbon:20261130T100000",
        "RRULE:FREQ=WEEKLY;BYDAY=MO",
        "EXDATE;TZID=Europe/Lisbon:20261214T093000",
      ),
      buildEvent(
        "free",
        "DTSTART:20261209T100000Z",
        "DTEND:20261209T180000Z",
        "TRANSP:TRANSPARENT",
      ),
    ));
  const handler = createSampleHandler({ clock, busyCalendar, logger: createRecordingLogger() });
  const body = await readSlots(handler, "2026-12");
  assert.deepEqual(
    body.slots["2026-12-03"].map((slot) => slot.start.slice(11, 16)),
    WEEKDAY_TIMES.filter((time) => !["14:30", "15:00"].includes(time)),
  );
  assert.equal(body.slots["2026-12-04"], undefined, "the all-day event");
  assert.equal(body.slots["2026-12-07"][0].start, "2026-12-07T10:00:00+00:00");
  assert.equal(body.slots["2026-12-14"][0].start, "2026-12-14T09:30:00+00:00", "EXDATE");
  assert.equal(body.slots["2026-12-21"][0].start, "2026-12-21T10:00:00+00:00");
  assert.equal(body.slots["2026-12-09"].length, WEEKDAY_TIMES.length, "transparent");
});

test("GET /api/v1/booking/slots drops held slots and sees new holds once the version token changes", async () => {
  const { handler, store, clock } = setup("2026-11-21T10:00:00Z");
  // Another process's holds are seen once the listing checks the token again (at most 1 s).
  const later = () => clock.advance({ seconds: HOLDS_CHECK_MILLISECONDS / 1000 });
  const before = await readSlots(handler, "2026-12");
  assert.equal(before.slots["2026-12-02"].length, WEEKDAY_TIMES.length);

  await writeHolds(store, [
    { start: "2026-12-02T10:00:00+00:00", bookingId: "b1" },
    { start: "2026-12-02T15:30:00+00:00", bookingId: "b2" },
  ], "v1");
  const stale = await readSlots(handler, "2026-12");
  assert.equal(stale.slots["2026-12-02"].length, WEEKDAY_TIMES.length, "within 1 s of the check");
  later();
  const held = await readSlots(handler, "2026-12");
  assert.deepEqual(
    held.slots["2026-12-02"].map((slot) => slot.start.slice(11, 16)),
    WEEKDAY_TIMES.filter((time) => time !== "10:00" && time !== "15:30"),
  );

  // Holds written without a new token are not seen: the reader keeps its copy per token. This is
  // the contract the booking's commit must keep (holds and token change together).
  await store.set([...SLOT_PREFIX, Date.UTC(2026, 11, 3, 9, 30)], {
    bookingId: "b3",
    startEpochMs: Date.UTC(2026, 11, 3, 9, 30),
    endEpochMs: Date.UTC(2026, 11, 3, 10, 0),
  });
  later();
  assert.equal((await readSlots(handler, "2026-12")).slots["2026-12-03"].length, 14);
  await store.set(SLOTS_VERSION_KEY, "v2");
  later();
  assert.equal(
    (await readSlots(handler, "2026-12")).slots["2026-12-03"][0].start,
    "2026-12-03T10:00:00+00:00",
  );

  // A released hold frees its slot again.
  const release = store.atomic();
  release.delete([...SLOT_PREFIX, Date.UTC(2026, 11, 2, 10)]);
  release.set(SLOTS_VERSION_KEY, "v3");
  await release.commit();
  later();
  const released = await readSlots(handler, "2026-12");
  assert.ok(
    released.slots["2026-12-02"].some((slot) => slot.start === "2026-12-02T10:00:00+00:00"),
  );
  assert.ok(
    !released.slots["2026-12-02"].some((slot) => slot.start === "2026-12-02T15:30:00+00:00"),
  );
});

test("HEAD /api/v1/booking/slots answers the GET headers without a body", async () => {
  const { handler } = setup("2026-11-21T10:00:00Z");
  const response = await handler(
    buildRequest(`${SLOTS_PATH}?month=2026-12`, { method: "HEAD" }),
    CLIENT,
  );
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.equal(response.body, null);
});

// ---------------------------------------------------------------------------------------------
// Bad input

const HINT_NOVEMBER = "Use a month from 2026-11 to 2027-05, as ?month=YYYY-MM";

test("GET /api/v1/booking/slots answers 400 validation-failed with the accepted range for a bad month", async () => {
  const { handler } = setup("2026-11-21T10:00:00Z");
  const cases: Array<[query: string, message: string]> = [
    ["", 'Query parameter "month" is missing'],
    ["?MONTH=2026-12", 'Query parameter "month" is missing'],
    ["?month=2026-12&month=2027-01", 'Query parameter "month" is repeated'],
    ["?month=2026-12&month=2026-12", 'Query parameter "month" is repeated'],
    ["?month=", 'Month "" is not a month in the form YYYY-MM'],
    ["?month=2026-13", 'Month "2026-13" is not a month in the form YYYY-MM'],
    ["?month=2026-00", 'Month "2026-00" is not a month in the form YYYY-MM'],
    ["?month=2026-1", 'Month "2026-1" is not a month in the form YYYY-MM'],
    ["?month=99999-01", 'Month "99999-01" is not a month in the form YYYY-MM'],
    ["?month=+02026-12", 'Month " 02026-12" is not a month in the form YYYY-MM'],
    ["?month=2026-12-01", 'Month "2026-12-01" is not a month in the form YYYY-MM'],
    ["?month=202612", 'Month "202612" is not a month in the form YYYY-MM'],
    ["?month=%202026-12", 'Month " 2026-12" is not a month in the form YYYY-MM'],
    ["?month=2026-12%20", 'Month "2026-12 " is not a month in the form YYYY-MM'],
    ["?month=2026+12", 'Month "2026 12" is not a month in the form YYYY-MM'],
    ["?month=2026-12%0A", 'Month "2026-12\\n" is not a month in the form YYYY-MM'],
    ["?month=2026%E2%80%9012", 'Month "2026‐12" is not a month in the form YYYY-MM'],
    // Arabic-Indic and fullwidth digits.
    [
      `?month=${encodeURIComponent("٢٠٢٦-١٢")}`,
      'Month "٢٠٢٦-١٢" is not a month in the form YYYY-MM',
    ],
    [
      `?month=${encodeURIComponent("２０２６-１２")}`,
      'Month "２０２６-１２" is not a month in the form YYYY-MM',
    ],
    [
      `?month=${encodeURIComponent("2026-１２")}`,
      'Month "2026-１２" is not a month in the form YYYY-MM',
    ],
    ["?month=1999-01", 'Month "1999-01" is outside the next 6 months'],
    ["?month=2026-10", 'Month "2026-10" is outside the next 6 months'],
    ["?month=2027-06", 'Month "2027-06" is outside the next 6 months'],
    ["?month=9999-12", 'Month "9999-12" is outside the next 6 months'],
  ];
  for (const [query, message] of cases) {
    const response = await getSlots(handler, query);
    assert.equal(response.status, 400, query);
    assert.equal(response.headers.get("Content-Type"), "application/json");
    assert.equal(response.headers.get("RateLimit-Policy"), '"read";q=120;w=60');
    assert.equal(response.headers.get("API-Version"), "1");
    const body: ErrorBody = await response.json();
    assert.equal(body.ok, false);
    assert.equal(body.error.code, "validation-failed", query);
    assert.equal(body.error.message, message, query);
    assert.equal(body.error.hint, HINT_NOVEMBER, query);
    assert.equal(body.error.docs, DOCS);
    assert.deepEqual(body.error.details, [{
      field: "month",
      problem: message.includes("missing") ? "missing" : "format",
      hint: HINT_NOVEMBER,
    }]);
  }
  // The first and last months of the range are accepted.
  for (const month of ["2026-11", "2027-05"]) {
    const response = await getSlots(handler, `?month=${month}`);
    assert.equal(response.status, 200, month);
    await response.body?.cancel();
  }
});

test("GET /api/v1/booking/slots counts the accepted range from the current month in Lisbon", async () => {
  // 2027-03-31T23:30Z is already 2027-04-01 00:30 in Lisbon (+01:00).
  const { handler } = setup("2027-03-31T23:30:00Z");
  const march = await getSlots(handler, "?month=2027-03");
  assert.equal(march.status, 400);
  const body: ErrorBody = await march.json();
  assert.equal(body.error.hint, "Use a month from 2027-04 to 2027-10, as ?month=YYYY-MM");
  const october = await getSlots(handler, "?month=2027-10");
  assert.equal(october.status, 200);
  await october.body?.cancel();
  // In winter Lisbon is on UTC: 23:59:59Z on 30 November is still November.
  const { handler: winter } = setup("2026-11-30T23:59:59Z");
  const november = await getSlots(winter, "?month=2026-11");
  assert.equal(november.status, 200);
  await november.body?.cancel();
  const june = await getSlots(winter, "?month=2027-06");
  assert.equal(june.status, 400);
  assert.equal((await june.json()).error.hint, HINT_NOVEMBER);
});

test("GET /api/v1/booking/slots checks the month before it reads any calendar", async () => {
  let reads = 0;
  const busyCalendar: BusyCalendar = {
    read() {
      reads++;
      return Promise.reject(
        new CalendarUnavailableError("A busy calendar could not be read: HTTP 500"),
      );
    },
  };
  const { handler } = setup("2026-11-21T10:00:00Z", { busyCalendar });
  const response = await getSlots(handler, "?month=2026-13");
  assert.equal(response.status, 400);
  await response.body?.cancel();
  assert.equal(reads, 0);
});

// ---------------------------------------------------------------------------------------------
// Failures

test("GET /api/v1/booking/slots answers 503 no-backend when a calendar cannot be read", async () => {
  const busyCalendar: BusyCalendar = {
    read: () =>
      Promise.reject(new CalendarUnavailableError("A busy calendar could not be read: HTTP 500")),
  };
  const { handler } = setup("2026-11-21T10:00:00Z", { busyCalendar });
  const response = await getSlots(handler, "?month=2026-12");
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("Content-Type"), "application/json");
  assert.equal(response.headers.get("RateLimit-Policy"), '"read";q=120;w=60');
  assert.equal(response.headers.get("API-Version"), "1");
  assert.equal(response.headers.get("Retry-After"), null);
  assert.deepEqual(await response.json(), {
    ok: false,
    error: {
      code: "no-backend",
      message: "The studio's calendar is temporarily unavailable",
      hint: "Retry in a minute; nothing was reserved",
      docs: DOCS,
    },
  });
});

test("GET /api/v1/booking/slots answers 500 internal-error and logs any other calendar failure", async () => {
  const busyCalendar: BusyCalendar = {
    read: () => Promise.reject(new TypeError("secret detail")),
  };
  const { handler, logger } = setup("2026-11-21T10:00:00Z", { busyCalendar });
  const response = await getSlots(handler, "?month=2026-12");
  assert.equal(response.status, 500);
  const body: ErrorBody = await response.json();
  assert.equal(body.error.code, "internal-error");
  assert.equal(body.error.message, INTERNAL_ERROR_MESSAGE);
  assert.ok(!JSON.stringify(body).includes("secret detail"));
  assert.equal(logger.records.length, 1);
  assert.match(String(logger.records[0].fields?.error), /secret detail/);
});

test(
  "GET /api/v1/booking/slots still answers when the feed holds an event it cannot expand",
  {},
  async () => {
    const clock = createFixedClock("2026-11-21T10:00:00Z");
    const busyCalendar = createTextCalendar(clock, () =>
      buildCalendar(
        buildEvent("no-start", "SUMMARY:Broken"),
        buildEvent("good", "DTSTART:20261202T100000Z", "DTEND:20261202T103000Z"),
      ));
    const handler = createSampleHandler({ clock, busyCalendar, logger: createRecordingLogger() });
    const body = await readSlots(handler, "2026-12");
    assert.equal(body.slots["2026-12-02"][0].start, "2026-12-02T09:30:00+00:00");
    assert.equal(body.slots["2026-12-02"][1].start, "2026-12-02T10:30:00+00:00");
  },
);

test("GET /api/v1/booking/slots counts against the read quota and answers 429 past it", async () => {
  const { handler } = setup("2026-11-21T10:00:00Z", { rateLimits: { read: 2 } });
  for (const remaining of ["1", "0"]) {
    const response = await getSlots(handler, "?month=2026-12");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("RateLimit-Remaining"), remaining);
    await response.body?.cancel();
  }
  const limited = await getSlots(handler, "?month=2026-12");
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("RateLimit-Policy"), '"read";q=2;w=60');
  assert.ok(Number(limited.headers.get("Retry-After")) >= 1);
  assert.equal((await limited.json()).error.code, "rate-limited");
});
