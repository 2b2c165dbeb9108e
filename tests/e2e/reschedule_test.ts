/**
 * Rescheduling on the real server (`main.ts` on Deno, the package's executable on Node and Bun)
 * with the real SMTP server: the attendee (or an agent reading the e-mail's text part) opens the
 * plain link of the booking e-mail (following its 303 with the cookie it sets), reads the free
 * times from the page's form and posts one to the signed URL; both
 * sides receive a METHOD:REQUEST with the same UID and SEQUENCE + 1 (read with ical.js). Forged
 * and expired links are refused, and two attendees moving to one slot at once from two processes
 * on one KV file: exactly one wins.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, startServer } from "./_server.ts";
import { startSmtpServer, type TestSmtpServer } from "../_smtp.ts";
import {
  buildBookingBody,
  findRescheduleLink,
  openSignedLink,
  readInvite,
  sendTo,
} from "../_booking.ts";
import { receiveMail } from "./_booking_mail.ts";
import { CORPUS, leadOf, nextMonth } from "./_studio.ts";

const INBOX = "inbox@studio.example";
/** The public origin: links in e-mails point there. */
const BASE_URL = "https://studio.example";

function buildEnv(kvPath: string, smtp: TestSmtpServer): Record<string, string> {
  return {
    STUDIO_KV_PATH: kvPath,
    STUDIO_SMTP_URL: smtp.url,
    STUDIO_MAIL_FROM: "Studio <site@studio.example>",
    STUDIO_INBOX: INBOX,
    STUDIO_BASE_URL: BASE_URL,
    STUDIO_RATE_LIMIT_READ: "1000",
    STUDIO_RATE_LIMIT_WRITE: "1000",
    STUDIO_RATE_LIMIT_BOOKING: "1000",
    STUDIO_LOG: "quiet",
  };
}

const delay = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** The free starts of next month (the real clock's), from the API. */
async function listStarts(server: RunningServer): Promise<string[]> {
  const month = nextMonth();
  const response = await fetch(`${server.origin}/api/v1/booking/slots?month=${month}`);
  assert.equal(response.status, 200);
  const body: { slots: Record<string, Array<{ start: string }>> } = await response.json();
  return Object.values(body.slots).flat().map((slot) => slot.start);
}

async function book(server: RunningServer, start: string, email: string): Promise<void> {
  const response = await fetch(`${server.origin}/api/v1/booking`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(buildBookingBody(start, { email, locale: "en" })),
  });
  const text = await response.text();
  assert.equal(response.status, 201, text);
}

/**
 * Follows a link of an e-mail on the test server (the link names the public origin) as a client
 * with cookies would: GET (the link's 303 followed with its cookie), or POST of a form to the
 * signed URL.
 */
async function follow(
  server: RunningServer,
  link: string,
  form?: Record<string, string>,
): Promise<{ status: number; html: string }> {
  const url = new URL(link, BASE_URL);
  assert.equal(url.origin, BASE_URL, "links point at STUDIO_BASE_URL");
  const response = form
    ? await fetch(server.origin + url.pathname + url.search, {
      method: "POST",
      body: new URLSearchParams(form),
    })
    : await openSignedLink(sendTo(server.origin), link);
  assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
  return { status: response.status, html: await response.text() };
}

/** What a client reads from the page: the form's action and the starts it offers. */
function readForm(html: string): { action: string; starts: string[] } {
  const action = /<form method="post" action="([^"]+)" class="booking-form">/.exec(html)?.[1];
  assert.ok(action, "the page holds a form");
  const starts = [...html.matchAll(/<input type="radio" name="start" value="([^"]+)"/g)]
    .map((match) => match[1]);
  return { action: action.replaceAll("&amp;", "&"), starts };
}

test("main.ts: an attendee reschedules by the e-mail's link and both sides receive a REQUEST with the same UID and SEQUENCE + 1", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-reschedule-"));
  const smtp = await startSmtpServer();
  const server = await startServer(buildEnv(join(folder, "studio.kv"), smtp));
  try {
    const [start] = await listStarts(server);
    assert.ok(start, "next month has free times");
    const email = "mover@example.org";
    await book(server, start, email);
    const booked = await receiveMail(smtp, "attendee-booked", email);
    const uid = readInvite(booked, "REQUEST").uid;
    assert.equal(readInvite(await receiveMail(smtp, "studio-new", email), "REQUEST").uid, uid);
    // The link is a plain URL in the text part, as an agent reading the e-mail finds it.
    const link = findRescheduleLink(booked);
    assert.ok(link, "the attendee's e-mail carries a reschedule link");

    const page = await follow(server, link);
    assert.equal(page.status, 200);
    const { action, starts } = readForm(page.html);
    assert.ok(!starts.includes(start), "the booking's own time is not offered");
    const target = starts[starts.length - 1];
    assert.ok(target, "free times are offered");
    await delay(500);
    assert.equal(smtp.messages.length, 2, "the GET sent nothing");
    assert.ok(!(await listStarts(server)).includes(start), "the GET changed nothing");

    const moved = await follow(server, action, { start: target });
    assert.equal(moved.status, 200, moved.html);
    assert.match(moved.html, /Done: the conversation has moved to/);
    const attendee = await receiveMail(smtp, "attendee-moved", email);
    const studio = await receiveMail(smtp, "studio-moved", email);
    for (const mail of [attendee, studio]) {
      const invite = readInvite(mail, "REQUEST");
      assert.equal(invite.uid, uid, "the same UID");
      assert.equal(invite.sequence, 1, "SEQUENCE + 1");
      assert.equal(invite.startEpochMs, Date.parse(target), "at the new time");
    }
    const listed = await listStarts(server);
    assert.ok(listed.includes(start) && !listed.includes(target), "old freed, new held");

    // The first e-mail's link has expired; a forged one never worked.
    assert.equal((await follow(server, link)).status, 410);
    assert.equal((await follow(server, link, { start })).status, 410);
    const forged = link.replace(/sig=(.)/, (_, char) => `sig=${char === "A" ? "B" : "A"}`);
    assert.equal((await follow(server, forged)).status, 403);
    assert.equal((await follow(server, forged, { start })).status, 403);
    const latest = findRescheduleLink(attendee);
    assert.ok(latest && latest !== link, "the new e-mail carries the new link");
    assert.equal((await follow(server, latest)).status, 200);
    await delay(500);
    assert.equal(smtp.messages.length, 4, "no e-mail for a refused link");
  } finally {
    await server.stop();
    await smtp.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

test("main.ts in two processes on one KV file: two attendees moving to one slot at once, exactly one wins", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-reschedule-"));
  const kvPath = join(folder, "studio.kv");
  const smtp = await startSmtpServer();
  const servers = await Promise.all([
    startServer(buildEnv(kvPath, smtp)),
    startServer(buildEnv(kvPath, smtp)),
  ]);
  try {
    const starts = await listStarts(servers[0]);
    const emails = ["first@example.org", "second@example.org"];
    await book(servers[0], starts[0], emails[0]);
    await book(servers[1], starts[1], emails[1]);
    const links = await Promise.all(emails.map(async (email) => {
      const link = findRescheduleLink(await receiveMail(smtp, "attendee-booked", email));
      assert.ok(link);
      return link;
    }));
    const target = starts[2];
    const answers = await Promise.all(
      links.map((link, index) => follow(servers[index], link, { start: target })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, 409], "exactly one moves");
    const loser = answers.find((answer) => answer.status === 409);
    // The booking's language (English) says the time was taken.
    assert.ok((loser?.html ?? "").includes(leadOf(CORPUS.languages.en.booking.conflict)));
    assert.ok(!readForm(loser?.html ?? "").starts.includes(target), "the times are re-listed");
    const winner = emails[answers.findIndex((answer) => answer.status === 200)];
    const invite = readInvite(await receiveMail(smtp, "attendee-moved", winner), "REQUEST");
    assert.equal(invite.startEpochMs, Date.parse(target));
    await delay(500);
    assert.equal(smtp.messages.length, 6, "two bookings and one move, two e-mails each");
    const listed = await listStarts(servers[1]);
    assert.ok(!listed.includes(target), "the slot is held");
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await smtp.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
