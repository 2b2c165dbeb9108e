import { test } from "node:test";
import assert from "node:assert/strict";
import { withKvFile } from "../_kv.ts";
import { createErrorReader } from "../_support.ts";
import type { KvKey, Store } from "../../lib/store/store.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, startServer } from "./_server.ts";
import { startSmtpServer, type TestSmtpServer } from "../_smtp.ts";
import {
  buildBookingBody,
  findLink,
  findLinks,
  hasCalendar,
  openSignedLink,
  type ParsedInvite,
  readInvite,
  sendTo,
} from "../_booking.ts";
import { findMails, receiveMail } from "./_booking_mail.ts";
import { listStudioMonths, MEETING_MILLISECONDS, MEETING_MINUTES, STUDIO_ZONE } from "./_studio.ts";

const INBOX = "inbox@studio.example";
const MAIL_FROM = "Studio <site@studio.example>";
const STUDIO_ADDRESS = "site@studio.example";
/** The public origin: links in e-mails point there, and it is the one allowed Origin. */
const BASE_URL = "https://studio.example";
const readError = createErrorReader(`${BASE_URL}/openapi.json`);
const DEFAULT_POLICY = '"write";q=10;w=60, "booking";q=5;w=300';
/** Just over the outbox's poll interval of 5 s: a message sent twice would show up by now. */
const POLL_MARGIN_MILLISECONDS = 5500;

function buildEnv(
  kvPath: string,
  smtp: TestSmtpServer,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    STUDIO_KV_PATH: kvPath,
    STUDIO_SMTP_URL: smtp.url,
    STUDIO_MAIL_FROM: MAIL_FROM,
    STUDIO_INBOX: INBOX,
    STUDIO_BASE_URL: BASE_URL,
    STUDIO_RATE_LIMIT_READ: "1000",
    ...extra,
  };
}

const RAISED = { STUDIO_RATE_LIMIT_WRITE: "1000", STUDIO_RATE_LIMIT_BOOKING: "1000" };

const delay = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Every listed start from next month to six months ahead, in time order. */
async function listAllSlots(server: RunningServer): Promise<string[]> {
  const starts: string[] = [];
  for (const month of listStudioMonths(6).slice(1)) {
    starts.push(...await listMonth(server, month));
  }
  return starts;
}

async function listMonth(server: RunningServer, month: string): Promise<string[]> {
  const response = await fetch(`${server.origin}/api/v1/booking/slots?month=${month}`);
  assert.equal(response.status, 200);
  const body: { timeZone: string; slots: Record<string, Array<{ start: string }>> } = await response
    .json();
  assert.equal(body.timeZone, STUDIO_ZONE);
  return Object.values(body.slots).flat().map((slot) => slot.start);
}

function monthOf(start: string): string {
  return start.slice(0, 7);
}

function book(
  server: RunningServer,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.origin}/api/v1/booking`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

async function readCreated(
  response: Response,
  status: "accepted" | "pending",
  start: string,
): Promise<void> {
  assert.equal(response.status, 201, await response.clone().text());
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.equal(response.headers.get("API-Version"), "1");
  assert.deepEqual(await response.json(), { ok: true, status, start });
}

/** Asserts what the invite says about a booking at `start` for `email`. */
function assertInvite(
  invite: ParsedInvite,
  expected: { start: string; email: string; sequence: number },
): void {
  assert.equal(invite.eventCount, 1);
  assert.match(invite.uid, /^booking-[0-9A-Z]{26}@studio\.example$/);
  assert.equal(invite.sequence, expected.sequence);
  assert.equal(invite.startTzid, STUDIO_ZONE);
  assert.equal(invite.endTzid, STUDIO_ZONE);
  assert.equal(invite.startEpochMs, Date.parse(expected.start), "DTSTART is the booked instant");
  assert.equal(invite.endEpochMs - invite.startEpochMs, MEETING_MILLISECONDS);
  assert.equal(invite.organizer.toLowerCase(), `mailto:${STUDIO_ADDRESS}`);
  assert.equal(invite.attendee.toLowerCase(), `mailto:${expected.email}`);
  assert.equal(invite.attendeeRsvp, "TRUE");
}

/** The page behind a signed link, on the test server instead of the public origin. */
async function openLink(
  server: RunningServer,
  link: string,
  method: "GET" | "POST",
): Promise<{ status: number; html: string }> {
  const url = new URL(link);
  assert.equal(url.origin, BASE_URL, "links point at STUDIO_BASE_URL");
  // A GET follows the exchange's 303 with its cookie, as a browser does.
  const response = method === "GET"
    ? await openSignedLink(sendTo(server.origin), link)
    : await fetch(server.origin + url.pathname + url.search, { method });
  assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
  return { status: response.status, html: await response.text() };
}

async function countKeys(kv: Store, prefix: KvKey): Promise<number> {
  let count = 0;
  for await (const _ of kv.list({ prefix })) count++;
  return count;
}

test("main.ts books listed slots in winter and summer time, e-mails both sides the invite, and answers 409 to a repeat", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-booking-"));
  const smtp = await startSmtpServer();
  const server = await startServer(buildEnv(join(folder, "studio.kv"), smtp));
  try {
    const slots = await listAllSlots(server);
    assert.ok(slots.length > 0, "next month's listing is not empty");
    // One slot in each of the zone's offsets (winter and summer time) that the real clock's
    // window offers; each listed start carries the zone's offset at that instant.
    const offsetOf = (start: string) => start.slice(-6);
    for (const start of slots) {
      assert.equal(
        offsetOf(start),
        Temporal.Instant.from(start).toZonedDateTimeISO(STUDIO_ZONE).offset,
        `${start} is written with ${STUDIO_ZONE}'s offset`,
      );
    }
    const bySeason = [...new Set(slots.map(offsetOf))].map((offset) => ({
      season: offset.replace("+", "plus").replace("-", "minus").replace(":", ""),
      start: slots.find((start) => offsetOf(start) === offset) ?? "",
    }));
    assert.ok(bySeason.length >= 1 && bySeason.length <= 2, JSON.stringify(bySeason));
    const booked: Array<{ start: string; email: string; locale: "pt" | "en" }> = [];
    for (const [index, { season, start }] of bySeason.entries()) {
      const email = `ana.${season}@example.pt`;
      const locale = index % 2 ? "pt" : "en";
      const response = await book(
        server,
        buildBookingBody(start, { email, locale }),
        index % 2 ? {} : { Origin: BASE_URL },
      );
      assert.equal(response.headers.get("RateLimit-Policy"), DEFAULT_POLICY);
      assert.equal(response.headers.get("RateLimit-Remaining"), String(4 - index));
      await readCreated(response, "accepted", start);
      booked.push({ start, email, locale });
    }

    for (const { start, email, locale } of booked) {
      const attendee = await receiveMail(smtp, "attendee-booked", email);
      const studio = await receiveMail(smtp, "studio-new", email);
      assert.equal(attendee.envelopeFrom, STUDIO_ADDRESS);
      assert.deepEqual(attendee.parsed.replyTo, [{ address: INBOX, name: "" }]);
      const attendeeInvite = readInvite(attendee, "REQUEST");
      const studioInvite = readInvite(studio, "REQUEST");
      assertInvite(attendeeInvite, { start, email, sequence: 0 });
      assertInvite(studioInvite, { start, email, sequence: 0 });
      assert.equal(attendeeInvite.uid, studioInvite.uid);
      // The summary names the schedule's meeting length.
      const summaryPt = new RegExp(`^Conversa de ${MEETING_MINUTES} minutos`);
      assert.match(
        attendeeInvite.summary,
        locale === "en"
          ? new RegExp(`^${MEETING_MINUTES}-minute conversation with the studio`)
          : summaryPt,
      );
      assert.match(studioInvite.summary, summaryPt);
      const cancel = new URL(findLink(attendee, "cancel"));
      assert.equal(cancel.origin, BASE_URL);
    }
    assert.equal(smtp.messages.length, 2 * booked.length);

    const [first] = booked;
    const again = await book(server, buildBookingBody(first.start, { email: "late@example.pt" }));
    await readError(again, 409, "validation-failed");
    const foreign = await book(server, buildBookingBody(first.start), {
      Origin: "https://evil.example",
    });
    await readError(foreign, 403, "validation-failed");
    for (const { start } of booked) {
      assert.ok(!(await listMonth(server, monthOf(start))).includes(start), `${start} is taken`);
    }
    await delay(300);
    assert.equal(smtp.messages.length, 2 * booked.length, "no e-mail for a refused booking");
  } finally {
    await server.stop();
    await smtp.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

test("main.ts answers 413 bad-form to a 1 MiB booking body, with Content-Length or chunked", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-booking-"));
  const smtp = await startSmtpServer();
  const server = await startServer(buildEnv(join(folder, "studio.kv"), smtp, RAISED));
  const mebibyte = 1024 * 1024;
  try {
    const declared = await fetch(`${server.origin}/api/v1/booking`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: new Uint8Array(mebibyte).fill(0x20),
    });
    await readError(declared, 413, "bad-form");
    let sent = 0;
    const streamed: RequestInit & { duplex: "half" } = {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      // Node's fetch requires the half-duplex mode for a stream body.
      duplex: "half",
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= mebibyte) return controller.close();
          sent += 16 * 1024;
          controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
        },
      }),
    };
    const chunked = await fetch(`${server.origin}/api/v1/booking`, streamed);
    await readError(chunked, 413, "bad-form");
    const health = await fetch(`${server.origin}/api/v1/health`);
    assert.equal(health.status, 200, "the server is still serving");
    await health.body?.cancel();
    assert.equal(smtp.messages.length, 0);
  } finally {
    await server.stop();
    await smtp.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

test("main.ts in manual mode: confirm sends the invite; cancel and decline send METHOD:CANCEL and free the slot", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-booking-"));
  const smtp = await startSmtpServer();
  const server = await startServer(
    buildEnv(join(folder, "studio.kv"), smtp, { ...RAISED, STUDIO_CONFIRMATION: "manual" }),
  );
  try {
    const [first, second] = await listAllSlots(server);
    assert.ok(first && second, "two listed slots");

    // Booked, pending: the attendee is told it awaits confirmation, the studio gets the links.
    const email = "manual@example.pt";
    await readCreated(
      await book(server, buildBookingBody(first, { email, locale: "en" })),
      "pending",
      first,
    );
    const pending = await receiveMail(smtp, "attendee-pending", email);
    assert.match(pending.parsed.subject ?? "", /awaiting confirmation/);
    assert.equal(hasCalendar(pending), false);
    const studio = await receiveMail(smtp, "studio-new", email);
    const studioInvite = readInvite(studio, "REQUEST");
    assertInvite(studioInvite, { start: first, email, sequence: 0 });
    assert.deepEqual(Object.keys(findLinks(studio)).sort(), ["cancel", "confirm", "decline"]);
    assert.ok(!(await listMonth(server, monthOf(first))).includes(first), "pending holds");

    // The link opens a page; only its POST confirms.
    const confirmLink = findLink(studio, "confirm");
    const page = await openLink(server, confirmLink, "GET");
    assert.equal(page.status, 200);
    const signed = new URL(confirmLink);
    assert.ok(
      page.html.includes(
        `<form method="post" action="${
          (signed.pathname + signed.search).replaceAll("&", "&amp;")
        }" class="action-form">`,
      ),
      "the form posts to the signed link",
    );
    await delay(200);
    assert.equal(findMails(smtp, "attendee-booked", email).length, 0, "GET sends nothing");
    const forged = await openLink(
      server,
      confirmLink.replace(/sig=(.)/, (_, char) => `sig=${char === "A" ? "B" : "A"}`),
      "POST",
    );
    assert.equal(forged.status, 403);
    const confirmed = await openLink(server, confirmLink, "POST");
    assert.equal(confirmed.status, 200);
    const invited = await receiveMail(smtp, "attendee-booked", email);
    const invite = readInvite(invited, "REQUEST");
    assertInvite(invite, { start: first, email, sequence: 0 });
    assert.equal(invite.uid, studioInvite.uid);
    const replayed = await openLink(server, confirmLink, "POST");
    assert.equal(replayed.status, 200);
    assert.match(replayed.html, /já estava confirmada/);

    // The attendee cancels: CANCEL with a higher SEQUENCE to both sides, and the slot is free.
    const cancelled = await openLink(server, findLink(invited, "cancel"), "POST");
    assert.equal(cancelled.status, 200);
    const attendeeCancel = readInvite(
      await receiveMail(smtp, "attendee-cancelled", email),
      "CANCEL",
    );
    const studioCancel = readInvite(await receiveMail(smtp, "studio-cancelled", email), "CANCEL");
    for (const cancel of [attendeeCancel, studioCancel]) {
      assertInvite(cancel, { start: first, email, sequence: 1 });
      assert.equal(cancel.uid, invite.uid);
      assert.equal(cancel.status, "CANCELLED");
    }
    assert.ok((await listMonth(server, monthOf(first))).includes(first), "cancel frees the slot");

    // Another request, declined: the studio's hold is cancelled, the attendee gets a notice.
    const other = "declined@example.pt";
    await readCreated(
      await book(server, buildBookingBody(second, { email: other })),
      "pending",
      second,
    );
    await receiveMail(smtp, "attendee-pending", other);
    const studioNew = await receiveMail(smtp, "studio-new", other);
    const declined = await openLink(server, findLink(studioNew, "decline"), "POST");
    assert.equal(declined.status, 200);
    const notice = await receiveMail(smtp, "attendee-declined", other);
    assert.equal(hasCalendar(notice), false, "no invite went out to the attendee");
    const hold = readInvite(await receiveMail(smtp, "studio-cancelled", other), "CANCEL");
    assertInvite(hold, { start: second, email: other, sequence: 1 });
    assert.equal(hold.uid, readInvite(studioNew, "REQUEST").uid);
    assert.ok((await listMonth(server, monthOf(second))).includes(second), "decline frees it");
    assert.equal(smtp.messages.length, 9);
  } finally {
    await server.stop();
    await smtp.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

test("main.ts in two processes on one KV file gives one 201 and 49 × 409 to 50 simultaneous bookings, and one pair of e-mails", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-booking-"));
  const kvPath = join(folder, "studio.kv");
  const smtp = await startSmtpServer();
  const servers = await Promise.all([
    startServer(buildEnv(kvPath, smtp, RAISED)),
    startServer(buildEnv(kvPath, smtp, RAISED)),
  ]);
  try {
    const [start] = await listAllSlots(servers[0]);
    assert.ok(start);
    assert.ok((await listMonth(servers[1], monthOf(start))).includes(start));
    const responses = await Promise.all(
      Array.from(
        { length: 50 },
        (_, index) =>
          book(servers[index % 2], buildBookingBody(start, { email: `race${index}@example.pt` })),
      ),
    );
    const statuses = responses.map((response) => response.status);
    const bodies = await Promise.all(responses.map((response) => response.json()));
    const created = statuses.flatMap((status, index) => status === 201 ? [index] : []);
    assert.equal(created.length, 1, `statuses: ${statuses.join(" ")}`);
    assert.equal(
      statuses.filter((status) => status === 409).length,
      49,
      JSON.stringify(
        bodies.filter((_, index) => statuses[index] !== 409 && statuses[index] !== 201),
      ),
    );
    assert.deepEqual(bodies[created[0]], { ok: true, status: "accepted", start });
    for (const [index, body] of bodies.entries()) {
      if (index !== created[0]) assert.equal(body.error.code, "validation-failed");
    }
    const winner = `race${created[0]}@example.pt`;

    await smtp.waitFor(2, 15_000);
    await delay(POLL_MARGIN_MILLISECONDS);
    assert.equal(smtp.messages.length, 2, "exactly one pair of e-mails");
    const attendee = await receiveMail(smtp, "attendee-booked", winner);
    await receiveMail(smtp, "studio-new", winner);
    assertInvite(readInvite(attendee, "REQUEST"), { start, email: winner, sequence: 0 });
    for (const server of servers) {
      assert.ok(!(await listMonth(server, monthOf(start))).includes(start));
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await smtp.stop();
  }
  try {
    await withKvFile(kvPath, async (kv) => {
      assert.equal(await countKeys(kv, ["booking"]), 1);
      assert.equal(await countKeys(kv, ["slot"]), 1);
      assert.equal(await countKeys(kv, ["outbox"]), 0, "nothing left to send");
      assert.equal(await countKeys(kv, ["outbox_sent"]), 2);
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
