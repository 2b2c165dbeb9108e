import { test } from "node:test";
import assert from "node:assert/strict";
import { createHolidayCalendar } from "../../../lib/availability/holidays.ts";
import { createSlotFinder } from "../../../lib/availability/slots.ts";
import { NO_BUSY_CALENDAR } from "../../../lib/availability/busy_calendar.ts";
import { createMemoryStore } from "../../../testing.ts";
import { SAMPLE_HOLIDAYS, SAMPLE_SCHEDULE } from "../../_fixture_studio.ts";

test("the built-in holiday table is what date-holidays computes for the default country, every year", async () => {
  const table = SAMPLE_HOLIDAYS[SAMPLE_SCHEDULE.holidayCountry];
  assert.ok(table, "the default schedule's country is in the table");
  const years = Object.keys(table).map(Number);
  assert.ok(years.includes(new Date().getUTCFullYear() + 1), "next year is covered");
  // No table given: every year is computed by date-holidays.
  const computed = createHolidayCalendar();
  await computed.prepare(SAMPLE_SCHEDULE.holidayCountry, years);
  for (const year of years) {
    assert.deepEqual(
      [...table[year]],
      [...computed.calendar(SAMPLE_SCHEDULE.holidayCountry, year)].sort(),
      `${year}: run deno task build`,
    );
  }
});

test("createHolidayCalendar() answers the table's years at once and other countries once prepared", async () => {
  const { calendar, prepare } = createHolidayCalendar(SAMPLE_HOLIDAYS);
  assert.ok(calendar("PT", 2026).has("2026-04-25"));
  assert.ok(!calendar("PT", 2026).has("2026-02-17"), "Carnival is optional, not public");
  assert.throws(() => calendar("ES", 2026), /public holidays of ES in 2026 were not prepared/);
  await prepare("ES", [2026]);
  assert.ok(calendar("ES", 2026).has("2026-10-12"));
  await prepare("PT", [2090]);
  assert.ok(calendar("PT", 2090).has("2090-12-25"), "a year past the table is computed");
});

test("createSlotFinder() closes the days of the holiday table it is given and computes the years it lacks", async () => {
  const store = createMemoryStore();
  try {
    const finder = createSlotFinder({
      settings: SAMPLE_SCHEDULE,
      busyCalendar: NO_BUSY_CALENDAR,
      store,
      nowMilliseconds: () => Date.parse("2026-11-02T00:00:00Z"),
      // Made up: Wednesday 2 December closed, and none of Portugal's holidays of 2026.
      holidays: { PT: { 2026: ["2026-12-02"] } },
    });
    const december = new Set(
      (await finder.listMonth("2026-12", "listing")).map((slot) => slot.date),
    );
    assert.ok(!december.has("2026-12-02"), "the table's day is closed");
    assert.ok(december.has("2026-12-01"), "a holiday the table lacks stays open");
    const january = new Set(
      (await finder.listMonth("2027-01", "listing")).map((slot) => slot.date),
    );
    assert.ok(!january.has("2027-01-01"), "a year past the table comes from date-holidays");
    assert.ok(january.has("2027-01-04"));
  } finally {
    store.close();
  }
});
