import { test } from "node:test";
import assert from "node:assert/strict";
import {
  computePublicHolidays,
  createHolidayCalendar,
} from "../../../../lib/availability/holidays.ts";
import { PUBLIC_HOLIDAYS } from "../../../../lib/availability/public_holidays.generated.ts";
import { DEFAULT_SCHEDULE } from "../../../../content/schedule.ts";

test("the built-in holiday table is what date-holidays computes for the default country, every year", async () => {
  const table = PUBLIC_HOLIDAYS[DEFAULT_SCHEDULE.holidayCountry];
  assert.ok(table, "the default schedule's country is in the table");
  const years = Object.keys(table).map(Number);
  assert.ok(years.includes(new Date().getUTCFullYear() + 1), "next year is covered");
  for (const year of years) {
    assert.deepEqual(
      [...table[year]],
      [...await computePublicHolidays(DEFAULT_SCHEDULE.holidayCountry, year)].sort(),
      `${year}: run deno task build:holidays`,
    );
  }
});

test("createHolidayCalendar() answers the table's years at once and other countries once prepared", async () => {
  const { calendar, prepare } = createHolidayCalendar();
  assert.ok(calendar("PT", 2026).has("2026-04-25"));
  assert.ok(!calendar("PT", 2026).has("2026-02-17"), "Carnival is optional, not public");
  assert.throws(() => calendar("ES", 2026), /public holidays of ES in 2026 were not prepared/);
  await prepare("ES", [2026]);
  assert.ok(calendar("ES", 2026).has("2026-10-12"));
  await prepare("PT", [2090]);
  assert.ok(calendar("PT", 2090).has("2090-12-25"), "a year past the table is computed");
});
