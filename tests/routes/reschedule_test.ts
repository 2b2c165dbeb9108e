/**
 * The attendee's reschedule page in-process (a fixed clock, the real SMTP server): the GET that
 * lists the free times and changes nothing, the POST that moves, and every page that says why
 * not: a taken slot, no time chosen, forged, expired and stale links, closed bookings, the Origin
 * rule and the write quota.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createFixedClock, createMemoryStore, type FixedClock } from "../../testing.ts";
import type { HandlerOptions } from "../../mod.ts";
import { createSampleHandler } from "../_fixture_studio.ts";
import type { BookingRecord } from "../../lib/booking/booking_mail.ts";
import { createOutbox, type Outbox } from "../../lib/mail/outbox.ts";
import { createSmtpMailer } from "../../adapters/smtp_mailer.ts";
import { createLinkSigner } from "../../lib/booking/signed_links.ts";
import type { Store } from "../../lib/store/store.ts";
import {
  buildBookingBody,
  findLink,
  findRescheduleLink,
  openSignedLink,
  readInvite,
} from "../_booking.ts";
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from "../_smtp.ts";
import { createRecordingLogger, createTestClient, type RecordingLogger } from "../_support.ts";

/** A Saturday in winter: December 2026 and January 2027 have free weekdays. */
const NOW = "2026-11-21T10:00:00Z";
const SECRET = "reschedule-test-secret-0123456789abcdef";
const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

let smtp: TestSmtpServer;
let mailer: ReturnType<typeof createSmtpMailer>;
const outboxes: Outbox[] = [];

before(async () => {
  smtp = await startSmtpServer();
  mailer = createSmtpMailer(smtp.url, { timeoutSeconds: 5 });
});

after(async () => {
  for (const outbox of outboxes) await outbox.stop();
  mailer.close();
  await smtp.stop();
});

interface TestApp {
  client: ReturnType<typeof createTestClient>;
  store: Store;
  clock: FixedClock;
  logger: RecordingLogger;
  outbox: Outbox;
}

function createApp(options: Omit<HandlerOptions, "clock" | "logger" | "outbox"> = {}): TestApp {
  const clock = createFixedClock(NOW);
  const logger = createRecordingLogger();
  const store = createMemoryStore();
  const outbox = createOutbox({ store, mailer, clock, logger });
  outboxes.push(outbox);
  const handler = createSampleHandler({
    inbox: "inbox@studio.example",
    mailFrom: "Studio <site@studio.example>",
    secret: SECRET,
    rateLimits: { read: 100_000, write: 100_000, booking: 100_000 },
    ...options,
    store,
    clock,
    logger,
    outbox,
  });
  return { client: createTestClient(handler), store, clock, logger, outbox };
}

async function listStarts(app: TestApp, month: string): Promise<string[]> {
  const response = await app.client.get(`/api/v1/booking/slots?month=${month}`);
  assert.equal(response.status, 200);
  const body: { slots: Record<string, Array<{ start: string }>> } = await response.json();
  return Object.values(body.slots).flat().map((slot) => slot.start);
}

async function readBooking(app: TestApp, email: string): Promise<BookingRecord> {
  for await (const entry of app.store.list<BookingRecord>({ prefix: ["booking"] })) {
    if (entry.value.email === email) return entry.value;
  }
  throw new Error(`No booking for ${email}`);
}

/** Waits for the one e-mail whose Message-ID starts with `<kind>-<id>-<sequence>`. */
async function receiveMail(
  app: TestApp,
  name: string,
  record: BookingRecord,
): Promise<ReceivedMail> {
  const [kind, sequence] = [name.replace(/-\d+$/, ""), name.replace(/^.*-/, "")];
  const messageId = `<${kind}-${record.id}-${sequence}@localhost>`;
  const deadline = Date.now() + 10_000;
  const found = () => smtp.messages.filter((mail) => mail.parsed.messageId === messageId);
  while (!found().length && Date.now() < deadline) {
    await app.outbox.idle();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(found().length, 1, `one ${messageId}`);
  return found()[0];
}

/** Books `start` and returns the booking with its reschedule link from the attendee's e-mail. */
async function bookWithLink(
  app: TestApp,
  start: string,
  overrides: Record<string, unknown>,
): Promise<{ record: BookingRecord; link: string; mail: ReceivedMail }> {
  const response = await app.client.post(
    "/api/v1/booking",
    JSON.stringify(buildBookingBody(start, overrides)),
    { "Content-Type": "application/json" },
  );
  assert.equal(response.status, 201, await response.text());
  const record = await readBooking(app, String(overrides.email));
  const kind = record.status === "pending" ? "attendee-pending-0" : "attendee-booked-0";
  const mail = await receiveMail(app, kind, record);
  const link = findRescheduleLink(mail);
  assert.ok(link, "the attendee's e-mail carries a reschedule link");
  return { record, link, mail };
}

/**
 * Opens a link (or a path) in-process as a browser does (a GET follows the exchange's 303 with its
 * cookie) and checks the headers every reschedule page carries: the page the cookie opened is
 * private and indexable, every other answer never stored nor indexed.
 */
async function open(
  app: TestApp,
  link: string,
  init: { method?: "GET" | "POST"; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; html: string; headers: Headers }> {
  const url = new URL(link, "http://localhost:8000");
  const path = url.pathname + url.search;
  const response = init.method === "POST"
    ? await app.client.post(path, init.body ?? null, { ...FORM, ...init.headers })
    : await openSignedLink(
      (target, request) => app.client.get(target, request.headers),
      path,
      { headers: init.headers },
    );
  assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
  const opened = init.method !== "POST" && response.status === 200;
  // Any answer at the page's URL is private to the browser that holds the cookie.
  const cacheControl = response.headers.get("Cache-Control") ?? "";
  if (opened) assert.equal(cacheControl, "private, no-store");
  else assert.match(cacheControl, /^(?:private, )?no-store$/);
  assert.equal(response.headers.get("X-Robots-Tag"), opened ? null : "noindex");
  assert.equal(response.headers.get("Referrer-Policy"), "no-referrer");
  assert.match(response.headers.get("Content-Security-Policy") ?? "", /frame-ancestors 'none'/);
  return { status: response.status, html: await response.text(), headers: response.headers };
}

/** The starts offered as radio buttons on a page. */
function offeredStarts(html: string): string[] {
  return [...html.matchAll(/<input type="radio" name="start" value="([^"]+)"/g)].map((m) => m[1]);
}

/**
 * What the reschedule page does without its script: the chosen time and the submit button are
 * inside the page's plain POST form (the script leaves its submission to the browser,
 * `"submit":false`), and the browser asks for a time before sending it (the shown day's first
 * time is `required`).
 */
function assertWorksWithoutScript(html: string, formTag: string): void {
  const start = html.indexOf(formTag);
  const end = html.indexOf("</form>", start);
  assert.ok(start >= 0 && end > start, "the reschedule form");
  const form = html.slice(start, end);
  assert.ok(offeredStarts(form).length > 0, "the times are the form's fields");
  assert.match(form, /<button type="submit">Move to this time<\/button>/);
  assert.match(
    form,
    /<div class="day-times" data-day="[^"]+" [^>]*><div class="times">(?:<div class="current">.*?<\/div>)?<label><input type="radio" name="start" value="[^"]+" required>/,
  );
  const config = html.match(/<script type="application\/json" id="booking-config">(.*?)<\/script>/);
  assert.ok(config, "the script's configuration");
  assert.equal(JSON.parse(config[1]).submit, false, "the script does not take the form");
}

function move(app: TestApp, link: string, start: string) {
  return open(app, link, { method: "POST", body: new URLSearchParams({ start }).toString() });
}

test("GET /booking/reschedule shows the booking and its month's free times in the attendee's language, and changes nothing", async () => {
  const app = createApp();
  const [first, second] = await listStarts(app, "2026-12");
  const { record, link } = await bookWithLink(app, first, { email: "en@example.pt", locale: "en" });
  const before = smtp.messages.length;
  const page = await open(app, link);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("Content-Language"), "en");
  assert.match(page.html, /<h1>Change the time of your conversation<\/h1>/);
  assert.match(page.html, /<p class="month-name">December 2026<\/p>/);
  assert.match(
    page.html,
    /<dd>Wednesday, 2 December 2026, 09:30–10:00 \(Western European Time\)<\/dd>/,
  );
  assert.ok(page.html.includes("en@example.pt"));
  const offered = offeredStarts(page.html);
  assert.ok(offered.includes(second), "the free times are listed");
  assert.ok(!offered.includes(first), "not the booking's own");
  const query = new URL(link).search.slice(1).replaceAll("&", "&amp;");
  const formTag =
    `<form method="post" action="/booking/reschedule?${query}&amp;month=2026-12" class="booking-form">`;
  assert.ok(page.html.includes(formTag));
  // The page's own links need no signature: its cookie carries it.
  const clean = `id=${record.id}&amp;seq=0`;
  assert.ok(
    page.html.includes(
      `href="/booking/reschedule?${clean}&amp;month=2027-01&amp;tz=Europe%2FLisbon#booking"`,
    ),
  );
  assertWorksWithoutScript(page.html, formTag);
  assert.ok(!page.html.includes('name="sig"'), "the zone's form needs no signature either");

  const day = `${clean}&amp;month=2026-12&amp;tz=Europe%2FLisbon&amp;day=2026-12-03`;
  assert.ok(page.html.includes(`<a class="day" href="/booking/reschedule?${day}#times"`));
  const thursday = await open(app, `${link}&month=2026-12&tz=Europe%2FLisbon&day=2026-12-03`);
  assert.equal(thursday.status, 200);
  assert.match(thursday.html, /<legend>Thursday, December 3<\/legend>/, "a day is a plain link");
  assert.match(thursday.html, /<div class="day-times" data-day="2026-12-03" [^>]*(?<!hidden)>/);
  assert.match(thursday.html, /<div class="day-times" data-day="2026-12-02" [^>]* hidden>/);

  const january = await open(app, `${link}&month=2027-01`);
  assert.match(january.html, /<p class="month-name">January 2027<\/p>/);
  assert.ok(offeredStarts(january.html).every((start) => start.startsWith("2027-01")));
  const pt = await bookWithLink(app, second, { email: "pt@example.pt", locale: "pt" });
  const portuguese = await open(app, pt.link);
  assert.match(portuguese.html, /<h1>Mudar a hora da conversa<\/h1>/);
  assert.match(portuguese.html, /<button type="submit">Mudar para esta hora<\/button>/);

  await app.outbox.idle();
  assert.deepEqual(await readBooking(app, "en@example.pt"), record, "GET changes nothing");
  assert.equal(smtp.messages.length, before + 2, "only the second booking's e-mails");
});

test("POST /booking/reschedule moves the booking and both sides receive a REQUEST with the same UID and SEQUENCE + 1", async () => {
  const app = createApp();
  const [first, , third] = await listStarts(app, "2026-12");
  const { record, link, mail } = await bookWithLink(app, first, {
    email: "mover@example.pt",
    locale: "en",
  });
  const uid = readInvite(mail, "REQUEST").uid;
  const moved = await move(app, link, third);
  assert.equal(moved.status, 200);
  assert.match(
    moved.html,
    /Done: the conversation has moved to Wednesday, 2 December 2026 at 10:30/,
  );
  const after = await readBooking(app, "mover@example.pt");
  assert.equal(after.start, third);
  assert.equal(after.sequence, 1);
  const again = /href="(\/booking\/reschedule\?[^"]+)"/.exec(moved.html)?.[1].replaceAll(
    "&amp;",
    "&",
  );
  assert.match(again ?? "", /&seq=1&sig=/, "the page links the new reschedule page");
  const listed = await listStarts(app, "2026-12");
  assert.ok(listed.includes(first) && !listed.includes(third));

  const attendee = await receiveMail(app, "attendee-moved-1", record);
  const studio = await receiveMail(app, "studio-moved-1", record);
  assert.equal(
    attendee.parsed.subject,
    "Conversation moved: Wednesday, 2 December 2026 at 10:30 (Western European Time)",
  );
  assert.match(attendee.parsed.text ?? "", /^Previously: Wednesday, 2 December 2026 at 09:30/m);
  assert.equal(findRescheduleLink(attendee), `http://localhost:8000${again}`);
  assert.ok(findLink(attendee, "cancel"));
  for (const invite of [readInvite(attendee, "REQUEST"), readInvite(studio, "REQUEST")]) {
    assert.equal(invite.uid, uid);
    assert.equal(invite.sequence, 1);
    assert.equal(invite.startEpochMs, Date.parse(third));
  }
});

test("POST /booking/reschedule twice with the same form (a double click, a resend) moves once and answers both as moved", async () => {
  const app = createApp();
  const [first, second, third, fourth, fifth] = await listStarts(app, "2026-12");
  const { record, link } = await bookWithLink(app, first, {
    email: "twice@example.pt",
    locale: "en",
  });
  const moved = await move(app, link, third);
  assert.equal(moved.status, 200);
  const again = await move(app, link, third);
  assert.equal(again.status, 200, "the same move again is not an expired link");
  assert.equal(again.html, moved.html, "the same page");
  assert.match(
    again.html,
    /Done: the conversation has moved to Wednesday, 2 December 2026 at 10:30/,
  );
  const other = await move(app, link, second);
  assert.equal(other.status, 410, "another time from the old link is refused");
  assert.match(other.html, /This link has expired/);
  const after = await readBooking(app, "twice@example.pt");
  assert.equal(after.start, third);
  assert.equal(after.sequence, 1);
  await receiveMail(app, "attendee-moved-1", record);
  await app.outbox.idle();
  assert.equal(
    smtp.messages.filter((mail) =>
      mail.parsed.messageId?.startsWith(`<attendee-moved-${record.id}-`)
    )
      .length,
    1,
    "one e-mail of the move",
  );

  const racing = await bookWithLink(app, fourth, { email: "racing@example.pt", locale: "en" });
  const answers = await Promise.all([move(app, racing.link, fifth), move(app, racing.link, fifth)]);
  assert.deepEqual(answers.map((answer) => answer.status), [200, 200]);
  assert.equal(answers[0].html, answers[1].html);
  const raced = await readBooking(app, "racing@example.pt");
  assert.equal(raced.start, fifth);
  assert.equal(raced.sequence, 1);
});

test("POST /booking/reschedule answers 409 with the times again when the slot was taken, and 400 without a time", async () => {
  const app = createApp();
  const [first, second, third] = await listStarts(app, "2026-12");
  const { record, link } = await bookWithLink(app, first, { email: "late@example.pt" });
  const form = await open(app, link);
  assert.ok(offeredStarts(form.html).includes(second));
  await bookWithLink(app, second, { email: "early@example.pt" });

  const taken = await move(app, link, second);
  assert.equal(taken.status, 409);
  assert.match(taken.html, /Esse horário acabou de ser ocupado/);
  const offered = offeredStarts(taken.html);
  assert.ok(!offered.includes(second) && offered.includes(third), "the times are listed again");
  assert.deepEqual(await readBooking(app, "late@example.pt"), record, "nothing changed");

  for (const body of ["", "start=tomorrow", "start=" + "9".repeat(3000)]) {
    const missing = await open(app, link, { method: "POST", body });
    assert.equal(missing.status, 400);
    assert.match(missing.html, /Escolha primeiro uma hora\./);
    assert.ok(offeredStarts(missing.html).length > 0);
  }
  const json = await open(app, link, {
    method: "POST",
    body: JSON.stringify({ start: third }),
    headers: { "Content-Type": "application/json" },
  });
  assert.equal(json.status, 400);
  const multipart = new FormData();
  multipart.set("start", third);
  const request = new Request("http://x/", { method: "POST", body: multipart });
  // Bun sets a FormData body's Content-Type only until the body is read.
  const contentType = request.headers.get("Content-Type") ?? "";
  const viaMultipart = await open(app, link, {
    method: "POST",
    body: await request.text(),
    headers: { "Content-Type": contentType },
  });
  assert.equal(viaMultipart.status, 200, "a multipart form moves too");
  assert.equal((await readBooking(app, "late@example.pt")).start, third);
});

test("/booking/reschedule answers 403 to forged links, 404 to an unknown booking and 410 to a link the booking has changed since", async () => {
  const app = createApp();
  const [first, second, third] = await listStarts(app, "2026-12");
  const { record, link, mail } = await bookWithLink(app, first, { email: "forge@example.pt" });
  const url = new URL(link);
  const signature = url.searchParams.get("sig") ?? "";
  const cancel = new URL(findLink(mail, "cancel")).searchParams.get("sig") ?? "";
  const forgeries = [
    link.replace(/sig=(.)/, (_, char) => `sig=${char === "A" ? "B" : "A"}`),
    link.replace(/&sig=.*/, `&sig=${signature.slice(0, 20)}`),
    link.replace("seq=0", "seq=1"),
    link.replace("seq=0", "seq=00"),
    link.replace(/sig=.*/, `sig=${cancel}`),
    link.replace(/&seq=0/, ""),
    // Another booking's id: the last character changed, never to itself.
    `/booking/reschedule?id=${
      record.id.replace(/.$/, (last) => last === "0" ? "1" : "0")
    }&seq=0&sig=${signature}`,
  ];
  for (const forged of forgeries) {
    for (const method of ["GET", "POST"] as const) {
      const page = await open(app, forged, { method, body: `start=${encodeURIComponent(second)}` });
      assert.equal(page.status, 403, `${method} ${forged}`);
      assert.match(page.html, /Esta ligação não é válida/);
      assert.match(page.html, /<p lang="en">This link is not valid/);
    }
  }
  assert.deepEqual(await readBooking(app, "forge@example.pt"), record, "nothing moved");
  const signer = createLinkSigner(() => Promise.resolve(SECRET));
  const unknown = await signer.buildRescheduleUrl("", "01ARZ3NDEKTSV4RRFFQ69G5FAV", 0);
  for (const method of ["GET", "POST"] as const) {
    const page = await open(app, unknown, { method, body: `start=${encodeURIComponent(second)}` });
    assert.equal(page.status, 404);
    assert.match(page.html, /Não encontrámos esta conversa/);
  }

  assert.equal((await move(app, link, third)).status, 200);
  for (const method of ["GET", "POST"] as const) {
    const stale = await open(app, link, { method, body: `start=${encodeURIComponent(second)}` });
    assert.equal(stale.status, 410, "the first e-mail's link has expired");
    assert.match(stale.html, /Esta ligação expirou/);
  }
  assert.equal((await readBooking(app, "forge@example.pt")).start, third);
});

test("/booking/reschedule refuses cancelled, declined, lapsed and started bookings with a clear page", async () => {
  const app = createApp({ confirmation: "manual" });
  const [first, second, third, fourth, free] = await listStarts(app, "2026-12");
  const cancelled = await bookWithLink(app, first, { email: "c@example.pt", locale: "en" });
  assert.equal(
    (await open(app, findLink(cancelled.mail, "cancel"), { method: "POST" })).status,
    200,
  );
  const page = await open(app, cancelled.link);
  assert.equal(page.status, 409);
  assert.match(page.html, /This conversation was cancelled and can no longer be moved/);
  assert.match(page.html, /<a href="\/en\/book">Book a new conversation<\/a>/);
  assert.equal((await move(app, cancelled.link, free)).status, 409);

  const declined = await bookWithLink(app, second, { email: "d@example.pt" });
  const studio = await receiveMail(app, "studio-new-0", declined.record);
  assert.equal((await open(app, findLink(studio, "decline"), { method: "POST" })).status, 200);
  const refusal = await move(app, declined.link, free);
  assert.equal(refusal.status, 409);
  assert.match(refusal.html, /Este pedido foi recusado/);

  const lapsing = await bookWithLink(app, third, { email: "l@example.pt" });
  const started = await bookWithLink(app, fourth, { email: "s@example.pt" });
  const confirm = findLink(await receiveMail(app, "studio-new-0", started.record), "confirm");
  assert.equal((await open(app, confirm, { method: "POST" })).status, 200);
  app.clock.advance({ hours: 49 });
  const lapsed = await open(app, lapsing.link);
  assert.equal(lapsed.status, 409);
  assert.match(lapsed.html, /Este pedido caducou/);
  app.clock.set(Temporal.Instant.from(fourth).add({ minutes: 5 }));
  const over = await move(app, started.link, free);
  assert.equal(over.status, 410);
  assert.match(over.html, /já começou ou já passou/);
  assert.equal((await readBooking(app, "s@example.pt")).start, fourth);
});

test("POST /booking/reschedule from another origin answers 403, and past the write quota 429, as pages in the attendee's language", async () => {
  const app = createApp({ rateLimits: { read: 100_000, write: 2, booking: 100_000 } });
  const [first, second] = await listStarts(app, "2026-12");
  const { link } = await bookWithLink(app, first, { email: "origin@example.pt", locale: "en" });
  const foreign = await open(app, link, {
    method: "POST",
    body: `start=${encodeURIComponent(second)}`,
    headers: { Origin: "https://evil.example" },
  });
  assert.equal(foreign.status, 403);
  assert.match(foreign.html, /cannot be moved from this address/);
  const limited = await move(app, link, second);
  assert.equal(limited.status, 429);
  assert.match(limited.html, /Too many requests in a row\. Wait \d+ seconds/);
  assert.ok(Number(limited.headers.get("Retry-After")) >= 1);
  assert.equal((await readBooking(app, "origin@example.pt")).start, first);
});
