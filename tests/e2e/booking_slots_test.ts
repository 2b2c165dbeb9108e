import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "./_server.ts";
import { buildCalendar, buildEvent, startIcsFeedServer, toIcsUtc } from "../_ics_feed.ts";
import {
  isOpenDate,
  listOpenDates,
  MEETING_MILLISECONDS,
  nextMonth,
  NOTICE_MILLISECONDS,
  OPEN_WEEKDAYS,
  STUDIO_ZONE,
  toIcsWeekday,
  toStudioDate,
} from "./_studio.ts";

interface SlotsBody {
  ok: boolean;
  timeZone: string;
  slots: Record<string, Array<{ start: string }>>;
}

async function listStarts(origin: string, month: string): Promise<string[]> {
  const response = await fetch(`${origin}/api/v1/booking/slots?month=${month}`);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  const body: SlotsBody = JSON.parse(text);
  assert.equal(body.timeZone, STUDIO_ZONE);
  return Object.values(body.slots).flat().map((slot) => slot.start);
}

/** The weekday the feed blocks: one of the schedule's open weekdays, the middle one. */
const BLOCKED_WEEKDAY = OPEN_WEEKDAYS[Math.floor(OPEN_WEEKDAYS.length / 2)];

function isBlockedWeekday(start: string): boolean {
  return toStudioDate(start).dayOfWeek === BLOCKED_WEEKDAY;
}

/** The studio's dates of `starts`, `YYYY-MM-DD`, each once, in order. */
function listDates(starts: string[]): string[] {
  return [...new Set(starts.map((start) => toStudioDate(start).toString()))];
}

test("main.ts reads the busy feeds for every listing: a slot under a new event is gone from the very next one, an unchanged feed answers 304, and a feed gone is a 503", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-e2e-slots-"));
  // Next month in the studio's zone: inside the horizon, and its slots lie beyond the notice.
  const month = nextMonth();
  assert.ok(OPEN_WEEKDAYS.length >= 2, "the schedule opens on two weekdays at least");
  // Feed A blocks one open weekday (all day, weekly) from a past date on; feed B is empty.
  const firstBlocked = Temporal.PlainDate.from("2026-01-05").add({ days: BLOCKED_WEEKDAY - 1 });
  const toIcsDate = (date: Temporal.PlainDate) => date.toString().replaceAll("-", "");
  const blockedDays = buildEvent(
    "weekly",
    `DTSTART;VALUE=DATE:${toIcsDate(firstBlocked)}`,
    `DTEND;VALUE=DATE:${toIcsDate(firstBlocked.add({ days: 1 }))}`,
    `RRULE:FREQ=WEEKLY;BYDAY=${toIcsWeekday(BLOCKED_WEEKDAY)}`,
  );
  const feedA = await startIcsFeedServer(buildCalendar(blockedDays));
  const feedB = await startIcsFeedServer(buildCalendar());
  const [serverA, serverB] = await Promise.all([
    startServer({ STUDIO_KV_PATH: join(folder, "a.kv"), STUDIO_BUSY_CALENDARS: feedA.url }),
    startServer({ STUDIO_KV_PATH: join(folder, "b.kv"), STUDIO_BUSY_CALENDARS: feedB.url }),
  ]);
  try {
    const before = await listStarts(serverA.origin, month);
    const unblocked = await listStarts(serverB.origin, month);
    // Every date the schedule opens has slots, and no other date has.
    const listedDates = listDates(unblocked);
    const openDates = listOpenDates(month).map(String);
    assert.deepEqual(openDates.filter((date) => !listedDates.includes(date)), [], "open, unlisted");
    assert.deepEqual(
      listedDates.filter((date) => !isOpenDate(Temporal.PlainDate.from(date))),
      [],
      "listed on a date the schedule closes",
    );
    const openDatesLeft = openDates.filter((date) =>
      Temporal.PlainDate.from(date).dayOfWeek !== BLOCKED_WEEKDAY
    );
    assert.ok(openDatesLeft.length > 0, `${month} has open days besides the blocked weekday`);
    assert.ok(before.length >= openDatesLeft.length, `${month} has slots: ${before.length}`);
    assert.ok(unblocked.some(isBlockedWeekday), "without the feed event, the weekday has slots");
    assert.ok(!before.some(isBlockedWeekday), "the feed's weekly all-day event blocks the weekday");
    assert.deepEqual(before, unblocked.filter((start) => !isBlockedWeekday(start)));

    // A second listing asks with the first answer's ETag; the feed answers 304, the same slots.
    assert.deepEqual(await listStarts(serverA.origin, month), before);
    assert.equal(feedA.requests.length, 2);
    assert.ok(feedA.requests[1].headers["if-none-match"], "a conditional request");

    // Feed A gains an event over a listed slot: the very next listing reads it.
    const chosen = before[Math.floor(before.length / 2)];
    const chosenMs = Date.parse(chosen);
    feedA.setBody(buildCalendar(
      blockedDays,
      buildEvent(
        "new",
        `DTSTART:${toIcsUtc(chosenMs)}`,
        `DTEND:${toIcsUtc(chosenMs + MEETING_MILLISECONDS)}`,
      ),
    ));
    const after = await listStarts(serverA.origin, month);
    assert.equal(feedA.requests.length, 3);
    assert.ok(!after.includes(chosen), `${chosen} is gone at once`);
    const noticeEndMs = Date.now() + NOTICE_MILLISECONDS + 60_000;
    assert.ok(after.every((start) => before.includes(start)));
    assert.deepEqual(
      after.filter((start) => Date.parse(start) > noticeEndMs),
      before.filter((start) => start !== chosen && Date.parse(start) > noticeEndMs),
    );

    // Feed B goes away: the next listing cannot be answered from a copy.
    await feedB.stop();
    const gone = await fetch(`${serverB.origin}/api/v1/booking/slots?month=${month}`);
    assert.equal(gone.status, 503);
    assert.equal(gone.headers.get("API-Version"), "1");
    const body = await gone.json();
    assert.equal(body.ok, false);
    assert.equal(body.error.code, "no-backend");
    assert.equal(body.error.message, "The studio's calendar is temporarily unavailable");
    // The log names the feed's host only, never its secret path.
    // Standard error reaches this process a moment after the answer on some runtimes (Bun).
    for (let wait = 0; wait < 50 && !/Busy calendar unavailable/.test(serverB.output()); wait++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(serverB.output(), /Busy calendar unavailable/);
    assert.ok(!serverB.output().includes("private-5f0c1e2d"));
  } finally {
    await Promise.all([serverA.stop(), serverB.stop(), feedA.stop(), feedB.stop()]);
    rmSync(folder, { recursive: true, force: true });
  }
});
