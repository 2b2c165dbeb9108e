/**
 * Benchmark: next month's availability listing (`GET /api/v1/booking/slots?month=YYYY-MM`)
 * through the real service, next to `GET /api/v1/health` in the same run, both with `wrk` on
 * loopback (see scripts/_bench_support.ts). The service reads a busy-calendar feed of 1,000 events
 * (50 of them weekly recurring) from a loopback HTTP server this script starts, and 200 slot
 * holds written into its KV file before it starts; the read quota is raised. Every listing reads
 * the feed live, with the copy's ETag: the feed server answers 304, as calendar hosts do to an
 * unchanged feed, and the parsed copy stays.
 * Target: the listing at ≥ 20 % of health's throughput.
 *
 * Usage: `deno task bench:slots [--seconds 10] [--rounds 3] [--connections 50] [--cpu-prof DIR]`
 * (`--cpu-prof` writes the service's V8 CPU profile into DIR when it stops).
 *
 * @module
 */
import { compare, printRatio, readFlag, startProcess } from "./_bench_support.ts";
import { buildCandidateSlots } from "../lib/availability/availability.ts";
import { createHolidayCalendar } from "../lib/availability/holidays.ts";
import { PUBLIC_HOLIDAYS } from "../build/public_holidays.generated.ts";
import { DEFAULT_SCHEDULE } from "../build/schedule.generated.ts";
import { SLOT_PREFIX, type SlotHold, SLOTS_VERSION_KEY } from "../lib/availability/slot_holds.ts";

const seconds = Number(readFlag("--seconds") ?? 10);
const rounds = Number(readFlag("--rounds") ?? 3);
const connections = Number(readFlag("--connections") ?? 50);
const profileFolder = readFlag("--cpu-prof");

const EVENT_COUNT = 1000;
const RECURRING_COUNT = 50;
const HOLD_COUNT = 200;
const ZONE = DEFAULT_SCHEDULE.timeZone;
/** The studio's holidays, as the service has them (the table covers the months listed here). */
const HOLIDAYS = createHolidayCalendar(PUBLIC_HOLIDAYS).calendar;

/** A small deterministic generator (mulberry32), so every run serves the same feed. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function toIcsUtc(instant: Temporal.Instant): string {
  return instant.toString({ smallestUnit: "second" }).replace(/[-:]/g, "");
}

function toIcsLocal(dateTime: Temporal.PlainDateTime): string {
  return dateTime.toString({ smallestUnit: "second" }).replace(/[-:]/g, "");
}

/**
 * The feed: 950 single events from a month ago to seven months ahead (timed in UTC, in Lisbon
 * or New York time, or all-day; a few free or cancelled), and 50 weekly series begun in the
 * last year (some with COUNT, UNTIL or EXDATE, some with an overridden instance).
 */
function buildFeed(today: Temporal.PlainDate): string {
  const random = createRandom(20261121);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//studio-website//bench//EN",
    "X-WR-TIMEZONE:Europe/Lisbon",
  ];
  const stamp = "DTSTAMP:20261101T000000Z";
  const singles = EVENT_COUNT - RECURRING_COUNT;
  for (let index = 0; index < singles; index++) {
    const date = today.add({ days: Math.floor(random() * 240) - 30 });
    const start = date.toPlainDateTime({
      hour: 8 + Math.floor(random() * 10),
      minute: pick([0, 15, 30, 45]),
    });
    const minutes = pick([30, 45, 60, 90, 120]);
    lines.push("BEGIN:VEVENT", `UID:single-${index}@bench`, stamp, `SUMMARY:Event ${index}`);
    const kind = random();
    if (kind < 0.05) {
      lines.push(
        `DTSTART;VALUE=DATE:${toIcsLocal(start).slice(0, 8)}`,
        `DTEND;VALUE=DATE:${toIcsLocal(start.add({ days: 1 })).slice(0, 8)}`,
      );
    } else if (kind < 0.35) {
      lines.push(
        `DTSTART;TZID=Europe/Lisbon:${toIcsLocal(start)}`,
        `DTEND;TZID=Europe/Lisbon:${toIcsLocal(start.add({ minutes }))}`,
      );
    } else if (kind < 0.45) {
      lines.push(
        `DTSTART;TZID=America/New_York:${toIcsLocal(start.subtract({ hours: 5 }))}`,
        `DURATION:PT${minutes}M`,
      );
    } else {
      const instant = start.toZonedDateTime(ZONE).toInstant();
      lines.push(
        `DTSTART:${toIcsUtc(instant)}`,
        `DTEND:${toIcsUtc(instant.add({ minutes }))}`,
      );
    }
    if (random() < 0.05) lines.push("TRANSP:TRANSPARENT");
    else if (random() < 0.03) lines.push("STATUS:CANCELLED");
    lines.push("END:VEVENT");
  }
  for (let index = 0; index < RECURRING_COUNT; index++) {
    const first = today.subtract({ days: Math.floor(random() * 365) });
    const start = first.toPlainDateTime({
      hour: 9 + Math.floor(random() * 8),
      minute: pick([0, 30]),
    });
    const uid = `weekly-${index}@bench`;
    lines.push(
      "BEGIN:VEVENT",
      `UID:${uid}`,
      stamp,
      `SUMMARY:Weekly ${index}`,
      `DTSTART;TZID=Europe/Lisbon:${toIcsLocal(start)}`,
      `DTEND;TZID=Europe/Lisbon:${toIcsLocal(start.add({ minutes: pick([30, 60]) }))}`,
    );
    const variant = index % 5;
    if (variant === 0) lines.push("RRULE:FREQ=WEEKLY;COUNT=80");
    else if (variant === 1) {
      lines.push(
        `RRULE:FREQ=WEEKLY;UNTIL=${
          toIcsUtc(today.add({ months: 6 }).toZonedDateTime(ZONE).toInstant())
        }`,
      );
    } else lines.push("RRULE:FREQ=WEEKLY");
    if (variant === 2) {
      lines.push(`EXDATE;TZID=Europe/Lisbon:${toIcsLocal(start.add({ weeks: 60 }))}`);
    }
    lines.push("END:VEVENT");
    if (variant === 3) {
      // One instance moved by an hour.
      const moved = start.add({ weeks: 56 });
      lines.push(
        "BEGIN:VEVENT",
        `UID:${uid}`,
        stamp,
        `RECURRENCE-ID;TZID=Europe/Lisbon:${toIcsLocal(moved)}`,
        `DTSTART;TZID=Europe/Lisbon:${toIcsLocal(moved.add({ hours: 1 }))}`,
        `DTEND;TZID=Europe/Lisbon:${toIcsLocal(moved.add({ hours: 2 }))}`,
        "END:VEVENT",
      );
    }
  }
  lines.push("END:VCALENDAR");
  return lines.join("\r\n") + "\r\n";
}

/** Writes 200 holds, evenly over the schedule's slots of the next four months, and a token. */
async function writeHolds(path: string, today: Temporal.PlainDate): Promise<void> {
  const candidates = buildCandidateSlots(
    DEFAULT_SCHEDULE,
    today.add({ days: 1 }),
    today.add({ months: 4 }),
    HOLIDAYS,
  );
  const stride = Math.floor(candidates.length / HOLD_COUNT);
  const kv = await Deno.openKv(path);
  try {
    for (let index = 0; index < HOLD_COUNT; index++) {
      const slot = candidates[index * stride];
      const hold: SlotHold = {
        bookingId: `bench-${index}`,
        startEpochMs: slot.startEpochMs,
        endEpochMs: slot.endEpochMs,
      };
      await kv.set([...SLOT_PREFIX, slot.startEpochMs], hold);
    }
    await kv.set(SLOTS_VERSION_KEY, crypto.randomUUID());
  } finally {
    kv.close();
  }
}

const today = Temporal.Now.plainDateISO(ZONE);
const month = today.toPlainYearMonth().add({ months: 1 }).toString();
const feed = buildFeed(today);
let feedRequests = 0;
let notModified = 0;
const feedTag = `"bench-${feed.length}"`;
const feedServer = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (request) => {
  feedRequests++;
  if (request.headers.get("If-None-Match") === feedTag) {
    notModified++;
    return new Response(null, { status: 304, headers: { ETag: feedTag } });
  }
  return new Response(feed, {
    headers: { "Content-Type": "text/calendar; charset=utf-8", ETag: feedTag },
  });
});
const feedUrl = `http://127.0.0.1:${feedServer.addr.port}/calendar/private-bench/basic.ics`;

const folder = await Deno.makeTempDir({ prefix: "studio-bench-" });
const kvPath = `${folder}/bench.kv`;
await writeHolds(kvPath, today);
const profile = profileFolder ? ["--cpu-prof", `--cpu-prof-dir=${profileFolder}`] : [];
const service = await startProcess(["run", "--allow-all", ...profile, "main.ts"], {
  PORT: "0",
  HOST: "127.0.0.1",
  STUDIO_KV_PATH: kvPath,
  STUDIO_BUSY_CALENDARS: feedUrl,
  STUDIO_LOG: "quiet", // the handler is measured, not the console
  STUDIO_RATE_LIMIT_READ: "1000000000",
});
try {
  const path = `/api/v1/booking/slots?month=${month}`;
  const check = await fetch(service.origin + path);
  if (check.status !== 200) {
    throw new Error(`${path} answered ${check.status}: ${await check.text()}`);
  }
  const body: { slots: Record<string, unknown[]> } = await check.json();
  const listed = Object.values(body.slots).flat().length;
  const [year, monthNumber] = month.split("-").map(Number);
  const first = Temporal.PlainDate.from({ year, month: monthNumber, day: 1 });
  const all = buildCandidateSlots(
    DEFAULT_SCHEDULE,
    first,
    first.add({ months: 1 }).subtract({ days: 1 }),
    HOLIDAYS,
  ).length;
  console.log(
    `Feed: ${EVENT_COUNT} events (${RECURRING_COUNT} weekly), ${
      (new TextEncoder().encode(feed).byteLength / 1024).toFixed(0)
    } KiB; ${HOLD_COUNT} holds; ${month}: ${listed} of ${all} slots listed, ${
      JSON.stringify(body).length
    } bytes`,
  );
  console.log(
    `GET ${path} vs GET /api/v1/health, wrk -c${connections} -d${seconds}s × ${rounds} rounds, Deno ${Deno.version.deno}`,
  );
  const [slots, health] = await compare([
    { label: `GET …/slots?month=${month}`, origin: service.origin, path, pid: service.pid },
    {
      label: "GET /api/v1/health",
      origin: service.origin,
      path: "/api/v1/health",
      pid: service.pid,
    },
  ], { seconds, rounds, connections });
  printRatio(slots, health, 20);
  console.log(
    `  feed asked ${feedRequests} times during the run, ${notModified} answered 304 (a live read per listing)`,
  );
} finally {
  await service.stop();
  await feedServer.shutdown();
  await Deno.remove(folder, { recursive: true });
}
