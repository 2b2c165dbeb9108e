import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "./_server.ts";
import { buildCalendar, buildEvent, startIcsFeedServer, toIcsUtc } from "../_ics_feed.ts";

const TWELVE_HOURS_MS = 12 * 3_600_000;

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
  assert.equal(body.timeZone, "Europe/Lisbon");
  return Object.values(body.slots).flat().map((slot) => slot.start);
}

function isWednesday(start: string): boolean {
  return Temporal.PlainDate.from(start.slice(0, 10)).dayOfWeek === 3;
}

test("main.ts reads the busy feeds for every listing: a slot under a new event is gone from the very next one, an unchanged feed answers 304, and a feed gone is a 503", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-e2e-slots-"));
  // Next month in Lisbon: inside the six months, and its slots lie beyond the 12 h notice.
  const month = Temporal.Now.zonedDateTimeISO("Europe/Lisbon").toPlainDate().toPlainYearMonth()
    .add({ months: 1 }).toString();
  // Feed A blocks every Wednesday (all day, weekly) from the start; feed B is empty.
  const wednesdays = buildEvent(
    "wednesdays",
    "DTSTART;VALUE=DATE:20260107",
    "DTEND;VALUE=DATE:20260108",
    "RRULE:FREQ=WEEKLY;BYDAY=WE",
  );
  const feedA = await startIcsFeedServer(buildCalendar(wednesdays));
  const feedB = await startIcsFeedServer(buildCalendar());
  const [serverA, serverB] = await Promise.all([
    startServer({ STUDIO_KV_PATH: join(folder, "a.kv"), STUDIO_BUSY_CALENDARS: feedA.url }),
    startServer({ STUDIO_KV_PATH: join(folder, "b.kv"), STUDIO_BUSY_CALENDARS: feedB.url }),
  ]);
  try {
    const before = await listStarts(serverA.origin, month);
    const unblocked = await listStarts(serverB.origin, month);
    assert.ok(before.length > 20, `${month} has slots: ${before.length}`);
    assert.ok(unblocked.some(isWednesday), "without the feed event, Wednesdays have slots");
    assert.ok(!before.some(isWednesday), "the feed's weekly all-day event blocks every Wednesday");
    assert.deepEqual(before, unblocked.filter((start) => !isWednesday(start)));

    // A second listing asks with the first answer's ETag; the feed answers 304, the same slots.
    assert.deepEqual(await listStarts(serverA.origin, month), before);
    assert.equal(feedA.requests.length, 2);
    assert.ok(feedA.requests[1].headers["if-none-match"], "a conditional request");

    // Feed A gains an event over a listed slot: the very next listing reads it.
    const chosen = before[Math.floor(before.length / 2)];
    const chosenMs = Date.parse(chosen);
    feedA.setBody(buildCalendar(
      wednesdays,
      buildEvent("new", `DTSTART:${toIcsUtc(chosenMs)}`, `DTEND:${toIcsUtc(chosenMs + 1_800_000)}`),
    ));
    const after = await listStarts(serverA.origin, month);
    assert.equal(feedA.requests.length, 3);
    assert.ok(!after.includes(chosen), `${chosen} is gone at once`);
    const noticeEndMs = Date.now() + TWELVE_HOURS_MS + 60_000;
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
