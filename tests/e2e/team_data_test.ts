/**
 * The desk's data actions end to end: the real server (`main.ts`, or the package's executable on
 * Node and Bun) over a real KV file, the real SMTP server, a member signed in by the link read
 * from the mailbox. The calendar feed's address is shown on the desk and serves the bookings;
 * renewing it revokes the old address. An address's data is exported as a JSON download and
 * erased (its upcoming booking's CANCEL delivered before the answer), after which no key or value
 * of the KV file holds the address, the desk's audit trail lists both actions and the operator's
 * `inbox` shows the erasure record.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ICAL from "ical.js";
import { runInbox, startServer } from "./_server.ts";
import { startSmtpServer } from "../_smtp.ts";
import { readInvite } from "../_booking.ts";
import { withKvFile } from "../_kv.ts";
import { findTraces, scanStore, tracesOf } from "../_personal_data.ts";
import {
  bookNextMonth,
  byKind,
  HTML,
  open,
  openDesk,
  post,
  receive,
  signInByMail,
} from "./_team.ts";

const MEMBER = "ana@studio.example";
const BASE_URL = "https://studio.example";
/** The person who asks for their data, then for its erasure; written in mixed case. */
const MARTA = { name: "Marta Erasmo", email: "Marta.Erasmo@Example.com" };
/** Another attendee, whose booking stays. */
const JOAO = { name: "João Pires", email: "joao@example.com" };

const folder = mkdtempSync(join(tmpdir(), "studio-team-data-"));
const kvPath = join(folder, "studio.kv");
const smtp = await startSmtpServer();
const server = await startServer({
  STUDIO_KV_PATH: kvPath,
  STUDIO_SMTP_URL: smtp.url,
  STUDIO_MAIL_FROM: "Studio <site@studio.example>",
  STUDIO_INBOX: "inbox@studio.example",
  STUDIO_TEAM: MEMBER,
  STUDIO_BASE_URL: BASE_URL,
  STUDIO_RATE_LIMIT_READ: "1000",
  STUDIO_RATE_LIMIT_WRITE: "1000",
});

after(async () => {
  await server.stop();
  await smtp.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** The booking e-mails' invites: each attendee's UID. */
const uids = new Map<string, string>();
let cookie = "";

/** Reads a feed at its URL (of the public origin) from the server, as a calendar app does. */
function fetchFeed(url: string): Promise<Response> {
  const { pathname, search } = new URL(url);
  return open(server, pathname + search, { headers: { "User-Agent": "Calendar/1.0" } });
}

/** The UIDs and STATUS of a feed's events, read by ical.js. */
function readFeed(text: string): Map<string, string> {
  const calendar = new ICAL.Component(ICAL.parse(text));
  return new Map(
    calendar.getAllSubcomponents("vevent").map((event) => [
      String(event.getFirstPropertyValue("uid")),
      String(event.getFirstPropertyValue("status")),
    ]),
  );
}

test("setup: two attendees book, one also sends an inquiry; a member signs in by the mailed link", async () => {
  for (const [index, person] of [MARTA, JOAO].entries()) {
    await bookNextMonth(server, { ...person, index });
    const [mail] = await receive(smtp, byKind("attendee-booked", person.email));
    uids.set(person.email, readInvite(mail, "REQUEST").uid);
  }
  const inquiry = await open(server, "/api/v1/contact", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      Name: MARTA.name,
      Email: MARTA.email.toUpperCase(),
      Message: "Could you also send me the notes of our call?",
    }),
  });
  assert.equal(inquiry.status, 200);
  await inquiry.body?.cancel();
  cookie = await signInByMail(server, smtp, { member: MEMBER, baseUrl: BASE_URL });
  assert.match(cookie, /^__Host-studio-team=[\w-]{43}$/);
});

test("the desk's calendar page shows the feed's URL, which serves the bookings; renewing it makes the old URL 404 and the new one serve them", async () => {
  const desk = await openDesk(server, cookie, "/en/team/calendar-feed");
  const shown = new RegExp(`<code>(${BASE_URL}/team/calendar\\.ics\\?key=[0-9a-f]{64})</code>`)
    .exec(desk.html)?.[1];
  assert.ok(shown, "the desk shows the feed's URL");
  const feed = await fetchFeed(shown);
  assert.equal(feed.status, 200);
  assert.equal(feed.headers.get("Content-Type"), "text/calendar; charset=utf-8");
  assert.equal(feed.headers.get("Cache-Control"), "private, no-cache");
  const events = readFeed(await feed.text());
  assert.deepEqual(
    [...events].sort(),
    [[uids.get(MARTA.email), "CONFIRMED"], [uids.get(JOAO.email), "CONFIRMED"]].sort(),
  );

  const renewed = await post(server, "/en/team/calendar-feed", { form_token: desk.token }, {
    Cookie: cookie,
    Origin: BASE_URL,
  });
  // POST, redirect, GET: the page shows the new address; a reload renews nothing again.
  assert.equal(renewed.status, 303);
  assert.equal(renewed.headers.get("Location"), "/en/team/calendar-feed?notice=feed-renewed");
  assert.equal(renewed.headers.get("Cache-Control"), "no-store");
  await renewed.body?.cancel();
  const page = await (await open(server, "/en/team/calendar-feed?notice=feed-renewed", {
    headers: { ...HTML, Cookie: cookie },
  })).text();
  const fresh = new RegExp(`<code>(${BASE_URL}/team/calendar\\.ics\\?key=[0-9a-f]{64})</code>`)
    .exec(page)?.[1];
  assert.ok(fresh && fresh !== shown, "the page shows a new URL");

  const old = await fetchFeed(shown);
  assert.equal(old.status, 404);
  assert.equal(old.headers.get("Content-Type"), "application/json");
  assert.equal((await old.json()).error.code, "not-found");
  const oldInBrowser = await open(server, new URL(shown).pathname + new URL(shown).search, {
    headers: HTML,
  });
  assert.equal(oldInBrowser.status, 404);
  assert.match(oldInBrowser.headers.get("Content-Type") ?? "", /^text\/html/);
  await oldInBrowser.body?.cancel();

  const current = await fetchFeed(fresh);
  assert.equal(current.status, 200);
  assert.equal(current.headers.get("Content-Type"), "text/calendar; charset=utf-8");
  assert.deepEqual([...readFeed(await current.text()).keys()].sort(), [...events.keys()].sort());
  const after = await openDesk(server, cookie, "/en/team/calendar-feed");
  assert.ok(after.html.includes(`<code>${fresh}</code>`), "the page shows the new URL");
  const audit = await openDesk(server, cookie, "/en/team/audit");
  assert.match(audit.html, /ana@studio\.example renewed the calendar secret/);
});

test("a member exports an address's data as a JSON download, then erases it: the CANCEL arrives first, the KV file keeps no trace, the audit trail and the inbox show the erasure", async () => {
  // Someone types Marta's address into the sign-in form: counted, like any address.
  const asked = await post(server, "/en/team/link", { email: MARTA.email });
  assert.equal(asked.status, 200);
  await asked.body?.cancel();
  const desk = await openDesk(server, cookie);
  const exported = await post(server, "/en/team/personal-data", {
    form_token: desk.token,
    action: "export",
    email: ` ${MARTA.email} `,
  }, { Cookie: cookie, Origin: BASE_URL });
  assert.equal(exported.status, 200);
  assert.equal(exported.headers.get("Content-Type"), "application/json; charset=utf-8");
  assert.match(
    exported.headers.get("Content-Disposition") ?? "",
    /^attachment; filename="personal-data-marta\.erasmo-example\.com-\d{4}-\d{2}-\d{2}\.json"$/,
  );
  assert.equal(exported.headers.get("Cache-Control"), "no-store");
  const document = await exported.json();
  assert.equal(document.kind, "personal-data-export");
  assert.equal(document.address, MARTA.email.toLowerCase());
  assert.deepEqual(
    document.inquiries.map((inquiry: { fields: { Name: string } }) => inquiry.fields.Name),
    [MARTA.name],
  );
  assert.deepEqual(
    document.bookings.map((booking: { uid: string; status: string }) => [
      booking.uid,
      booking.status,
    ]),
    [[uids.get(MARTA.email), "accepted"]],
  );
  assert.ok(document.mail.length >= 2, "the booking's and the inquiry's e-mail are listed");
  assert.deepEqual(document.quota.map((day: { bookings: number }) => day.bookings), [1]);
  assert.deepEqual(
    document.signInRequests.map((window: { requests: number }) => window.requests),
    [1],
  );

  const traces = await tracesOf(MARTA);
  const scanBefore = await withKvFile(kvPath, scanStore);
  assert.ok(findTraces(scanBefore, traces).length >= 6, "the scan sees Marta's records");

  const isCancel = byKind("attendee-cancelled", MARTA.email);
  assert.equal(smtp.messages.filter(isCancel).length, 0);
  const erased = await post(server, "/en/team/personal-data", {
    form_token: desk.token,
    action: "erase",
    email: MARTA.email.toLowerCase(),
    confirm: "yes",
  }, { Cookie: cookie, Origin: BASE_URL });
  assert.equal(erased.status, 200);
  const erasedPage = await erased.text();
  assert.match(erasedPage, /<h1>Data erased<\/h1>/);
  assert.match(erasedPage, /inquiries: 1, bookings: 1, cancelledBookings: 1/);
  // Delivered before the erasure answered, not later.
  const [cancelMail] = smtp.messages.filter(isCancel);
  assert.ok(cancelMail, "the CANCEL reached the mail server before the erasure's answer");
  const cancel = readInvite(cancelMail, "CANCEL");
  assert.equal(cancel.uid, uids.get(MARTA.email));

  for (const path of ["/en/team", "/en/team/bookings", "/en/team/inquiries", "/en/team/audit"]) {
    const page = await openDesk(server, cookie, path);
    assert.doesNotMatch(page.html.toLowerCase(), /marta/, path);
  }
  const deskAfter = await openDesk(server, cookie, "/en/team/audit");
  assert.match(deskAfter.html, /ana@studio\.example exported the data of an address/);
  assert.match(deskAfter.html, /ana@studio\.example erased the data of an address/);
  const calendar = await openDesk(server, cookie, "/en/team/calendar-feed");
  const feedUrl = /<code>(https:\/\/studio\.example\/team\/calendar\.ics\?key=\w+)<\/code>/
    .exec(calendar.html)?.[1];
  assert.ok(feedUrl);
  const feed = await fetchFeed(feedUrl);
  assert.deepEqual([...readFeed(await feed.text()).keys()], [uids.get(JOAO.email)]);

  await server.stop();
  const scan = await withKvFile(kvPath, scanStore);
  assert.deepEqual(findTraces(scan, traces), [], "no key or value holds Marta");
  assert.ok(findTraces(scan, await tracesOf(JOAO)).length >= 2, "João's records are there");

  const inbox = await runInbox(kvPath);
  assert.equal(inbox.code, 0, inbox.stderr);
  assert.match(
    inbox.stdout,
    /Erasures of personal data, newest first:\n\n\S+Z {2}[0-9A-Z]{26} {2}by ana@studio\.example\n {2}erased: {3}inquiries 1, bookings 1, cancelledBookings 1, queuedMail \d+, deliveryRecords \d+, quotaRecords 2, idempotencyRecords 0\n1 erasure\n/,
  );
  assert.doesNotMatch(inbox.stdout.toLowerCase(), /marta/);
});
