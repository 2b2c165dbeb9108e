import { test } from "node:test";
import assert from "node:assert/strict";
import { WEEKDAY_TIMES } from "../../_support.ts";
import fc from "fast-check";
import {
  buildCandidateSlots,
  type BusyInterval,
  type CandidateSlot,
  describeMonth,
  filterAvailableSlots,
  mergeIntervals,
  overlapsAny,
} from "../../../lib/availability/availability.ts";
import { type ScheduleSettings, WEEKDAYS } from "../../../lib/availability/schedule.ts";
import { readSchedule } from "../../../lib/availability/read_schedule.ts";
import { createHolidayCalendar } from "../../../lib/availability/holidays.ts";
import schedule from "../../fixtures/studios/sample/schedule.json" with { type: "json" };
import { SAMPLE_HOLIDAYS, SAMPLE_SCHEDULE } from "../../_fixture_studio.ts";

const LISBON = "Europe/Lisbon";
const MINUTE_MS = 60_000;

const NO_HOURS: ScheduleSettings["weeklyHours"] = {
  monday: [],
  tuesday: [],
  wednesday: [],
  thursday: [],
  friday: [],
  saturday: [],
  sunday: [],
};

/** The sample schedule with some settings replaced, checked as a studio's schedule.json is. */
function scheduleWith(overrides: Partial<ScheduleSettings>): ScheduleSettings {
  return readSchedule({ ...SAMPLE_SCHEDULE, ...overrides });
}

/** Every day open `hours` (wall clock), no holidays or closed dates, no notice. */
function everyDay(
  hours: ScheduleSettings["weeklyHours"]["monday"],
  overrides: Partial<ScheduleSettings> = {},
): ScheduleSettings {
  return scheduleWith({
    weeklyHours: {
      monday: hours,
      tuesday: hours,
      wednesday: hours,
      thursday: hours,
      friday: hours,
      saturday: hours,
      sunday: hours,
    },
    closedDates: [],
    closedOnPublicHolidays: false,
    minimumNoticeHours: 0,
    ...overrides,
  });
}

/** The studio's holiday table, as the handler has it: the years these tests list are in it. */
const HOLIDAYS = createHolidayCalendar(SAMPLE_HOLIDAYS).calendar;

function candidatesOn(settings: ScheduleSettings, first: string, last = first): CandidateSlot[] {
  return buildCandidateSlots(
    settings,
    Temporal.PlainDate.from(first),
    Temporal.PlainDate.from(last),
    HOLIDAYS,
  );
}

function startsOn(settings: ScheduleSettings, date: string): string[] {
  return candidatesOn(settings, date).map((slot) => slot.start);
}

function toMs(iso: string): number {
  return Temporal.Instant.from(iso).epochMilliseconds;
}

function interval(start: string, end: string): BusyInterval {
  return { startEpochMs: toMs(start), endEpochMs: toMs(end) };
}

/** The available starts on `first`..`last` at `now`, with calendar busy time and bookings. */
function availableStarts(
  settings: ScheduleSettings,
  options: {
    now: string;
    first: string;
    last?: string;
    busy?: BusyInterval[];
    bookings?: BusyInterval[];
  },
): string[] {
  return filterAvailableSlots(candidatesOn(settings, options.first, options.last), {
    settings,
    now: Temporal.Instant.from(options.now),
    busy: options.busy ?? [],
    bookings: options.bookings ?? [],
  }).map((slot) => slot.start);
}

/** Wall-clock starts `HH:MM` with one offset, on one date. */
function wallStarts(date: string, offset: string, times: readonly string[]): string[] {
  return times.map((time) => `${date}T${time}:00${offset}`);
}

// ---------------------------------------------------------------------------------------------
// readSchedule

test("readSchedule() reads the sample studio's schedule.json unchanged", () => {
  assert.deepEqual(SAMPLE_SCHEDULE, schedule);
  assert.equal(SAMPLE_SCHEDULE.timeZone, LISBON);
  assert.equal(SAMPLE_SCHEDULE.meetingMinutes, 30);
  assert.equal(SAMPLE_SCHEDULE.gridMinutes, 30);
  assert.equal(SAMPLE_SCHEDULE.bufferBeforeMinutes, 0);
  assert.equal(SAMPLE_SCHEDULE.bufferAfterMinutes, 0);
  assert.equal(SAMPLE_SCHEDULE.minimumNoticeHours, 12);
  assert.equal(SAMPLE_SCHEDULE.horizonDays, 183);
  assert.equal(SAMPLE_SCHEDULE.maxMeetingsPerDay, null);
  assert.deepEqual(SAMPLE_SCHEDULE.weeklyHours.monday, [["09:30", "12:30"], ["14:00", "18:00"]]);
  assert.deepEqual(SAMPLE_SCHEDULE.weeklyHours.saturday, []);
  assert.deepEqual(SAMPLE_SCHEDULE.weeklyHours.sunday, []);
  assert.deepEqual(SAMPLE_SCHEDULE.closedDates, ["2026-12-24", "2026-12-31"]);
  assert.equal(SAMPLE_SCHEDULE.closedOnPublicHolidays, true);
  assert.equal(SAMPLE_SCHEDULE.holidayCountry, "PT");
});

test("readSchedule() accepts 24:00 as a closing time", () => {
  const settings = everyDay([["23:00", "24:00"]]);
  assert.deepEqual(startsOn(settings, "2026-12-02"), [
    "2026-12-02T23:00:00+00:00",
    "2026-12-02T23:30:00+00:00",
  ]);
});

test("readSchedule() rejects invalid settings with a message naming the setting", () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ timeZone: "Europe/Atlantis" }, /"timeZone": "Europe\/Atlantis" is unknown/],
    [{ meetingMinutes: 4 }, /"meetingMinutes"/],
    [{ gridMinutes: 2.5 }, /"gridMinutes"/],
    [{ bufferBeforeMinutes: -5 }, /"bufferBeforeMinutes"/],
    [{ minimumNoticeHours: -1 }, /"minimumNoticeHours"/],
    [{ horizonDays: 0 }, /"horizonDays"/],
    [{ maxMeetingsPerDay: 0 }, /"maxMeetingsPerDay"/],
    [{ holidayCountry: "PRT" }, /"holidayCountry"/],
    [{ closedDates: ["24/12/2026"] }, /"closedDates\.0"/],
    [{ weeklyHours: { ...NO_HOURS, monday: [["9:30", "12:30"]] } }, /"weeklyHours\.monday/],
    [{ weeklyHours: { ...NO_HOURS, monday: [["09:30", "24:30"]] } }, /"weeklyHours\.monday/],
    [
      { weeklyHours: { ...NO_HOURS, friday: [["14:00", "14:00"]] } },
      /"weeklyHours\.friday": 14:00–14:00 does not end after it starts/,
    ],
    [
      { weeklyHours: { ...NO_HOURS, friday: [["18:00", "14:00"]] } },
      /"weeklyHours\.friday": 18:00–14:00 does not end after it starts/,
    ],
  ];
  for (const [overrides, message] of cases) {
    assert.throws(
      () => readSchedule({ ...SAMPLE_SCHEDULE, ...overrides }),
      (error: unknown) => error instanceof TypeError && message.test(error.message),
      JSON.stringify(overrides),
    );
  }
  const { timeZone: _, ...withoutZone } = SAMPLE_SCHEDULE;
  assert.throws(() => readSchedule(withoutZone), /"timeZone"/);
});

test(
  "readSchedule() rejects overlapping opening intervals on one day",
  () => {
    assert.throws(
      () =>
        readSchedule({
          ...SAMPLE_SCHEDULE,
          weeklyHours: { ...NO_HOURS, monday: [["09:00", "12:00"], ["11:00", "13:00"]] },
        }),
      /"weeklyHours\.monday"/,
    );
  },
);

test(
  "readSchedule() rejects a closed date that is not a calendar date",
  () => {
    assert.throws(
      () => readSchedule({ ...SAMPLE_SCHEDULE, closedDates: ["2026-02-30"] }),
      /"closedDates\.0"/,
    );
  },
);

// ---------------------------------------------------------------------------------------------
// buildCandidateSlots: winter, summer, DST days, month boundaries, holidays

test("buildCandidateSlots() lists a winter weekday at +00:00 on the 30-minute grid", () => {
  const slots = candidatesOn(SAMPLE_SCHEDULE, "2026-12-02");
  assert.deepEqual(
    slots.map((slot) => slot.start),
    wallStarts("2026-12-02", "+00:00", WEEKDAY_TIMES),
  );
  for (const slot of slots) {
    assert.equal(slot.date, "2026-12-02");
    assert.equal(slot.startEpochMs, Date.parse(slot.start));
    assert.equal(slot.endEpochMs - slot.startEpochMs, 30 * MINUTE_MS);
  }
  // Lunch: 12:30 would end at 13:00, after the morning closes.
  assert.ok(!slots.some((slot) => slot.start.includes("T12:30")));
});

test("buildCandidateSlots() lists a summer weekday at +01:00", () => {
  const slots = candidatesOn(SAMPLE_SCHEDULE, "2027-04-14");
  assert.deepEqual(
    slots.map((slot) => slot.start),
    wallStarts("2027-04-14", "+01:00", WEEKDAY_TIMES),
  );
  assert.equal(slots[0].startEpochMs, Date.UTC(2027, 3, 14, 8, 30));
});

test("buildCandidateSlots() gives no slots on weekends", () => {
  assert.deepEqual(candidatesOn(SAMPLE_SCHEDULE, "2026-12-05", "2026-12-06"), []);
});

test("buildCandidateSlots() keeps the default schedule's DST Sundays closed and shifts the offset across them", () => {
  // 2026-03-29 and 2027-03-28: 01:00 → 02:00; 2026-10-25 and 2027-10-31: 02:00 → 01:00.
  const cases: Array<[before: string, beforeOffset: string, after: string, afterOffset: string]> = [
    ["2026-03-27", "+00:00", "2026-03-30", "+01:00"],
    ["2027-03-25", "+00:00", "2027-03-29", "+01:00"], // Friday 2027-03-26 is Good Friday.
    ["2026-10-23", "+01:00", "2026-10-26", "+00:00"],
    ["2027-10-29", "+01:00", "2027-11-02", "+00:00"], // Monday 2027-11-01 is All Saints' Day.
  ];
  for (const [before, beforeOffset, after, afterOffset] of cases) {
    const slots = candidatesOn(SAMPLE_SCHEDULE, before, after);
    const dates = [...new Set(slots.map((slot) => slot.date))];
    assert.deepEqual(dates, [before, after], `${before}..${after}`);
    assert.deepEqual(
      slots.map((slot) => slot.start),
      [
        ...wallStarts(before, beforeOffset, WEEKDAY_TIMES),
        ...wallStarts(after, afterOffset, WEEKDAY_TIMES),
      ],
    );
  }
});

test("buildCandidateSlots() gives every slot of 2026 and 2027 the zone's offset at its instant", () => {
  const slots = candidatesOn(SAMPLE_SCHEDULE, "2026-01-01", "2027-12-31");
  const openDays = new Set(slots.map((slot) => slot.date));
  assert.equal(slots.length, openDays.size * WEEKDAY_TIMES.length);
  let previousMs = -Infinity;
  for (const slot of slots) {
    const zoned = Temporal.Instant.fromEpochMilliseconds(slot.startEpochMs).toZonedDateTimeISO(
      LISBON,
    );
    assert.equal(slot.start, zoned.toString({ timeZoneName: "never", smallestUnit: "second" }));
    assert.equal(slot.date, zoned.toPlainDate().toString());
    assert.ok(zoned.dayOfWeek <= 5, slot.start);
    assert.ok(slot.startEpochMs > previousMs, `in time order at ${slot.start}`);
    previousMs = slot.startEpochMs;
  }
  // 2 years of weekdays (522), less the weekday public holidays and the two closed dates.
  assert.equal(openDays.size, 503);
});

test("buildCandidateSlots() skips the hour that does not exist when clocks go forward", () => {
  const sunday = scheduleWith({
    weeklyHours: { ...NO_HOURS, sunday: [["00:00", "04:00"]] },
    closedOnPublicHolidays: false, // 2027-03-28 is Easter Sunday.
  });
  for (const date of ["2026-03-29", "2027-03-28"]) {
    const slots = candidatesOn(sunday, date);
    assert.deepEqual(slots.map((slot) => slot.start), [
      ...wallStarts(date, "+00:00", ["00:00", "00:30"]),
      ...wallStarts(date, "+01:00", ["02:00", "02:30", "03:00", "03:30"]),
    ]);
    for (const slot of slots) assert.equal(slot.endEpochMs - slot.startEpochMs, 30 * MINUTE_MS);
    // 00:30 ends at the instant the clocks jump: 01:00Z, i.e. 02:00+01:00 = the next slot.
    assert.equal(slots[1].endEpochMs, slots[2].startEpochMs);
  }
  // A meeting longer than the grid still lasts its real length across the jump.
  const long = scheduleWith({
    weeklyHours: { ...NO_HOURS, sunday: [["00:00", "04:00"]] },
    meetingMinutes: 60,
  });
  const slots = candidatesOn(long, "2026-03-29");
  assert.deepEqual(slots.map((slot) => slot.start), [
    ...wallStarts("2026-03-29", "+00:00", ["00:00", "00:30"]),
    ...wallStarts("2026-03-29", "+01:00", ["02:00", "02:30", "03:00"]),
  ]);
  for (const slot of slots) assert.equal(slot.endEpochMs - slot.startEpochMs, 60 * MINUTE_MS);
});

test("buildCandidateSlots() lists the repeated hour once, at its earlier instant, when clocks go back", () => {
  const sunday = scheduleWith({ weeklyHours: { ...NO_HOURS, sunday: [["00:00", "04:00"]] } });
  for (const date of ["2026-10-25", "2027-10-31"]) {
    const slots = candidatesOn(sunday, date);
    assert.deepEqual(slots.map((slot) => slot.start), [
      ...wallStarts(date, "+01:00", ["00:00", "00:30", "01:00", "01:30"]),
      ...wallStarts(date, "+00:00", ["02:00", "02:30", "03:00", "03:30"]),
    ]);
    const instants = slots.map((slot) => slot.startEpochMs);
    assert.equal(new Set(instants).size, instants.length, "no instant twice");
    assert.ok(!slots.some((slot) => /T01:[03]0:00\+00:00$/.test(slot.start)), "no second 01:xx");
  }
  // An ordinary Sunday for comparison: eight slots, one offset.
  assert.deepEqual(
    startsOn(sunday, "2026-11-08"),
    wallStarts("2026-11-08", "+00:00", [
      "00:00",
      "00:30",
      "01:00",
      "01:30",
      "02:00",
      "02:30",
      "03:00",
      "03:30",
    ]),
  );
});

test("buildCandidateSlots() handles a half-hour clock change (Australia/Lord_Howe)", () => {
  const settings = everyDay([["01:00", "04:00"]], {
    timeZone: "Australia/Lord_Howe",
    holidayCountry: "AU",
  });
  // 2026-10-04: 02:00 → 02:30 (+10:30 → +11:00).
  assert.deepEqual(startsOn(settings, "2026-10-04"), [
    ...wallStarts("2026-10-04", "+10:30", ["01:00", "01:30"]),
    ...wallStarts("2026-10-04", "+11:00", ["02:30", "03:00", "03:30"]),
  ]);
  // 2027-04-04: 02:00 → 01:30 (+11:00 → +10:30): 01:30 exists twice, listed once.
  assert.deepEqual(startsOn(settings, "2027-04-04"), [
    ...wallStarts("2027-04-04", "+11:00", ["01:00", "01:30"]),
    ...wallStarts("2027-04-04", "+10:30", ["02:00", "02:30", "03:00", "03:30"]),
  ]);
});

test("buildCandidateSlots() keys each slot by its date in the schedule's zone across a month boundary", () => {
  const settings = everyDay([["00:00", "01:00"], ["23:00", "24:00"]]);
  const slots = candidatesOn(settings, "2027-04-30", "2027-05-01");
  assert.deepEqual(slots.map((slot) => [slot.date, slot.start]), [
    ["2027-04-30", "2027-04-30T00:00:00+01:00"],
    ["2027-04-30", "2027-04-30T00:30:00+01:00"],
    ["2027-04-30", "2027-04-30T23:00:00+01:00"],
    ["2027-04-30", "2027-04-30T23:30:00+01:00"],
    // 2027-04-30T23:00Z is already May in Lisbon.
    ["2027-05-01", "2027-05-01T00:00:00+01:00"],
    ["2027-05-01", "2027-05-01T00:30:00+01:00"],
    ["2027-05-01", "2027-05-01T23:00:00+01:00"],
    ["2027-05-01", "2027-05-01T23:30:00+01:00"],
  ]);
  assert.equal(slots[4].startEpochMs, Date.UTC(2027, 3, 30, 23, 0));
});

test("describeMonth() gives the month's dates and a span a day wider on each side", () => {
  const march = describeMonth("2027-03", LISBON);
  assert.equal(march.first.toString(), "2027-03-01");
  assert.equal(march.last.toString(), "2027-03-31");
  assert.equal(march.span.startEpochMs, toMs("2027-02-28T00:00:00+00:00"));
  assert.equal(march.span.endEpochMs, toMs("2027-04-02T00:00:00+01:00"));
  assert.equal(describeMonth("2026-02", LISBON).last.toString(), "2026-02-28");
  assert.equal(describeMonth("2028-02", LISBON).last.toString(), "2028-02-29");
  const december = describeMonth("2026-12", LISBON);
  assert.equal(december.last.toString(), "2026-12-31");
  assert.equal(december.span.endEpochMs, toMs("2027-01-02T00:00:00Z"));
});

test("buildCandidateSlots() closes PT public holidays and closed dates, not optional days", () => {
  const closed = [
    "2026-12-01", // Restoration of Independence
    "2026-12-08", // Immaculate Conception
    "2026-12-24", // closed date
    "2026-12-25", // Christmas
    "2026-12-31", // closed date
    "2027-01-01", // New Year
    "2027-03-26", // Good Friday
    "2027-05-27", // Corpus Christi
    "2027-06-10", // Portugal Day
  ];
  for (const date of closed) assert.deepEqual(startsOn(SAMPLE_SCHEDULE, date), [], date);
  // Carnival (optional) and Lisbon's 13 June (regional) stay open; so does the day before a holiday.
  for (const date of ["2027-02-09", "2026-12-07", "2026-12-23", "2026-12-30"]) {
    assert.equal(startsOn(SAMPLE_SCHEDULE, date).length, WEEKDAY_TIMES.length, date);
  }
  const open = scheduleWith({ closedOnPublicHolidays: false, closedDates: [] });
  for (const date of ["2026-12-08", "2027-03-26", "2026-12-24"]) {
    assert.equal(startsOn(open, date).length, WEEKDAY_TIMES.length, date);
  }
});

// ---------------------------------------------------------------------------------------------
// filterAvailableSlots: notice, horizon, busy time, buffers, daily limit

test("filterAvailableSlots() lists a slot exactly 12 h ahead and not one second less (winter)", () => {
  const first = "2026-12-02";
  // 2026-12-02T09:30:00+00:00 is the first slot.
  assert.equal(
    availableStarts(SAMPLE_SCHEDULE, { now: "2026-12-01T21:30:00Z", first })[0],
    "2026-12-02T09:30:00+00:00",
  );
  assert.equal(
    availableStarts(SAMPLE_SCHEDULE, { now: "2026-12-01T21:30:01Z", first })[0],
    "2026-12-02T10:00:00+00:00",
  );
  assert.equal(
    availableStarts(SAMPLE_SCHEDULE, { now: "2026-12-01T21:30:00.001Z", first })[0],
    "2026-12-02T10:00:00+00:00",
  );
});

test("filterAvailableSlots() applies the notice to the instant in summer (+01:00)", () => {
  const first = "2027-04-14";
  // 09:30+01:00 is 08:30Z; 12 h before is 20:30Z the day before.
  assert.equal(
    availableStarts(SAMPLE_SCHEDULE, { now: "2027-04-13T20:30:00Z", first })[0],
    "2027-04-14T09:30:00+01:00",
  );
  assert.equal(
    availableStarts(SAMPLE_SCHEDULE, { now: "2027-04-13T20:30:01Z", first })[0],
    "2027-04-14T10:00:00+01:00",
  );
});

test("filterAvailableSlots() counts the notice in elapsed hours across the spring-forward change", () => {
  const sunday = scheduleWith({
    weeklyHours: { ...NO_HOURS, sunday: [["08:00", "12:00"]] },
    closedOnPublicHolidays: false,
  });
  // Saturday 21:30+00:00 plus 12 elapsed hours is 09:30Z, i.e. 10:30+01:00 (not 09:30 wall).
  assert.deepEqual(
    availableStarts(sunday, { now: "2027-03-27T21:30:00Z", first: "2027-03-28" }),
    wallStarts("2027-03-28", "+01:00", ["10:30", "11:00", "11:30"]),
  );
});

test("filterAvailableSlots() with no notice lists a slot starting now and none already started", () => {
  const settings = scheduleWith({ minimumNoticeHours: 0 });
  const first = "2026-12-02";
  assert.equal(
    availableStarts(settings, { now: "2026-12-02T09:30:00Z", first })[0],
    "2026-12-02T09:30:00+00:00",
  );
  assert.equal(
    availableStarts(settings, { now: "2026-12-02T09:30:00.001Z", first })[0],
    "2026-12-02T10:00:00+00:00",
  );
  // A fractional notice is honoured to the millisecond: 1.5 h.
  const ninety = scheduleWith({ minimumNoticeHours: 1.5 });
  assert.equal(
    availableStarts(ninety, { now: "2026-12-02T08:00:00Z", first })[0],
    "2026-12-02T09:30:00+00:00",
  );
  assert.equal(
    availableStarts(ninety, { now: "2026-12-02T08:00:01Z", first })[0],
    "2026-12-02T10:00:00+00:00",
  );
});

test("filterAvailableSlots() stops at the horizon, counted in calendar days of the zone", () => {
  const week = scheduleWith({ horizonDays: 7, minimumNoticeHours: 0 });
  // Winter: 2026-12-02T10:00Z + 7 days = 2026-12-09T10:00+00:00, the last start allowed.
  const winter = availableStarts(week, { now: "2026-12-02T10:00:00Z", first: "2026-12-09" });
  assert.deepEqual(winter, wallStarts("2026-12-09", "+00:00", ["09:30", "10:00"]));
  // Across spring-forward: 2027-03-24T10:00+00:00 + 7 days = 2027-03-31T10:00+01:00 (09:00Z).
  const spring = availableStarts(week, { now: "2027-03-24T10:00:00Z", first: "2027-03-31" });
  assert.deepEqual(spring, wallStarts("2027-03-31", "+01:00", ["09:30", "10:00"]));
  // The default 183 days from 2026-11-21T10:00Z end on Sunday 2027-05-23 at 10:00+01:00.
  const long = availableStarts(SAMPLE_SCHEDULE, {
    now: "2026-11-21T10:00:00Z",
    first: "2027-05-20",
    last: "2027-05-25",
  });
  assert.equal(long[0], "2027-05-20T09:30:00+01:00");
  assert.equal(long.at(-1), "2027-05-21T17:30:00+01:00");
  assert.equal(long.length, 2 * WEEKDAY_TIMES.length);
});

test("filterAvailableSlots() removes slots that overlap busy time, end exclusive", () => {
  const settings = scheduleWith({ minimumNoticeHours: 0 });
  const starts = availableStarts(settings, {
    now: "2026-12-01T00:00:00Z",
    first: "2026-12-02",
    busy: [
      interval("2026-12-02T10:00:00Z", "2026-12-02T10:30:00Z"), // exactly one slot
      interval("2026-12-02T14:45:00Z", "2026-12-02T15:05:00Z"), // inside two slots
      interval("2026-12-02T17:59:59Z", "2026-12-02T19:00:00Z"), // the last second of 17:30
      interval("2026-12-02T12:30:00Z", "2026-12-02T14:00:00Z"), // lunch: touches, blocks none
    ],
  });
  assert.deepEqual(
    starts,
    wallStarts("2026-12-02", "+00:00", [
      "09:30",
      "10:30",
      "11:00",
      "11:30",
      "12:00",
      "14:00",
      "15:30",
      "16:00",
      "16:30",
      "17:00",
    ]),
  );
});

/** 09:00–13:00 every day on a 15-minute grid of 30-minute meetings, with the given buffers. */
function bufferSchedule(beforeMinutes: number, afterMinutes: number): ScheduleSettings {
  return everyDay([["09:00", "13:00"]], {
    gridMinutes: 15,
    bufferBeforeMinutes: beforeMinutes,
    bufferAfterMinutes: afterMinutes,
  });
}

/** The wall times `HH:MM` of 2026-12-02 (a +00:00 day) that are not available. */
function blockedTimes(
  settings: ScheduleSettings,
  event: { busy?: BusyInterval[]; bookings?: BusyInterval[] },
): string[] {
  const all = startsOn(settings, "2026-12-02");
  const available = new Set(
    availableStarts(settings, { now: "2026-12-01T00:00:00Z", first: "2026-12-02", ...event }),
  );
  return all.filter((start) => !available.has(start)).map((start) => start.slice(11, 16));
}

const ELEVEN = [interval("2026-12-02T11:00:00Z", "2026-12-02T11:30:00Z")];

test("filterAvailableSlots() keeps the buffers clear of calendar events", () => {
  assert.deepEqual(blockedTimes(bufferSchedule(0, 0), { busy: ELEVEN }), [
    "10:45",
    "11:00",
    "11:15",
  ]);
  // 15 min free before each meeting: 11:30 is too close after the event.
  assert.deepEqual(blockedTimes(bufferSchedule(15, 0), { busy: ELEVEN }), [
    "10:45",
    "11:00",
    "11:15",
    "11:30",
  ]);
  // 15 min free after each meeting: 10:30 ends too close before the event.
  assert.deepEqual(blockedTimes(bufferSchedule(0, 15), { busy: ELEVEN }), [
    "10:30",
    "10:45",
    "11:00",
    "11:15",
  ]);
  assert.deepEqual(blockedTimes(bufferSchedule(15, 15), { busy: ELEVEN }), [
    "10:30",
    "10:45",
    "11:00",
    "11:15",
    "11:30",
  ]);
});

test("filterAvailableSlots() keeps the buffers around existing bookings, on both meetings", () => {
  assert.deepEqual(blockedTimes(bufferSchedule(0, 0), { bookings: ELEVEN }), [
    "10:45",
    "11:00",
    "11:15",
  ]);
  // The booking needs 15 min free before it, so 10:30–11:00 is out; the new slot needs 15 min
  // free before it, so 11:30 is out.
  assert.deepEqual(blockedTimes(bufferSchedule(15, 0), { bookings: ELEVEN }), [
    "10:30",
    "10:45",
    "11:00",
    "11:15",
    "11:30",
  ]);
  assert.deepEqual(blockedTimes(bufferSchedule(0, 15), { bookings: ELEVEN }), [
    "10:30",
    "10:45",
    "11:00",
    "11:15",
    "11:30",
  ]);
  // Both buffers: the booking's buffers and the new meeting's buffers stack (as in Cal.com), so
  // two bookings are at least before + after = 30 min apart: 10:00 and 12:00 are the nearest.
  assert.deepEqual(blockedTimes(bufferSchedule(15, 15), { bookings: ELEVEN }), [
    "10:15",
    "10:30",
    "10:45",
    "11:00",
    "11:15",
    "11:30",
    "11:45",
  ]);
});

test("filterAvailableSlots() applies the daily limit to bookings of the zone's date", () => {
  const limited = everyDay([["09:00", "12:00"]], { maxMeetingsPerDay: 2 });
  const now = "2027-04-01T00:00:00Z";
  const days = { now, first: "2027-04-14", last: "2027-04-16" };
  const all = availableStarts(limited, days);
  assert.equal(all.length, 18);
  // Two bookings on the 14th (Lisbon) fill it; one on the 15th leaves its other slots.
  const bookings = [
    interval("2027-04-14T08:00:00Z", "2027-04-14T08:30:00Z"), // 09:00+01:00
    interval("2027-04-14T09:00:00Z", "2027-04-14T09:30:00Z"), // 10:00+01:00
    interval("2027-04-15T09:00:00Z", "2027-04-15T09:30:00Z"),
  ];
  const starts = availableStarts(limited, { ...days, bookings });
  assert.ok(!starts.some((start) => start.startsWith("2027-04-14")), "the 14th is full");
  assert.deepEqual(
    starts.filter((start) => start.startsWith("2027-04-15")),
    wallStarts("2027-04-15", "+01:00", ["09:00", "09:30", "10:30", "11:00", "11:30"]),
  );
  assert.equal(starts.filter((start) => start.startsWith("2027-04-16")).length, 6);
  // A booking at 23:15Z on the 15th is 00:15 on the 16th in Lisbon: it counts for the 16th.
  const late = [
    interval("2027-04-15T23:15:00Z", "2027-04-15T23:45:00Z"),
    interval("2027-04-16T10:00:00Z", "2027-04-16T10:30:00Z"),
  ];
  const lateStarts = availableStarts(limited, { ...days, bookings: late });
  assert.equal(lateStarts.filter((start) => start.startsWith("2027-04-15")).length, 6);
  assert.equal(lateStarts.filter((start) => start.startsWith("2027-04-16")).length, 0);
  // Calendar events are busy time, not meetings: they do not count toward the limit.
  const busyStarts = availableStarts(limited, { ...days, busy: bookings });
  assert.equal(busyStarts.filter((start) => start.startsWith("2027-04-14")).length, 4);
  // No limit: only the booked slots go.
  const unlimited = everyDay([["09:00", "12:00"]]);
  assert.equal(availableStarts(unlimited, { ...days, bookings }).length, 15);
});

test("filterAvailableSlots() gives nothing on holidays and closed dates whatever the busy time", () => {
  const starts = availableStarts(SAMPLE_SCHEDULE, {
    now: "2026-11-21T10:00:00Z",
    first: "2026-12-07",
    last: "2026-12-09",
  });
  assert.deepEqual([...new Set(starts.map((start) => start.slice(0, 10)))], [
    "2026-12-07",
    "2026-12-09",
  ]);
});

// ---------------------------------------------------------------------------------------------
// mergeIntervals and overlapsAny

const span = (startEpochMs: number, endEpochMs: number): BusyInterval => ({
  startEpochMs,
  endEpochMs,
});

test("mergeIntervals() sorts, merges overlapping and touching intervals, drops empty ones", () => {
  assert.deepEqual(mergeIntervals([]), []);
  const input = [span(50, 60), span(10, 20), span(15, 30), span(30, 40), span(5, 5), span(9, 3)];
  const copy = structuredClone(input);
  assert.deepEqual(mergeIntervals(input), [span(10, 40), span(50, 60)]);
  assert.deepEqual(input, copy, "the input is not changed");
  assert.deepEqual(mergeIntervals([span(0, 100), span(10, 20), span(99, 101)]), [span(0, 101)]);
  assert.deepEqual(mergeIntervals([span(0, 10), span(11, 12)]), [span(0, 10), span(11, 12)]);
});

test("overlapsAny() treats every interval as start inclusive, end exclusive", () => {
  const busy = [span(10, 20), span(30, 40)];
  assert.equal(overlapsAny([], 0, 100), false);
  assert.equal(overlapsAny(busy, 0, 10), false, "ends where busy starts");
  assert.equal(overlapsAny(busy, 20, 30), false, "fits the gap exactly");
  assert.equal(overlapsAny(busy, 40, 50), false, "starts where busy ends");
  assert.equal(overlapsAny(busy, 9, 11), true);
  assert.equal(overlapsAny(busy, 19, 21), true);
  assert.equal(overlapsAny(busy, 12, 18), true, "inside");
  assert.equal(overlapsAny(busy, 0, 100), true, "around both");
  assert.equal(overlapsAny(busy, 25, 31), true, "the second one");
});

test("mergeIntervals() and overlapsAny() agree with a direct check (property)", () => {
  const intervalArbitrary = fc.tuple(
    fc.integer({ min: 0, max: 1000 }),
    fc.integer({ max: 200, min: -5 }),
  )
    .map(([start, length]) => span(start, start + length));
  fc.assert(
    fc.property(
      fc.array(intervalArbitrary, { maxLength: 30 }),
      fc.integer({ min: -10, max: 1010 }),
      fc.integer({ min: 1, max: 300 }),
      (intervals, start, length) => {
        const merged = mergeIntervals(intervals);
        for (let index = 1; index < merged.length; index++) {
          assert.ok(merged[index - 1].endEpochMs < merged[index].startEpochMs, "disjoint, sorted");
        }
        const direct = intervals.some((busy) =>
          busy.endEpochMs > busy.startEpochMs && busy.startEpochMs < start + length &&
          busy.endEpochMs > start
        );
        assert.equal(overlapsAny(merged, start, start + length), direct);
        for (let at = 0; at <= 1000; at += 7) {
          const covered = intervals.some((busy) => busy.startEpochMs <= at && at < busy.endEpochMs);
          assert.equal(overlapsAny(merged, at, at + 1), covered, `at ${at}`);
        }
      },
    ),
    { numRuns: 200, seed: 4_2026 },
  );
});

// ---------------------------------------------------------------------------------------------
// The property: no listed slot overlaps busy time or lies in the past

const ZONES = ["Europe/Lisbon", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"];

function toTime(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${
    String(minutes % 60).padStart(2, "0")
  }`;
}

/** 0–2 sorted, disjoint opening intervals on a 30-minute raster, 00:00 to 24:00. */
const dayHours = fc.uniqueArray(fc.integer({ min: 0, max: 48 }), { maxLength: 4 }).map((marks) => {
  const sorted = [...marks].sort((a, b) => a - b);
  const hours: Array<[string, string]> = [];
  for (let index = 0; index + 1 < sorted.length; index += 2) {
    hours.push([toTime(sorted[index] * 30), toTime(sorted[index + 1] * 30)]);
  }
  return hours;
});

const scheduleArbitrary = fc.record({
  timeZone: fc.constantFrom(...ZONES),
  meetingMinutes: fc.constantFrom(15, 20, 30, 45, 60, 90),
  gridMinutes: fc.constantFrom(5, 10, 15, 30, 60),
  bufferBeforeMinutes: fc.constantFrom(0, 0, 5, 10, 15, 30, 60),
  bufferAfterMinutes: fc.constantFrom(0, 0, 5, 10, 15, 30, 60),
  minimumNoticeHours: fc.constantFrom(0, 0.5, 1, 12, 24, 48),
  horizonDays: fc.integer({ min: 1, max: 60 }),
  maxMeetingsPerDay: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
  weeklyHours: fc.record({
    monday: dayHours,
    tuesday: dayHours,
    wednesday: dayHours,
    thursday: dayHours,
    friday: dayHours,
    saturday: dayHours,
    sunday: dayHours,
  }),
  closedOnPublicHolidays: fc.boolean(),
});

const EPOCH_2026 = Date.UTC(2026, 0, 1);
const EPOCH_2028 = Date.UTC(2028, 0, 1);

test("filterAvailableSlots() never lists a slot that overlaps busy time or lies in the past (property)", () => {
  fc.assert(
    fc.property(
      scheduleArbitrary,
      fc.integer({ min: EPOCH_2026, max: EPOCH_2028 }),
      fc.integer({ min: 0, max: 40 }),
      fc.array(
        fc.tuple(fc.integer({ min: -3 * 1440, max: 45 * 1440 }), fc.integer({ min: 1, max: 360 })),
        { maxLength: 40 },
      ),
      fc.array(fc.integer({ min: -3 * 288, max: 45 * 288 }), { maxLength: 20 }),
      (shape, nowMs, days, busyShape, bookingShape) => {
        const settings = readSchedule({
          ...SAMPLE_SCHEDULE,
          ...shape,
          closedDates: ["2026-12-24"],
        });
        const now = Temporal.Instant.fromEpochMilliseconds(nowMs);
        const today = now.toZonedDateTimeISO(settings.timeZone).toPlainDate();
        const first = today.subtract({ days: 1 });
        const last = today.add({ days });
        const baseMs =
          now.round({ smallestUnit: "minute", roundingMode: "floor" }).epochMilliseconds;
        const busy = busyShape.map(([offsetMinutes, minutes]) =>
          span(baseMs + offsetMinutes * MINUTE_MS, baseMs + (offsetMinutes + minutes) * MINUTE_MS)
        );
        const meetingMs = settings.meetingMinutes * MINUTE_MS;
        const bookings = bookingShape.map((fiveMinutes) =>
          span(
            baseMs + fiveMinutes * 5 * MINUTE_MS,
            baseMs + fiveMinutes * 5 * MINUTE_MS + meetingMs,
          )
        );
        const candidates = buildCandidateSlots(settings, first, last, HOLIDAYS);
        const available = filterAvailableSlots(candidates, { settings, now, busy, bookings });

        const beforeMs = settings.bufferBeforeMinutes * MINUTE_MS;
        const afterMs = settings.bufferAfterMinutes * MINUTE_MS;
        const earliestMs = nowMs + settings.minimumNoticeHours * 3_600_000;
        const latestMs = now.toZonedDateTimeISO(settings.timeZone).add({
          days: settings.horizonDays,
        }).epochMilliseconds;
        const bookingsPerDay = new Map<string, number>();
        for (const booking of bookings) {
          const day = Temporal.Instant.fromEpochMilliseconds(booking.startEpochMs)
            .toZonedDateTimeISO(settings.timeZone).toPlainDate().toString();
          bookingsPerDay.set(day, (bookingsPerDay.get(day) ?? 0) + 1);
        }
        const overlaps = (a: BusyInterval, startMs: number, endMs: number) =>
          a.startEpochMs < endMs && a.endEpochMs > startMs;
        const isFree = (slot: CandidateSlot) =>
          slot.startEpochMs >= earliestMs && slot.startEpochMs <= latestMs &&
          !busy.some((event) =>
            overlaps(event, slot.startEpochMs - beforeMs, slot.endEpochMs + afterMs)
          ) &&
          !bookings.some((booking) =>
            overlaps(
              span(booking.startEpochMs - beforeMs, booking.endEpochMs + afterMs),
              slot.startEpochMs - beforeMs,
              slot.endEpochMs + afterMs,
            )
          ) &&
          (settings.maxMeetingsPerDay === null ||
            (bookingsPerDay.get(slot.date) ?? 0) < settings.maxMeetingsPerDay);

        // The invariants the issue asks for, checked directly.
        for (const slot of available) {
          assert.ok(slot.startEpochMs >= nowMs, `${slot.start} lies in the past`);
          assert.ok(slot.startEpochMs >= earliestMs, `${slot.start} is inside the notice`);
          for (const event of busy) {
            assert.ok(
              !overlaps(event, slot.startEpochMs, slot.endEpochMs),
              `${slot.start} is busy`,
            );
          }
          for (const booking of bookings) {
            assert.ok(
              !overlaps(booking, slot.startEpochMs, slot.endEpochMs),
              `${slot.start} is booked`,
            );
          }
        }
        // And exactly the candidates that a direct, quadratic check finds free are listed.
        assert.deepEqual(
          available.map((slot) => slot.start),
          candidates.filter(isFree).map((slot) => slot.start),
        );
        // The candidates themselves: in time order, on the grid, with the zone's offset.
        let previousMs = -Infinity;
        for (const slot of candidates) {
          assert.ok(slot.startEpochMs > previousMs, `${slot.start} in time order`);
          previousMs = slot.startEpochMs;
          assert.equal(slot.endEpochMs - slot.startEpochMs, meetingMs);
          const zoned = Temporal.Instant.fromEpochMilliseconds(slot.startEpochMs)
            .toZonedDateTimeISO(settings.timeZone);
          assert.equal(
            slot.start,
            zoned.toString({ timeZoneName: "never", smallestUnit: "second" }),
          );
          assert.equal(slot.date, zoned.toPlainDate().toString());
          assert.notEqual(slot.date, "2026-12-24");
          const minutes = zoned.hour * 60 + zoned.minute;
          const day = WEEKDAYS[zoned.dayOfWeek - 1];
          assert.ok(
            settings.weeklyHours[day].some(([open, close]) => {
              const openMinutes = Number(open.slice(0, 2)) * 60 + Number(open.slice(3));
              const closeMinutes = Number(close.slice(0, 2)) * 60 + Number(close.slice(3));
              return minutes >= openMinutes &&
                minutes + settings.meetingMinutes <= closeMinutes &&
                (minutes - openMinutes) % settings.gridMinutes === 0;
            }),
            `${slot.start} is on the ${day} grid`,
          );
        }
      },
    ),
    { numRuns: 200, seed: 20_261_121 },
  );
});
