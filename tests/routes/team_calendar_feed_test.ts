import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import ICAL from "ical.js";
import { createSmtpMailer } from "../../adapters/smtp_mailer.ts";
import type { ErrorResponseBody } from "../../lib/contract/api_error.ts";
import {
  buildFeedUrl,
  readOrCreateFeedSecret,
  renewFeedSecret,
} from "../../lib/team/calendar_feed.ts";
import { createMemoryStore } from "../../testing.ts";
import { findLink, readInvite } from "../_booking.ts";
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from "../_smtp.ts";
import { buildRequest, fromAddress } from "../_support.ts";
import { book, createStudioApp, INBOX, listSlots, type StudioApp } from "../_studio_app.ts";

let smtp: TestSmtpServer;
let mailer: ReturnType<typeof createSmtpMailer>;
const apps: StudioApp[] = [];

before(async () => {
  smtp = await startSmtpServer();
  mailer = createSmtpMailer(smtp.url, { timeoutSeconds: 5 });
});

after(async () => {
  for (const app of apps) await app.outbox.stop();
  mailer.close();
  await smtp.stop();
});

/** What a calendar app reads of one VEVENT. */
interface FeedEvent {
  uid: string;
  sequence: number;
  status: string;
  summary: string;
  startEpochMs: number;
  tzid: string | null;
  attendee: string;
  partstat: string | null;
}

/** Parses a feed with ical.js, as a calendar app would. */
function readFeed(text: string): { events: FeedEvent[]; timeZones: string[]; name: string } {
  const calendar = new ICAL.Component(ICAL.parse(text));
  assert.equal(calendar.name, "vcalendar");
  assert.equal(calendar.getFirstPropertyValue("method"), null, "a feed, not an iTIP message");
  const events = calendar.getAllSubcomponents("vevent").map((event): FeedEvent => {
    const start = event.getFirstProperty("dtstart");
    const attendee = event.getFirstProperty("attendee");
    assert.ok(start && attendee);
    const value = start.getFirstValue();
    assert.ok(value instanceof ICAL.Time);
    const tzid = start.getParameter("tzid");
    const partstat = attendee.getParameter("partstat");
    return {
      uid: String(event.getFirstPropertyValue("uid")),
      sequence: Number(event.getFirstPropertyValue("sequence")),
      status: String(event.getFirstPropertyValue("status")),
      summary: String(event.getFirstPropertyValue("summary")),
      startEpochMs: value.toUnixTime() * 1000,
      tzid: typeof tzid === "string" ? tzid : null,
      attendee: String(attendee.getFirstValue()),
      partstat: typeof partstat === "string" ? partstat : null,
    };
  });
  return {
    events,
    timeZones: calendar.getAllSubcomponents("vtimezone").map((zone) =>
      String(zone.getFirstPropertyValue("tzid"))
    ),
    name: String(calendar.getFirstPropertyValue("x-wr-calname")),
  };
}

/** `GET` of a path with `Accept`, as a client at 192.0.2.44 sends it. */
function get(app: StudioApp, path: string, headers: Record<string, string> = {}) {
  return app.handler(buildRequest(path, { headers }), fromAddress("192.0.2.44"));
}

/** The path and query of the feed's address for `secret`. */
function feedPath(app: StudioApp, secret: string): string {
  const url = new URL(buildFeedUrl(app.services.baseUrl, secret));
  return url.pathname + url.search;
}

/** Asserts the 404 ErrorResponse of an unknown key, as a calendar app gets it. */
async function assertNotFound(response: Response): Promise<void> {
  assert.equal(response.status, 404);
  assert.equal(response.headers.get("Content-Type"), "application/json");
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.equal(response.headers.get("X-Robots-Tag"), "noindex");
  const body: ErrorResponseBody = await response.json();
  assert.equal(body.ok, false);
  assert.equal(body.error.code, "not-found");
  assert.match(body.error.hint, /desk/);
  assert.equal(body.error.docs, "http://localhost:8000/openapi.json");
}

/** The studio's notice of a booking by `name`, once it arrived. */
async function studioNotice(name: string): Promise<ReceivedMail> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const found = smtp.messages.find((mail) =>
      mail.envelopeTo.includes(INBOX) && (mail.parsed.subject ?? "").includes(name) &&
      (mail.parsed.subject ?? "").startsWith("Nova conversa")
    );
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`No studio notice for ${name}`);
}

/** Opens a signed link's POST, as the team's button does; asserts its 200 page. */
async function follow(app: StudioApp, link: string): Promise<void> {
  const url = new URL(link);
  const response = await app.handler(
    buildRequest(url.pathname + url.search, { method: "POST" }),
    fromAddress("192.0.2.44"),
  );
  assert.equal(response.status, 200, await response.clone().text());
  await response.body?.cancel();
}

test("GET /team/calendar.ics serves accepted and pending bookings with the invites' UIDs, and 404 once its key is renewed", async () => {
  const app = createStudioApp(createMemoryStore(), mailer, { confirmation: "manual" });
  apps.push(app);
  const december = await listSlots(app, "2026-12");
  const [accepted, pending, cancelled] = [december[0], december[3], december[6]];
  await book(app, accepted, { name: "Ana Feed", email: "ana.feed@example.pt" });
  await book(app, pending, { name: "Bruno Feed", email: "bruno.feed@example.pt" });
  await book(app, cancelled, { name: "Carla Feed", email: "carla.feed@example.pt" });
  const [anaNotice, brunoNotice, carlaNotice] = await Promise.all(
    ["Ana Feed", "Bruno Feed", "Carla Feed"].map(studioNotice),
  );
  await follow(app, findLink(anaNotice, "confirm"));
  await follow(app, findLink(carlaNotice, "cancel"));
  const anaInvite = readInvite(anaNotice, "REQUEST");
  const brunoInvite = readInvite(brunoNotice, "REQUEST");

  // No key was ever made: every address is unknown.
  await assertNotFound(await get(app, "/team/calendar.ics?key=0", { Accept: "text/calendar" }));
  await assertNotFound(await get(app, "/team/calendar.ics"));

  const secret = await readOrCreateFeedSecret(app.services);
  assert.match(secret, /^[0-9a-f]{64}$/);
  assert.equal(await readOrCreateFeedSecret(app.services), secret, "kept");
  assert.equal(
    buildFeedUrl(app.services.baseUrl, secret),
    `http://localhost:8000/team/calendar.ics?key=${secret}`,
  );
  const response = await get(app, feedPath(app, secret), { Accept: "text/calendar" });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "text/calendar; charset=utf-8");
  assert.equal(response.headers.get("Cache-Control"), "private, no-cache");
  assert.equal(response.headers.get("X-Robots-Tag"), "noindex");
  const etag = response.headers.get("ETag");
  assert.ok(etag);
  const text = await response.text();
  const feed = readFeed(text);
  assert.equal(feed.name, "Conversas do estúdio");
  assert.deepEqual(feed.timeZones, ["Europe/Lisbon"]);
  assert.match(text, /REFRESH-INTERVAL;VALUE=DURATION:PT15M/);
  const byUid = new Map(feed.events.map((event) => [event.uid, event]));
  assert.equal(feed.events.length, 2, "the cancelled booking is left out");
  const ana = byUid.get(anaInvite.uid);
  const bruno = byUid.get(brunoInvite.uid);
  assert.ok(ana && bruno, "the UIDs of the invites");
  assert.deepEqual(
    [ana.status, ana.partstat, ana.sequence, ana.startEpochMs, ana.tzid],
    ["CONFIRMED", "ACCEPTED", 0, Date.parse(accepted), "Europe/Lisbon"],
  );
  assert.deepEqual(
    [bruno.status, bruno.partstat, bruno.sequence, bruno.startEpochMs],
    ["TENTATIVE", "NEEDS-ACTION", 0, Date.parse(pending)],
  );
  assert.equal(ana.attendee.toLowerCase(), "mailto:ana.feed@example.pt");
  assert.match(bruno.summary, /^A confirmar: conversa com Bruno Feed$/);

  // A calendar app polling with the ETag gets 304 while nothing changed.
  const again = await get(app, feedPath(app, secret), { "If-None-Match": etag });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), "");
  assert.equal(again.headers.get("ETag"), etag);

  const renewed = await renewFeedSecret(app.services);
  assert.notEqual(renewed, secret);
  await assertNotFound(await get(app, feedPath(app, secret), { Accept: "*/*" }));
  const page = await get(app, feedPath(app, secret), { Accept: "text/html,*/*;q=0.8" });
  assert.equal(page.status, 404);
  assert.equal(page.headers.get("Content-Type"), "text/html; charset=utf-8");
  assert.match(await page.text(), /<html/);
  const current = await get(app, feedPath(app, renewed));
  assert.equal(current.status, 200);
  assert.equal(current.headers.get("ETag"), etag, "the same bookings, the same feed");
  await current.body?.cancel();

  // Past its 48-hour hold, the pending request has lapsed and leaves the feed.
  app.clock.advance({ hours: 49 });
  const later = await get(app, feedPath(app, renewed));
  assert.notEqual(later.headers.get("ETag"), etag);
  assert.deepEqual(readFeed(await later.text()).events.map((event) => event.uid), [anaInvite.uid]);
});
