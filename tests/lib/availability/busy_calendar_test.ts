import { test } from "node:test";
import assert from "node:assert/strict";
import type { BusyInterval } from "../../../lib/availability/availability.ts";
import {
  CalendarUnavailableError,
  createIcsCalendar,
  NO_BUSY_CALENDAR,
} from "../../../lib/availability/busy_calendar.ts";
import { expandCalendar, parseCalendar } from "../../../lib/availability/ics_events.ts";
import { createRecordingLogger } from "../../_support.ts";
import { buildCalendar, buildEvent, startIcsFeedServer } from "../../_ics_feed.ts";
import { createFixedClock } from "../../../testing.ts";

const LISBON = "Europe/Lisbon";

/** November 2026 to the end of 2027: every fixture below lies inside. */
const WIDE: BusyInterval = {
  startEpochMs: Date.UTC(2026, 10, 1),
  endEpochMs: Date.UTC(2028, 0, 1),
};

/** The span a listing of December 2026 reads (describeMonth: a day wider on each side). */
const DECEMBER: BusyInterval = {
  startEpochMs: Date.UTC(2026, 10, 30),
  endEpochMs: Date.UTC(2027, 0, 2),
};

/** Busy intervals as `[startIso, endIso]` pairs in UTC, sorted, for readable comparisons. */
function toIso(busy: readonly BusyInterval[]): Array<[string, string]> {
  return busy.map((interval): [string, string] => [
    new Date(interval.startEpochMs).toISOString().replace(".000", ""),
    new Date(interval.endEpochMs).toISOString().replace(".000", ""),
  ]).sort((a, b) => a[0].localeCompare(b[0]));
}

function expand(text: string, span: BusyInterval = WIDE): Array<[string, string]> {
  return toIso(expandCalendar(parseCalendar(text), span, LISBON));
}

/**
 * Europe/Berlin as Google writes it. Note: ical.js keeps VTIMEZONEs in one registry per process,
 * so America/New_York is never given a VTIMEZONE in these tests: it stays "TZID without VTIMEZONE".
 */
const BERLIN_VTIMEZONE = [
  "BEGIN:VTIMEZONE",
  "TZID:Europe/Berlin",
  "X-LIC-LOCATION:Europe/Berlin",
  "BEGIN:DAYLIGHT",
  "TZOFFSETFROM:+0100",
  "TZOFFSETTO:+0200",
  "TZNAME:CEST",
  "DTSTART:19700329T020000",
  "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
  "END:DAYLIGHT",
  "BEGIN:STANDARD",
  "TZOFFSETFROM:+0200",
  "TZOFFSETTO:+0100",
  "TZNAME:CET",
  "DTSTART:19701025T030000",
  "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
  "END:STANDARD",
  "END:VTIMEZONE",
];

/** A Windows zone name as Outlook writes it, defined only by its VTIMEZONE (UTC+03:00). */
const ARABIC_VTIMEZONE = [
  "BEGIN:VTIMEZONE",
  "TZID:Arabic Standard Time",
  "BEGIN:STANDARD",
  "DTSTART:16010101T000000",
  "TZOFFSETFROM:+0300",
  "TZOFFSETTO:+0300",
  "END:STANDARD",
  "END:VTIMEZONE",
];

// ---------------------------------------------------------------------------------------------
// Single events: UTC, floating, TZID with and without VTIMEZONE, all-day, TRANSP and STATUS

test("expandCalendar() places UTC, floating and TZID times at their instants, winter and summer", () => {
  const text = buildCalendar(
    BERLIN_VTIMEZONE,
    ARABIC_VTIMEZONE,
    buildEvent("utc", "DTSTART:20261202T100000Z", "DTEND:20261202T103000Z"),
    // Floating: the studio's wall clock.
    buildEvent("floating-winter", "DTSTART:20261203T100000", "DTEND:20261203T110000"),
    buildEvent("floating-summer", "DTSTART:20270414T100000", "DTEND:20270414T110000"),
    // A TZID with its VTIMEZONE.
    buildEvent(
      "berlin-winter",
      "DTSTART;TZID=Europe/Berlin:20261204T100000",
      "DTEND;TZID=Europe/Berlin:20261204T110000",
    ),
    buildEvent(
      "berlin-summer",
      "DTSTART;TZID=Europe/Berlin:20270415T100000",
      "DTEND;TZID=Europe/Berlin:20270415T110000",
    ),
    // A TZID without a VTIMEZONE: an IANA name is still placed correctly.
    buildEvent(
      "new-york-winter",
      "DTSTART;TZID=America/New_York:20261207T100000",
      "DTEND;TZID=America/New_York:20261207T110000",
    ),
    buildEvent(
      "new-york-summer",
      "DTSTART;TZID=America/New_York:20270416T100000",
      "DTEND;TZID=America/New_York:20270416T110000",
    ),
    // Start and end in different zones.
    buildEvent(
      "flight",
      "DTSTART;TZID=Europe/Lisbon:20261208T180000",
      "DTEND;TZID=America/New_York:20261208T210000",
    ),
    // A non-IANA name defined by the feed's VTIMEZONE.
    buildEvent(
      "outlook",
      "DTSTART;TZID=Arabic Standard Time:20261209T100000",
      "DTEND;TZID=Arabic Standard Time:20261209T110000",
    ),
    // DURATION instead of DTEND.
    buildEvent("duration", "DTSTART:20261210T100000Z", "DURATION:PT45M"),
  );
  assert.deepEqual(expand(text), [
    ["2026-12-02T10:00:00Z", "2026-12-02T10:30:00Z"],
    ["2026-12-03T10:00:00Z", "2026-12-03T11:00:00Z"],
    ["2026-12-04T09:00:00Z", "2026-12-04T10:00:00Z"],
    ["2026-12-07T15:00:00Z", "2026-12-07T16:00:00Z"],
    ["2026-12-08T18:00:00Z", "2026-12-09T02:00:00Z"],
    ["2026-12-09T07:00:00Z", "2026-12-09T08:00:00Z"],
    ["2026-12-10T10:00:00Z", "2026-12-10T10:45:00Z"],
    ["2027-04-14T09:00:00Z", "2027-04-14T10:00:00Z"],
    ["2027-04-15T08:00:00Z", "2027-04-15T09:00:00Z"],
    ["2027-04-16T14:00:00Z", "2027-04-16T15:00:00Z"],
  ]);
});

test("expandCalendar() places an unknown zone name without VTIMEZONE in the studio's zone", () => {
  const text = buildCalendar(
    buildEvent(
      "windows",
      "DTSTART;TZID=Romance Standard Time:20270414T100000",
      "DTEND;TZID=Romance Standard Time:20270414T110000",
    ),
  );
  // Documented fallback: the wall time is read in Europe/Lisbon (+01:00 in April).
  assert.deepEqual(expand(text), [["2027-04-14T09:00:00Z", "2027-04-14T10:00:00Z"]]);
});

test("expandCalendar() makes all-day events block their whole days in the studio's zone", () => {
  const text = buildCalendar(
    buildEvent("winter", "DTSTART;VALUE=DATE:20261209", "DTEND;VALUE=DATE:20261210"),
    buildEvent("summer", "DTSTART;VALUE=DATE:20270414", "DTEND;VALUE=DATE:20270415"),
    buildEvent("no-end", "DTSTART;VALUE=DATE:20261211"),
    // Friday to Sunday across the spring-forward night: 71 hours, not 72.
    buildEvent("weekend", "DTSTART;VALUE=DATE:20270326", "DTEND;VALUE=DATE:20270329"),
  );
  assert.deepEqual(expand(text), [
    ["2026-12-09T00:00:00Z", "2026-12-10T00:00:00Z"],
    ["2026-12-11T00:00:00Z", "2026-12-12T00:00:00Z"],
    ["2027-03-26T00:00:00Z", "2027-03-28T23:00:00Z"],
    ["2027-04-13T23:00:00Z", "2027-04-14T23:00:00Z"],
  ]);
});

test("expandCalendar() ignores TRANSP:TRANSPARENT and STATUS:CANCELLED events only", () => {
  const text = buildCalendar(
    buildEvent("free", "DTSTART:20261202T100000Z", "DTEND:20261202T110000Z", "TRANSP:TRANSPARENT"),
    buildEvent(
      "cancelled",
      "DTSTART:20261202T120000Z",
      "DTEND:20261202T130000Z",
      "STATUS:CANCELLED",
    ),
    buildEvent(
      "free-all-day",
      "DTSTART;VALUE=DATE:20261203",
      "DTEND;VALUE=DATE:20261204",
      "TRANSP:TRANSPARENT",
    ),
    buildEvent("opaque", "DTSTART:20261204T100000Z", "DTEND:20261204T110000Z", "TRANSP:OPAQUE"),
    buildEvent(
      "tentative",
      "DTSTART:20261204T120000Z",
      "DTEND:20261204T130000Z",
      "STATUS:TENTATIVE",
    ),
    buildEvent(
      "confirmed",
      "DTSTART:20261204T140000Z",
      "DTEND:20261204T150000Z",
      "STATUS:CONFIRMED",
    ),
    // A zero-length event takes no time (RFC 5545, 3.6.1).
    buildEvent("reminder", "DTSTART:20261205T100000Z"),
    // Not an event.
    [
      "BEGIN:VTODO",
      "UID:todo",
      "DTSTAMP:20261101T000000Z",
      "DTSTART:20261206T100000Z",
      "END:VTODO",
    ],
  );
  assert.deepEqual(expand(text), [
    ["2026-12-04T10:00:00Z", "2026-12-04T11:00:00Z"],
    ["2026-12-04T12:00:00Z", "2026-12-04T13:00:00Z"],
    ["2026-12-04T14:00:00Z", "2026-12-04T15:00:00Z"],
  ]);
});

test("expandCalendar() keeps the events that overlap the span, end exclusive", () => {
  const text = buildCalendar(
    buildEvent("before", "DTSTART:20261129T230000Z", "DTEND:20261130T000000Z"),
    buildEvent("across-start", "DTSTART:20261129T230000Z", "DTEND:20261130T000001Z"),
    buildEvent("inside", "DTSTART:20261215T100000Z", "DTEND:20261215T110000Z"),
    buildEvent("across-end", "DTSTART:20270101T235959Z", "DTEND:20270102T010000Z"),
    buildEvent("after", "DTSTART:20270102T000000Z", "DTEND:20270102T010000Z"),
  );
  assert.deepEqual(expand(text, DECEMBER), [
    ["2026-11-29T23:00:00Z", "2026-11-30T00:00:01Z"],
    ["2026-12-15T10:00:00Z", "2026-12-15T11:00:00Z"],
    ["2027-01-01T23:59:59Z", "2027-01-02T01:00:00Z"],
  ]);
});

test("expandCalendar() reads a time in the repeated hour as its first occurrence (RFC 5545, 3.3.5)", () => {
  const text = buildCalendar(
    buildEvent(
      "repeated",
      "DTSTART;TZID=Europe/Lisbon:20271031T013000",
      "DTEND;TZID=Europe/Lisbon:20271031T020000",
    ),
  );
  // 01:30+01:00 to 02:00+00:00: the end is after the second 01:xx hour.
  assert.deepEqual(expand(text), [["2027-10-31T00:30:00Z", "2027-10-31T02:00:00Z"]]);
});

test(
  "expandCalendar() reads a time in the skipped hour with the offset before the gap (RFC 5545, 3.3.5)",
  {},
  () => {
    const text = buildCalendar(
      buildEvent(
        "gap",
        "DTSTART;TZID=Europe/Lisbon:20270328T013000",
        "DTEND;TZID=Europe/Lisbon:20270328T033000",
      ),
    );
    // 01:30 does not exist on 2027-03-28: it is 01:30+00:00, i.e. 02:30+01:00.
    assert.deepEqual(expand(text), [["2027-03-28T01:30:00Z", "2027-03-28T02:30:00Z"]]);
  },
);

// ---------------------------------------------------------------------------------------------
// Recurring events: RRULE, EXDATE, RDATE, RECURRENCE-ID

test("expandCalendar() expands RRULE with EXDATE in a TZID with VTIMEZONE", () => {
  const text = buildCalendar(
    BERLIN_VTIMEZONE,
    buildEvent(
      "weekly",
      "DTSTART;TZID=Europe/Berlin:20261202T150000",
      "DTEND;TZID=Europe/Berlin:20261202T160000",
      "RRULE:FREQ=WEEKLY;COUNT=5",
      "EXDATE;TZID=Europe/Berlin:20261216T150000",
    ),
  );
  assert.deepEqual(expand(text), [
    ["2026-12-02T14:00:00Z", "2026-12-02T15:00:00Z"],
    ["2026-12-09T14:00:00Z", "2026-12-09T15:00:00Z"],
    ["2026-12-23T14:00:00Z", "2026-12-23T15:00:00Z"],
    ["2026-12-30T14:00:00Z", "2026-12-30T15:00:00Z"],
  ]);
});

test("expandCalendar() keeps a recurring event's wall time across DST, with and without VTIMEZONE", () => {
  const text = buildCalendar(
    BERLIN_VTIMEZONE,
    // Berlin springs forward on 2027-03-28.
    buildEvent(
      "berlin",
      "DTSTART;TZID=Europe/Berlin:20270317T100000",
      "DTEND;TZID=Europe/Berlin:20270317T103000",
      "RRULE:FREQ=WEEKLY;COUNT=3",
    ),
    // New York springs forward on 2027-03-14; no VTIMEZONE in the feed.
    buildEvent(
      "new-york",
      "DTSTART;TZID=America/New_York:20270303T100000",
      "DTEND;TZID=America/New_York:20270303T103000",
      "RRULE:FREQ=WEEKLY;COUNT=3",
    ),
    // Floating: Lisbon springs forward on 2027-03-28.
    buildEvent(
      "floating",
      "DTSTART:20270325T170000",
      "DTEND:20270325T173000",
      "RRULE:FREQ=WEEKLY;COUNT=2",
    ),
    // UTC stays UTC.
    buildEvent(
      "utc",
      "DTSTART:20271027T120000Z",
      "DTEND:20271027T123000Z",
      "RRULE:FREQ=WEEKLY;COUNT=2",
    ),
    // All-day weekly with an EXDATE of the same type.
    buildEvent(
      "all-day",
      "DTSTART;VALUE=DATE:20270324",
      "DTEND;VALUE=DATE:20270325",
      "RRULE:FREQ=WEEKLY;COUNT=3",
      "EXDATE;VALUE=DATE:20270331",
    ),
  );
  assert.deepEqual(expand(text), [
    ["2027-03-03T15:00:00Z", "2027-03-03T15:30:00Z"],
    ["2027-03-10T15:00:00Z", "2027-03-10T15:30:00Z"],
    ["2027-03-17T09:00:00Z", "2027-03-17T09:30:00Z"],
    ["2027-03-17T14:00:00Z", "2027-03-17T14:30:00Z"],
    ["2027-03-24T00:00:00Z", "2027-03-25T00:00:00Z"],
    ["2027-03-24T09:00:00Z", "2027-03-24T09:30:00Z"],
    ["2027-03-25T17:00:00Z", "2027-03-25T17:30:00Z"],
    ["2027-03-31T08:00:00Z", "2027-03-31T08:30:00Z"],
    ["2027-04-01T16:00:00Z", "2027-04-01T16:30:00Z"],
    ["2027-04-06T23:00:00Z", "2027-04-07T23:00:00Z"],
    ["2027-10-27T12:00:00Z", "2027-10-27T12:30:00Z"],
    ["2027-11-03T12:00:00Z", "2027-11-03T12:30:00Z"],
  ]);
});

test("expandCalendar() honours EXDATE in a TZID without VTIMEZONE, and BYDAY with UNTIL", () => {
  const text = buildCalendar(
    buildEvent(
      "new-york",
      "DTSTART;TZID=America/New_York:20261202T100000",
      "DTEND;TZID=America/New_York:20261202T110000",
      "RRULE:FREQ=WEEKLY;COUNT=3",
      "EXDATE;TZID=America/New_York:20261209T100000",
    ),
    buildEvent(
      "twice-a-week",
      "DTSTART:20261130T100000Z",
      "DTEND:20261130T103000Z",
      "RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20261209T100000Z",
    ),
  );
  assert.deepEqual(expand(text), [
    ["2026-11-30T10:00:00Z", "2026-11-30T10:30:00Z"],
    ["2026-12-02T10:00:00Z", "2026-12-02T10:30:00Z"],
    ["2026-12-02T15:00:00Z", "2026-12-02T16:00:00Z"],
    ["2026-12-07T10:00:00Z", "2026-12-07T10:30:00Z"],
    ["2026-12-09T10:00:00Z", "2026-12-09T10:30:00Z"],
    ["2026-12-16T15:00:00Z", "2026-12-16T16:00:00Z"],
  ]);
});

test("expandCalendar() adds RDATE instances to a rule, in UTC and in a TZID", () => {
  const text = buildCalendar(
    buildEvent(
      "rule-and-dates",
      "DTSTART;TZID=America/New_York:20261203T090000",
      "DTEND;TZID=America/New_York:20261203T093000",
      "RRULE:FREQ=DAILY;COUNT=1",
      "RDATE;TZID=America/New_York:20261217T090000",
      "RDATE:20261218T100000Z,20261219T100000Z",
    ),
  );
  assert.deepEqual(expand(text), [
    ["2026-12-03T14:00:00Z", "2026-12-03T14:30:00Z"],
    ["2026-12-17T14:00:00Z", "2026-12-17T14:30:00Z"],
    ["2026-12-18T10:00:00Z", "2026-12-18T10:30:00Z"],
    ["2026-12-19T10:00:00Z", "2026-12-19T10:30:00Z"],
  ]);
});

test(
  "expandCalendar() keeps the DTSTART instance of an event with RDATE and no RRULE",
  {},
  () => {
    const text = buildCalendar(
      buildEvent(
        "dates-only",
        "DTSTART:20261202T100000Z",
        "DTEND:20261202T110000Z",
        "RDATE:20261215T140000Z,20261216T140000Z",
      ),
    );
    assert.deepEqual(expand(text), [
      ["2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z"],
      ["2026-12-15T14:00:00Z", "2026-12-15T15:00:00Z"],
      ["2026-12-16T14:00:00Z", "2026-12-16T15:00:00Z"],
    ]);
  },
);

test(
  "expandCalendar() keeps a DTSTART instance that the RRULE does not match",
  {},
  () => {
    const text = buildCalendar(
      buildEvent(
        "starts-wednesday",
        "DTSTART:20261202T100000Z",
        "DTEND:20261202T110000Z",
        "RRULE:FREQ=WEEKLY;BYDAY=TH;COUNT=2",
      ),
    );
    assert.deepEqual(expand(text), [
      ["2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z"],
      ["2026-12-03T10:00:00Z", "2026-12-03T11:00:00Z"],
    ]);
  },
);

test(
  "expandCalendar() adds an RDATE;VALUE=PERIOD instance for its period",
  {},
  () => {
    const text = buildCalendar(
      buildEvent(
        "period",
        "DTSTART:20261202T100000Z",
        "DTEND:20261202T110000Z",
        "RDATE;VALUE=PERIOD:20261215T140000Z/20261215T170000Z",
      ),
    );
    assert.deepEqual(expand(text), [
      ["2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z"],
      ["2026-12-15T14:00:00Z", "2026-12-15T17:00:00Z"],
    ]);
  },
);

test("expandCalendar() applies overridden instances (RECURRENCE-ID), before or after the master", () => {
  const master = [
    "DTSTART;TZID=Europe/Berlin:20261202T110000",
    "DTEND;TZID=Europe/Berlin:20261202T120000",
    "RRULE:FREQ=WEEKLY;COUNT=4",
  ];
  const overrides = [
    // 9 December moved to 15:00 and made 2 h long.
    buildEvent(
      "series",
      "RECURRENCE-ID;TZID=Europe/Berlin:20261209T110000",
      "DTSTART;TZID=Europe/Berlin:20261209T150000",
      "DTEND;TZID=Europe/Berlin:20261209T170000",
    ),
    // 16 December cancelled.
    buildEvent(
      "series",
      "RECURRENCE-ID;TZID=Europe/Berlin:20261216T110000",
      "DTSTART;TZID=Europe/Berlin:20261216T110000",
      "DTEND;TZID=Europe/Berlin:20261216T120000",
      "STATUS:CANCELLED",
    ),
    // 23 December shown as free.
    buildEvent(
      "series",
      "RECURRENCE-ID;TZID=Europe/Berlin:20261223T110000",
      "DTSTART;TZID=Europe/Berlin:20261223T110000",
      "DTEND;TZID=Europe/Berlin:20261223T120000",
      "TRANSP:TRANSPARENT",
    ),
  ];
  const expected: Array<[string, string]> = [
    ["2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z"],
    ["2026-12-09T14:00:00Z", "2026-12-09T16:00:00Z"],
  ];
  const after = buildCalendar(BERLIN_VTIMEZONE, buildEvent("series", ...master), ...overrides);
  assert.deepEqual(expand(after), expected);
  const before = buildCalendar(BERLIN_VTIMEZONE, ...overrides, buildEvent("series", ...master));
  assert.deepEqual(expand(before), expected);
});

test("expandCalendar() applies a RECURRENCE-ID in a TZID without VTIMEZONE and in UTC with one", () => {
  const text = buildCalendar(
    BERLIN_VTIMEZONE,
    buildEvent(
      "new-york",
      "DTSTART;TZID=America/New_York:20261202T100000",
      "DTEND;TZID=America/New_York:20261202T110000",
      "RRULE:FREQ=WEEKLY;COUNT=2",
    ),
    buildEvent(
      "new-york",
      "RECURRENCE-ID;TZID=America/New_York:20261209T100000",
      "DTSTART;TZID=America/New_York:20261209T130000",
      "DTEND;TZID=America/New_York:20261209T140000",
    ),
    buildEvent(
      "berlin",
      "DTSTART;TZID=Europe/Berlin:20261203T100000",
      "DTEND;TZID=Europe/Berlin:20261203T110000",
      "RRULE:FREQ=WEEKLY;COUNT=2",
    ),
    buildEvent(
      "berlin",
      "RECURRENCE-ID:20261210T090000Z",
      "DTSTART;TZID=Europe/Berlin:20261210T140000",
      "DTEND;TZID=Europe/Berlin:20261210T150000",
    ),
  );
  assert.deepEqual(expand(text), [
    ["2026-12-02T15:00:00Z", "2026-12-02T16:00:00Z"],
    ["2026-12-03T09:00:00Z", "2026-12-03T10:00:00Z"],
    ["2026-12-09T18:00:00Z", "2026-12-09T19:00:00Z"],
    ["2026-12-10T13:00:00Z", "2026-12-10T14:00:00Z"],
  ]);
});

test(
  "expandCalendar() matches a UTC RECURRENCE-ID to a TZID series without VTIMEZONE",
  {},
  () => {
    const text = buildCalendar(
      buildEvent(
        "series",
        "DTSTART;TZID=America/New_York:20261202T100000",
        "DTEND;TZID=America/New_York:20261202T110000",
        "RRULE:FREQ=WEEKLY;COUNT=2",
      ),
      buildEvent(
        "series",
        "RECURRENCE-ID:20261209T150000Z",
        "DTSTART;TZID=America/New_York:20261209T130000",
        "DTEND;TZID=America/New_York:20261209T140000",
      ),
    );
    assert.deepEqual(expand(text), [
      ["2026-12-02T15:00:00Z", "2026-12-02T16:00:00Z"],
      ["2026-12-09T18:00:00Z", "2026-12-09T19:00:00Z"],
    ]);
  },
);

test(
  "expandCalendar() honours a UTC EXDATE of a TZID series without VTIMEZONE",
  {},
  () => {
    const text = buildCalendar(
      buildEvent(
        "series",
        "DTSTART;TZID=America/New_York:20261202T100000",
        "DTEND;TZID=America/New_York:20261202T110000",
        "RRULE:FREQ=WEEKLY;COUNT=2",
        "EXDATE:20261209T150000Z",
      ),
    );
    assert.deepEqual(expand(text), [["2026-12-02T15:00:00Z", "2026-12-02T16:00:00Z"]]);
  },
);

test("expandCalendar() blocks with an orphan override and skips cancelled or free series", () => {
  const text = buildCalendar(
    // An invitation to one instance of someone else's series: no master in the feed.
    buildEvent(
      "orphan",
      "RECURRENCE-ID:20261214T100000Z",
      "DTSTART:20261214T100000Z",
      "DTEND:20261214T110000Z",
    ),
    buildEvent(
      "cancelled-series",
      "DTSTART:20261202T080000Z",
      "DTEND:20261202T090000Z",
      "RRULE:FREQ=DAILY;COUNT=5",
      "STATUS:CANCELLED",
    ),
    buildEvent(
      "free-series",
      "DTSTART:20261202T120000Z",
      "DTEND:20261202T130000Z",
      "RRULE:FREQ=DAILY;COUNT=5",
      "TRANSP:TRANSPARENT",
    ),
  );
  assert.deepEqual(expand(text), [["2026-12-14T10:00:00Z", "2026-12-14T11:00:00Z"]]);
});

test(
  "expandCalendar() blocks an instance marked busy in a series shown as free",
  {},
  () => {
    const text = buildCalendar(
      buildEvent(
        "series",
        "DTSTART:20261202T120000Z",
        "DTEND:20261202T130000Z",
        "RRULE:FREQ=WEEKLY;COUNT=2",
        "TRANSP:TRANSPARENT",
      ),
      buildEvent(
        "series",
        "RECURRENCE-ID:20261209T120000Z",
        "DTSTART:20261209T120000Z",
        "DTEND:20261209T130000Z",
        "TRANSP:OPAQUE",
      ),
    );
    assert.deepEqual(expand(text), [["2026-12-09T12:00:00Z", "2026-12-09T13:00:00Z"]]);
  },
);

test("expandCalendar() expands a weekly series that began years before the span", () => {
  const text = buildCalendar(
    buildEvent(
      "since-2005",
      "DTSTART:20050105T100000Z",
      "DTEND:20050105T110000Z",
      "RRULE:FREQ=WEEKLY",
    ),
  );
  // 2005-01-05 was a Wednesday.
  assert.deepEqual(expand(text, DECEMBER), [
    ["2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z"],
    ["2026-12-09T10:00:00Z", "2026-12-09T11:00:00Z"],
    ["2026-12-16T10:00:00Z", "2026-12-16T11:00:00Z"],
    ["2026-12-23T10:00:00Z", "2026-12-23T11:00:00Z"],
    ["2026-12-30T10:00:00Z", "2026-12-30T11:00:00Z"],
  ]);
});

test(
  "expandCalendar() expands a daily series that began more than 5,000 days before the span",
  {},
  () => {
    const text = buildCalendar(
      buildEvent(
        "since-2012",
        "DTSTART:20120102T100000Z",
        "DTEND:20120102T103000Z",
        "RRULE:FREQ=DAILY",
      ),
    );
    assert.equal(expand(text, DECEMBER).length, 33);
  },
);

// ---------------------------------------------------------------------------------------------
// parseCalendar on what is not iCalendar, and malformed events

test("parseCalendar() throws on text that is not iCalendar", () => {
  for (
    const text of [
      "",
      "hello",
      "<!doctype html><html><body>Sign in</body></html>",
      '{"items":[]}',
      "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Ana\r\nEND:VCARD\r\n",
      buildCalendar(buildEvent("x", "DTSTART:20261202T100000Z", "RRULE:FREQ=FORTNIGHTLY")),
    ]
  ) {
    assert.throws(() => parseCalendar(text), Error, JSON.stringify(text.slice(0, 30)));
  }
});

test("parseCalendar() reads LF-only line endings and folded lines", () => {
  const text = buildCalendar(
    buildEvent(
      "folded",
      "DTSTART:20261202T100000Z",
      "DTEND:20261202T110000Z",
      "SUMMARY:A long summary that a calendar folded onto",
      " a second line",
    ),
  ).replaceAll("\r\n", "\n");
  assert.deepEqual(expand(text), [["2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z"]]);
});

test(
  "expandCalendar() skips a malformed event and keeps the others",
  {},
  () => {
    const text = buildCalendar(
      buildEvent("no-start", "SUMMARY:Broken"),
      buildEvent("bad-date", "DTSTART:2026-12-03"),
      buildEvent("good", "DTSTART:20261202T100000Z", "DTEND:20261202T110000Z"),
    );
    assert.deepEqual(expand(text), [["2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z"]]);
  },
);

// ---------------------------------------------------------------------------------------------
// createIcsCalendar over a real loopback HTTP server

const ONE_EVENT = buildCalendar(
  buildEvent("one", "DTSTART:20261202T100000Z", "DTEND:20261202T110000Z"),
);
const TWO_EVENTS = buildCalendar(
  buildEvent("one", "DTSTART:20261202T100000Z", "DTEND:20261202T110000Z"),
  buildEvent("two", "DTSTART:20261203T100000Z", "DTEND:20261203T110000Z"),
);

function createCalendarFor(
  urls: string[],
  options: { timeoutMs?: number; maxBytes?: number } = {},
) {
  const clock = createFixedClock("2026-11-21T10:00:00Z");
  const logger = createRecordingLogger();
  const calendar = createIcsCalendar({ urls, defaultTimeZone: LISBON, clock, logger, ...options });
  return { clock, logger, calendar };
}

async function assertUnavailable(
  promise: Promise<unknown>,
  message: RegExp,
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof CalendarUnavailableError, String(error));
    assert.match(error.message, message);
    return true;
  });
}

test("NO_BUSY_CALENDAR reads no busy time", async () => {
  assert.deepEqual(await NO_BUSY_CALENDAR.read(DECEMBER, { maxAgeSeconds: 0 }), []);
});

test("createIcsCalendar() fetches a feed with Accept: text/calendar and reads its events", async () => {
  const feed = await startIcsFeedServer(TWO_EVENTS);
  try {
    const { calendar } = createCalendarFor([feed.url]);
    assert.deepEqual(toIso(await calendar.read(DECEMBER, { maxAgeSeconds: 30 })), [
      ["2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z"],
      ["2026-12-03T10:00:00Z", "2026-12-03T11:00:00Z"],
    ]);
    assert.equal(feed.requests.length, 1);
    assert.equal(feed.requests[0].method, "GET");
    assert.equal(feed.requests[0].headers.accept, "text/calendar");
    // The same copy serves another span.
    const span = { startEpochMs: Date.UTC(2026, 11, 3), endEpochMs: Date.UTC(2026, 11, 4) };
    assert.deepEqual(toIso(await calendar.read(span, { maxAgeSeconds: 30 })), [
      ["2026-12-03T10:00:00Z", "2026-12-03T11:00:00Z"],
    ]);
    assert.equal(feed.requests.length, 1);
  } finally {
    await feed.stop();
  }
});

test("createIcsCalendar() asks again with the copy's ETag: a 304 keeps the parsed copy and its busy time, a change is read at once", async () => {
  const feed = await startIcsFeedServer(ONE_EVENT);
  try {
    const { clock, calendar } = createCalendarFor([feed.url]);
    const first = await calendar.read(DECEMBER, { maxAgeSeconds: 0 });
    clock.advance({ seconds: 1 });
    const again = await calendar.read(DECEMBER, { maxAgeSeconds: 0 });
    assert.equal(feed.requests.length, 2);
    assert.ok(feed.requests[1].headers["if-none-match"], "the second read is conditional");
    assert.equal(again, first, "304: the same busy time, not parsed or expanded again");
    feed.setBody(TWO_EVENTS);
    clock.advance({ seconds: 1 });
    assert.equal((await calendar.read(DECEMBER, { maxAgeSeconds: 0 })).length, 2, "changed");
    assert.equal(feed.requests.length, 3);
  } finally {
    await feed.stop();
  }
});

test("createIcsCalendar() reuses a copy up to maxAgeSeconds old and fetches again after", async () => {
  const feed = await startIcsFeedServer(ONE_EVENT);
  try {
    const { clock, calendar } = createCalendarFor([feed.url]);
    assert.equal((await calendar.read(DECEMBER, { maxAgeSeconds: 30 })).length, 1);
    feed.setBody(TWO_EVENTS);
    clock.advance({ seconds: 30 });
    assert.equal((await calendar.read(DECEMBER, { maxAgeSeconds: 30 })).length, 1, "30 s: reused");
    assert.equal(feed.requests.length, 1);
    clock.advance({ seconds: 1 });
    assert.equal((await calendar.read(DECEMBER, { maxAgeSeconds: 30 })).length, 2, "31 s: fetched");
    assert.equal(feed.requests.length, 2);
    // A booking's check (maxAgeSeconds 0) fetches once any time has passed.
    feed.setBody(ONE_EVENT);
    clock.advance({ seconds: 1 });
    assert.equal((await calendar.read(DECEMBER, { maxAgeSeconds: 0 })).length, 1);
    assert.equal(feed.requests.length, 3);
  } finally {
    await feed.stop();
  }
});

test("createIcsCalendar() shares one fetch between concurrent reads", async () => {
  const feed = await startIcsFeedServer();
  feed.setResponder((_request, response) => {
    setTimeout(() => {
      response.writeHead(200, { "Content-Type": "text/calendar" });
      response.end(ONE_EVENT);
    }, 50);
  });
  try {
    const { calendar } = createCalendarFor([feed.url]);
    const reads = await Promise.all(
      [1, 2, 3].map(() => calendar.read(DECEMBER, { maxAgeSeconds: 30 })),
    );
    for (const busy of reads) assert.equal(busy.length, 1);
    assert.equal(feed.requests.length, 1);
  } finally {
    await feed.stop();
  }
});

test("createIcsCalendar() uses a copy young enough when the feed fails, and only then", async () => {
  const feed = await startIcsFeedServer(ONE_EVENT);
  try {
    const { clock, logger, calendar } = createCalendarFor([feed.url]);
    await calendar.read(DECEMBER, { maxAgeSeconds: 30 });
    await feed.stop();
    clock.advance({ seconds: 20 });
    assert.equal((await calendar.read(DECEMBER, { maxAgeSeconds: 30 })).length, 1);
    clock.advance({ seconds: 11 });
    await assertUnavailable(calendar.read(DECEMBER, { maxAgeSeconds: 30 }), /could not be read/);
    // A reader that accepts an older copy still gets it.
    assert.equal((await calendar.read(DECEMBER, { maxAgeSeconds: 3600 })).length, 1);
    assert.equal(logger.records.length, 1);
    assert.equal(logger.records[0].level, "warn");
  } finally {
    await feed.stop();
  }
});

test("createIcsCalendar() fails with CalendarUnavailableError on HTTP 500 and 404", async () => {
  const feed = await startIcsFeedServer();
  let status = 500;
  feed.setResponder((_request, response) => {
    response.writeHead(status, { "Content-Type": "text/html" });
    response.end("<h1>Server error</h1>");
  });
  try {
    const { calendar } = createCalendarFor([feed.url]);
    await assertUnavailable(calendar.read(DECEMBER, { maxAgeSeconds: 30 }), /: HTTP 500$/);
    status = 404;
    await assertUnavailable(calendar.read(DECEMBER, { maxAgeSeconds: 30 }), /: HTTP 404$/);
    // The failures were not cached: a working feed is read at once.
    feed.setBody(ONE_EVENT);
    assert.equal((await calendar.read(DECEMBER, { maxAgeSeconds: 30 })).length, 1);
  } finally {
    await feed.stop();
  }
});

test("createIcsCalendar() fails on a body that is not iCalendar", async () => {
  const feed = await startIcsFeedServer();
  try {
    const { calendar } = createCalendarFor([feed.url]);
    for (const body of ["<!doctype html><title>Sign in</title>", "", '{"error":"gone"}']) {
      feed.setResponder((_request, response) => {
        response.writeHead(200, { "Content-Type": "text/html" });
        response.end(body);
      });
      await assertUnavailable(calendar.read(DECEMBER, { maxAgeSeconds: 0 }), /could not be read/);
    }
  } finally {
    await feed.stop();
  }
});

test("createIcsCalendar() gives up after timeoutMs, before headers or in the middle of the body", async () => {
  const feed = await startIcsFeedServer();
  try {
    const { calendar } = createCalendarFor([feed.url], { timeoutMs: 200 });
    feed.setResponder(() => {/* never answers */});
    let started = performance.now();
    await assertUnavailable(calendar.read(DECEMBER, { maxAgeSeconds: 0 }), /could not be read/);
    assert.ok(performance.now() - started < 2000, "no headers: gave up in time");
    feed.setResponder((_request, response) => {
      response.writeHead(200, { "Content-Type": "text/calendar" });
      response.write(ONE_EVENT.slice(0, 40)); // and never ends
    });
    started = performance.now();
    await assertUnavailable(calendar.read(DECEMBER, { maxAgeSeconds: 0 }), /could not be read/);
    assert.ok(performance.now() - started < 2000, "stalled body: gave up in time");
  } finally {
    await feed.stop();
  }
});

test("createIcsCalendar() refuses a feed larger than maxBytes, declared or streamed", async () => {
  const feed = await startIcsFeedServer();
  const size = new TextEncoder().encode(ONE_EVENT).byteLength;
  try {
    const { clock, calendar } = createCalendarFor([feed.url], { maxBytes: size });
    // Exactly maxBytes is accepted.
    feed.setBody(ONE_EVENT);
    assert.equal((await calendar.read(DECEMBER, { maxAgeSeconds: 0 })).length, 1);
    // One byte more, declared in Content-Length. (A copy fetched at this very instant would
    // still count as fresh for maxAgeSeconds 0, so the clock moves before each read.)
    feed.setBody(ONE_EVENT + " ");
    clock.advance({ seconds: 1 });
    await assertUnavailable(
      calendar.read(DECEMBER, { maxAgeSeconds: 0 }),
      new RegExp(`Feed larger than ${size} bytes`),
    );
    // Streamed in chunks without Content-Length.
    feed.setResponder((_request, response) => {
      response.writeHead(200, { "Content-Type": "text/calendar" });
      response.write(ONE_EVENT);
      response.end("X-PADDING:" + "x".repeat(size));
    });
    clock.advance({ seconds: 1 });
    await assertUnavailable(
      calendar.read(DECEMBER, { maxAgeSeconds: 0 }),
      new RegExp(`Feed larger than ${size} bytes`),
    );
  } finally {
    await feed.stop();
  }
});

test("createIcsCalendar() follows a redirect to the feed", async () => {
  const feed = await startIcsFeedServer();
  feed.setResponder((request, response) => {
    if (request.url?.endsWith("/basic.ics")) {
      response.writeHead(302, { Location: "/moved.ics" });
      response.end();
    } else {
      response.writeHead(200, { "Content-Type": "text/calendar" });
      response.end(ONE_EVENT);
    }
  });
  try {
    const { calendar } = createCalendarFor([feed.url]);
    assert.equal((await calendar.read(DECEMBER, { maxAgeSeconds: 0 })).length, 1);
    assert.equal(feed.requests.length, 2);
  } finally {
    await feed.stop();
  }
});

test("createIcsCalendar() joins several feeds and fails when any one cannot be read", async () => {
  const first = await startIcsFeedServer(ONE_EVENT);
  const second = await startIcsFeedServer(
    buildCalendar(buildEvent("other", "DTSTART:20261204T100000Z", "DTEND:20261204T110000Z")),
  );
  try {
    const { clock, logger, calendar } = createCalendarFor([first.url, second.url]);
    assert.deepEqual(toIso(await calendar.read(DECEMBER, { maxAgeSeconds: 30 })), [
      ["2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z"],
      ["2026-12-04T10:00:00Z", "2026-12-04T11:00:00Z"],
    ]);
    await second.stop();
    clock.advance({ seconds: 31 });
    await assertUnavailable(calendar.read(DECEMBER, { maxAgeSeconds: 30 }), /could not be read/);
    // The log names the feed's host, never its secret path.
    assert.equal(logger.records.length, 1);
    const origin = new URL(second.url).origin;
    assert.equal(logger.records[0].fields?.url, `${origin}/…`);
    assert.ok(!JSON.stringify(logger.records).includes("private-5f0c1e2d"));
  } finally {
    await first.stop();
    await second.stop();
  }
});
