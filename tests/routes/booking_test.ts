import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { ErrorResponseBody } from "../../lib/contract/api_error.ts";
import { MAX_BODY_BYTES } from "../../lib/contract/contract.ts";
import { createFixedClock, createMemoryStore, type FixedClock } from "../../testing.ts";

const BOOKING_LIMIT = MAX_BODY_BYTES.createBooking;
import type { Handler, HandlerOptions } from "../../mod.ts";
import { createSampleHandler, SAMPLE_SCHEDULE } from "../_fixture_studio.ts";
import type { BookingRecord } from "../../lib/booking/booking_mail.ts";
import { escapeHtml } from "../../lib/mail/mail.ts";
import { createOutbox, type Outbox } from "../../lib/mail/outbox.ts";
import { createLinkSigner } from "../../lib/booking/signed_links.ts";
import { createSmtpMailer } from "../../adapters/smtp_mailer.ts";
import type {
  AtomicCheck,
  AtomicOperation,
  KvKey,
  KvSetOptions,
  Store,
} from "../../lib/store/store.ts";
import {
  buildBookingBody,
  findLink,
  findLinks,
  hasCalendar,
  openSignedLink,
  type ParsedInvite,
  readInvite,
  type SendRequest,
} from "../_booking.ts";
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from "../_smtp.ts";
import { assertNoSampleWords, OTHER_SCHEDULE, OTHER_TIME_ZONE } from "../_other_studio.ts";
import {
  buildRequest,
  createRecordingLogger,
  createTestClient,
  fromAddress,
  readError,
  type RecordingLogger,
} from "../_support.ts";

const INBOX = "inbox@studio.example";
const MAIL_FROM = "Studio <site@studio.example>";
const STUDIO_ADDRESS = "site@studio.example";
const SECRET = "booking-test-secret-0123456789abcdef";
/** A Saturday in winter: December 2026 is +00:00, May 2027 is +01:00 and within the horizon. */
const NOW = "2026-11-21T10:00:00Z";
const BASE_URL = "http://localhost:8000";
const RAISED = { read: 100_000, write: 100_000, booking: 100_000 };
const RAISED_POLICY = '"write";q=100000;w=60, "booking";q=100000;w=300';
const DEFAULT_POLICY = '"write";q=10;w=60, "booking";q=5;w=300';
const MEETING_MS = 30 * 60_000;
const PLACE = SAMPLE_SCHEDULE.meetingPlace;
/** The real SMTP server every test app delivers to, started before the tests and stopped after. */
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

/** A handler with its own fake clock, store and outbox, delivering to the shared SMTP server. */
interface TestApp {
  handler: Handler;
  store: Store;
  clock: FixedClock;
  logger: RecordingLogger;
  outbox: Outbox;
  /** Starts handed out by {@linkcode takeSlot}, never handed out twice. */
  handedOut: Set<string>;
}

function createApp(
  options: Omit<HandlerOptions, "clock" | "logger" | "outbox"> = {},
): TestApp {
  const clock = createFixedClock(NOW);
  const logger = createRecordingLogger();
  const store = options.store ?? createMemoryStore();
  const outbox = createOutbox({ store, mailer, clock, logger });
  outboxes.push(outbox);
  const handler = createSampleHandler({
    mailFrom: MAIL_FROM,
    inbox: INBOX,
    secret: SECRET,
    rateLimits: RAISED,
    ...options,
    store,
    clock,
    logger,
    outbox,
  });
  return { handler, store, clock, logger, outbox, handedOut: new Set() };
}

const CLIENT = fromAddress("203.0.113.7");

function post(
  app: TestApp,
  body: BodyInit | null,
  headers: Record<string, string> = { "Content-Type": "application/json" },
  client = CLIENT,
): Promise<Response> {
  return createTestClient(app.handler, client.remoteAddr.hostname)
    .post("/api/v1/booking", body, headers);
}

function book(
  app: TestApp,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  client = CLIENT,
): Promise<Response> {
  return post(
    app,
    JSON.stringify(body),
    { "Content-Type": "application/json", ...headers },
    client,
  );
}

/** The listed starts of a month. */
async function listSlots(app: TestApp, month: string): Promise<string[]> {
  const response = await app.handler(
    buildRequest(`/api/v1/booking/slots?month=${month}`),
    fromAddress("198.51.100.1"),
  );
  assert.equal(response.status, 200);
  const body: { slots: Record<string, Array<{ start: string }>> } = await response.json();
  return Object.values(body.slots).flat().map((slot) => slot.start);
}

/** A listed start of the month, on `date` if given, that no other test of this app was given. */
async function takeSlot(app: TestApp, month: string, date?: string): Promise<string> {
  const start = (await listSlots(app, month)).find((item) =>
    !app.handedOut.has(item) && (!date || item.startsWith(date))
  );
  assert.ok(start, `a free slot in ${date ?? month}`);
  app.handedOut.add(start);
  return start;
}

/** The ErrorResponse body as the library types it. */
type ErrorBody = ErrorResponseBody;

/** Asserts a 201 BookingResult and returns it. */
async function readCreated(
  response: Response,
  status: "accepted" | "pending",
  start: string,
): Promise<void> {
  assert.equal(response.status, 201, await response.clone().text());
  assert.equal(response.headers.get("Content-Type"), "application/json");
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.equal(response.headers.get("API-Version"), "1");
  assert.deepEqual(await response.json(), { ok: true, status, start });
}

/** Asserts a 409 that tells the client to refresh the listing. */
async function readConflict(response: Response): Promise<void> {
  const body = await readError(response, 409, "validation-failed");
  assert.match(body.error.hint, /GET \/api\/v1\/booking\/slots/);
}

async function listBookings(app: TestApp): Promise<BookingRecord[]> {
  const records: BookingRecord[] = [];
  for await (const entry of app.store.list<BookingRecord>({ prefix: ["booking"] })) {
    records.push(entry.value);
  }
  return records;
}

/** The one booking of an attendee address. */
async function findBooking(app: TestApp, email: string): Promise<BookingRecord> {
  const found = (await listBookings(app)).filter((record) => record.email === email);
  assert.equal(found.length, 1, `one booking for ${email}`);
  return found[0];
}

async function countKeys(store: Store, prefix: KvKey): Promise<number> {
  let count = 0;
  for await (const _ of store.list({ prefix })) count++;
  return count;
}

function mailsOf(bookingId: string): ReceivedMail[] {
  return smtp.messages.filter((mail) => (mail.parsed.messageId ?? "").includes(`-${bookingId}-`));
}

/**
 * Waits for the e-mails of a booking and asserts that exactly `expected` arrived, each once,
 * named `<kind>-<sequence>` as in their Message-IDs; returns them by name.
 */
async function receiveMails(
  app: TestApp,
  bookingId: string,
  expected: string[],
): Promise<Record<string, ReceivedMail>> {
  const deadline = Date.now() + 10_000;
  const nameOf = (mail: ReceivedMail) => {
    const match = new RegExp(`^<([a-z-]+)-${bookingId}-(\\d+)@localhost>$`)
      .exec(mail.parsed.messageId ?? "");
    assert.ok(match, `Message-ID ${mail.parsed.messageId}`);
    return `${match[1]}-${match[2]}`;
  };
  for (;;) {
    await app.outbox.idle();
    const names = mailsOf(bookingId).map(nameOf);
    if (expected.every((name) => names.includes(name)) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await app.outbox.idle();
  const mails = mailsOf(bookingId);
  assert.deepEqual(mails.map(nameOf).sort(), [...expected].sort(), "exactly the expected e-mails");
  return Object.fromEntries(mails.map((mail) => [nameOf(mail), mail]));
}

/** Asserts the routing of an e-mail to the attendee. */
function assertToAttendee(mail: ReceivedMail, email: string): void {
  assert.deepEqual(mail.envelopeTo, [email]);
  assert.equal(mail.envelopeFrom, STUDIO_ADDRESS);
  assert.deepEqual(mail.parsed.from, { address: STUDIO_ADDRESS, name: "Studio" });
  assert.deepEqual(mail.parsed.replyTo, [{ address: INBOX, name: "" }]);
  assert.equal(mail.header("bcc"), undefined);
  assert.equal(mail.header("cc"), undefined);
}

/** Asserts the routing of an e-mail to the studio. */
function assertToStudio(mail: ReceivedMail, attendeeEmail: string): void {
  assert.deepEqual(mail.envelopeTo, [INBOX]);
  assert.equal(mail.envelopeFrom, STUDIO_ADDRESS);
  assert.deepEqual(mail.parsed.replyTo, [{ address: attendeeEmail, name: "" }]);
  assert.equal(mail.header("bcc"), undefined);
  assert.equal(mail.header("cc"), undefined);
}

/** Asserts what every invite of a booking says, whatever its method and language. */
function assertInvite(
  invite: ParsedInvite,
  record: BookingRecord,
  expected: { sequence: number; locale: "pt" | "en" },
): void {
  assert.equal(invite.eventCount, 1);
  assert.deepEqual(invite.timeZones, ["Europe/Lisbon"]);
  assert.equal(invite.uid, `booking-${record.id}@localhost`);
  assert.equal(invite.sequence, expected.sequence);
  assert.equal(invite.startTzid, "Europe/Lisbon");
  assert.equal(invite.endTzid, "Europe/Lisbon");
  assert.equal(invite.startEpochMs, Temporal.Instant.from(record.start).epochMilliseconds);
  assert.equal(invite.endEpochMs - invite.startEpochMs, MEETING_MS);
  assert.equal(
    invite.startWallClock,
    Temporal.Instant.from(record.start).toZonedDateTimeISO("Europe/Lisbon").toPlainDateTime()
      .toString(),
  );
  assert.equal(invite.organizer.toLowerCase(), `mailto:${STUDIO_ADDRESS}`);
  assert.equal(invite.organizerName, "Studio");
  assert.equal(invite.attendee.toLowerCase(), `mailto:${record.email}`);
  assert.equal(invite.attendeeName, record.name);
  assert.equal(invite.attendeeRsvp, "TRUE");
  assert.equal(invite.attendeeRole, "REQ-PARTICIPANT");
  assert.equal(invite.attendeePartstat, "NEEDS-ACTION");
  assert.equal(invite.location, PLACE[expected.locale]);
  const summary = expected.locale === "pt"
    ? "Conversa de 30 minutos com o estúdio"
    : "30-minute conversation with the studio";
  assert.equal(invite.summary, `${summary}: ${record.name}`);
  const [topic, company, duration] = expected.locale === "pt"
    ? ["Tema", "Empresa", "Duração: 30 minutos"]
    : ["Topic", "Company", "Duration: 30 minutes"];
  assert.ok(invite.description.includes(`${topic}: ${record.topic}`), invite.description);
  if (record.company) {
    assert.ok(invite.description.includes(`${company}: ${record.company}`), invite.description);
  }
  assert.ok(invite.description.includes(duration), invite.description);
}

/** Sends a request to the app in-process, from the attendee's address. */
function sendTo(app: TestApp): SendRequest {
  return (path, init) => app.handler(buildRequest(path, init), fromAddress("192.0.2.44"));
}

/**
 * Opens a signed link in-process as a browser does (a GET follows the exchange's 303 with its
 * cookie; a POST is sent to the signed URL) and asserts the page's headers: a page the cookie
 * opened is private and indexable, every other answer is never stored nor indexed. Returns status
 * and HTML.
 */
async function openLink(
  app: TestApp,
  link: string,
  method: "GET" | "POST",
): Promise<{ status: number; html: string }> {
  const url = new URL(link);
  assert.equal(url.origin, BASE_URL);
  const response = method === "GET"
    ? await openSignedLink(sendTo(app), link)
    : await sendTo(app)(url.pathname + url.search, { method });
  assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
  assert.equal(response.headers.get("Referrer-Policy"), "no-referrer");
  const opened = method === "GET" && response.status === 200;
  assert.equal(response.headers.get("Cache-Control"), opened ? "private, no-store" : "no-store");
  assert.equal(response.headers.get("X-Robots-Tag"), opened ? null : "noindex");
  const html = await response.text();
  assert.equal(html.includes('<meta name="robots" content="noindex">'), !opened);
  return { status: response.status, html };
}

/** Asserts that the log holds no unexpected failure (what a 500 would leave). */
function assertNoInternalError(app: TestApp): void {
  const failures = app.logger.records.filter((record) =>
    record.message.startsWith("Unexpected failure")
  );
  assert.deepEqual(failures, []);
}

// ---------------------------------------------------------------------------------------------
// Booking and its invites

test("POST /api/v1/booking books a winter slot and e-mails both sides an iMIP invite at that instant", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-02");
  assert.match(start, /\+00:00$/, "December is winter time");
  const email = "ana.winter@example.pt";
  const response = await book(
    app,
    buildBookingBody(start, { email, locale: "en", company: "Cerâmica Lda" }),
    { "Content-Type": "application/json; charset=utf-8" },
  );
  assert.equal(response.headers.get("RateLimit-Policy"), RAISED_POLICY);
  assert.equal(
    response.headers.get("RateLimit"),
    '"write";r=99999;t=60, "booking";r=99999;t=300',
  );
  await readCreated(response, "accepted", start);

  const record = await findBooking(app, email);
  assert.equal(record.status, "accepted");
  assert.equal(record.start, start);
  assert.equal(record.sequence, 0);
  assert.equal(record.createdAt, NOW);
  assert.equal(record.clientAddress, "203.0.113.7");
  assert.equal(record.endEpochMs - record.startEpochMs, MEETING_MS);
  assert.ok(await app.store.get(["slot", record.startEpochMs]).then((entry) => entry.value));

  const mails = await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
  const attendee = mails["attendee-booked-0"];
  assertToAttendee(attendee, email);
  assert.equal(
    attendee.parsed.subject,
    "Conversation booked: Wednesday, 2 December 2026 at 09:30 (Western European Time)",
  );
  const text = attendee.parsed.text ?? "";
  assert.ok(text.startsWith("Hello Ana Sousa,"), text);
  assert.ok(
    text.includes("When: Wednesday, 2 December 2026 at 09:30 (Western European Time)"),
    text,
  );
  assert.ok(text.includes(`Where: ${PLACE.en}`), text);
  assert.ok(text.includes(`Topic: ${record.topic}`), text);
  assert.ok(text.includes("Company: Cerâmica Lda"), text);
  const attendeeLinks = findLinks(attendee);
  assert.deepEqual(Object.keys(attendeeLinks), ["cancel"]);
  const attendeeInvite = readInvite(attendee, "REQUEST");
  assertInvite(attendeeInvite, record, { sequence: 0, locale: "en" });
  assert.equal(attendeeInvite.status, "CONFIRMED");

  const studio = mails["studio-new-0"];
  assertToStudio(studio, email);
  assert.equal(
    studio.parsed.subject,
    "Nova conversa: Ana Sousa — quarta-feira, 2 de dezembro de 2026 às 09:30 (hora da Europa Ocidental)",
  );
  const studioText = studio.parsed.text ?? "";
  for (
    const line of [
      "Nome: Ana Sousa",
      `E-mail: ${email}`,
      "Empresa: Cerâmica Lda",
      "Idioma: inglês",
      `Reserva ${record.id}`,
    ]
  ) assert.ok(studioText.includes(line), `${line} in ${studioText}`);
  const studioLinks = findLinks(studio);
  assert.deepEqual(Object.keys(studioLinks), ["cancel"], "no confirm or decline in auto mode");
  assert.equal(studioLinks.cancel, attendeeLinks.cancel);
  const studioInvite = readInvite(studio, "REQUEST");
  assertInvite(studioInvite, record, { sequence: 0, locale: "pt" });
  assert.equal(studioInvite.uid, attendeeInvite.uid, "one UID for both sides");

  const again = await book(app, buildBookingBody(start, { email: "bruno@example.pt" }));
  await readConflict(again);
  assert.ok(!(await listSlots(app, "2026-12")).includes(start), "the slot left the listing");
  await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
  assert.equal(await countKeys(app.store, ["booking"]), 1);
  assertNoInternalError(app);
});

test("POST /api/v1/booking books a summer slot given in UTC and invites at the same instant", async () => {
  const app = createApp();
  const listed = await takeSlot(app, "2027-05", "2027-05-04");
  assert.equal(listed, "2027-05-04T09:30:00+01:00", "May is summer time");
  const email = "ana.summer@example.pt";
  const response = await book(app, buildBookingBody("2027-05-04T08:30:00Z", { email }));
  await readCreated(response, "accepted", listed);

  const record = await findBooking(app, email);
  assert.equal(record.start, listed);
  const mails = await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
  const attendee = mails["attendee-booked-0"];
  assertToAttendee(attendee, email);
  assert.equal(
    attendee.parsed.subject,
    "Conversa marcada: terça-feira, 4 de maio de 2027 às 09:30 (hora da Europa Ocidental)",
  );
  const text = attendee.parsed.text ?? "";
  assert.ok(text.startsWith("Olá Ana Sousa,"), text);
  assert.ok(text.includes(`Tema: ${record.topic}`), text);
  const invite = readInvite(attendee, "REQUEST");
  assertInvite(invite, record, { sequence: 0, locale: "pt" });
  assert.equal(invite.startWallClock, "2027-05-04T09:30:00");
  assert.equal(invite.startEpochMs, Date.parse("2027-05-04T08:30:00Z"));
  assertInvite(readInvite(mails["studio-new-0"], "REQUEST"), record, {
    sequence: 0,
    locale: "pt",
  });
});

test("POST /api/v1/booking for a studio in another zone writes its e-mails in that zone and names it, never the sample's city or zone", async () => {
  const app = createApp({ schedule: OTHER_SCHEDULE });
  const start = await takeSlot(app, "2026-12", "2026-12-02");
  assert.equal(start, "2026-12-02T10:00:00-03:00", "the schedule's hours in São Paulo");
  const email = "joana.sp@example.com.br";
  await readCreated(
    await book(app, buildBookingBody(start, { email, locale: "en" })),
    "accepted",
    start,
  );

  const record = await findBooking(app, email);
  const mails = await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
  const attendee = mails["attendee-booked-0"];
  assert.equal(
    attendee.parsed.subject,
    "Conversation booked: Wednesday, 2 December 2026 at 10:00 (Brasilia Standard Time)",
  );
  const studio = mails["studio-new-0"];
  assert.equal(
    studio.parsed.subject,
    "Nova conversa: Ana Sousa — quarta-feira, 2 de dezembro de 2026 às 10:00 (hora padrão de Brasília)",
  );
  for (const [name, mail] of Object.entries(mails)) {
    assertNoSampleWords(mail.parsed.subject ?? "", `${name}: the subject`);
    assertNoSampleWords(mail.parsed.text ?? "", `${name}: the text`);
    const invite = readInvite(mail, "REQUEST");
    assert.deepEqual(invite.timeZones, [OTHER_TIME_ZONE]);
    assert.equal(invite.startTzid, OTHER_TIME_ZONE);
    assert.equal(invite.startWallClock, "2026-12-02T10:00:00");
    assertNoSampleWords(invite.ics, `${name}: the invite`);
  }
});

test("POST /api/v1/booking accepts any offset or notation naming a listed instant", async () => {
  const app = createApp();
  const cases: Array<[date: string, form: (listed: string) => string]> = [
    ["2026-12-03", (listed) => Temporal.Instant.from(listed).toString({ timeZone: "+05:30" })],
    ["2026-12-04", (listed) => listed.replace("+00:00", "-00:00")],
    ["2026-12-07", (listed) => listed.replace("+00:00", ".000Z")],
    ["2026-12-09", (listed) => listed.replace("T", "t").replace("+00:00", "z")],
    ["2027-05-05", (listed) => Temporal.Instant.from(listed).toString({ timeZone: "-03:00" })],
    ["2027-05-06", (listed) => listed.replace("+01:00", ".000000000+01:00")],
  ];
  for (const [index, [date, form]] of cases.entries()) {
    const listed = await takeSlot(app, date.slice(0, 7), date);
    const start = form(listed);
    assert.notEqual(start, listed);
    const response = await book(
      app,
      buildBookingBody(start, { email: `offset${index}@example.pt` }),
    );
    await readCreated(response, "accepted", listed);
  }
});

test("POST /api/v1/booking keeps control characters out of headers and recipients", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-10");
  const email = "header.injection@example.pt";
  const response = await book(
    app,
    buildBookingBody(start, {
      email,
      name: "Ana\r\nBcc: victim@example.com",
      company: "Lda\r\nX-Injected: yes",
    }),
  );
  await readCreated(response, "accepted", start);
  const record = await findBooking(app, email);
  const mails = await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
  for (const mail of Object.values(mails)) {
    assert.equal(mail.header("bcc"), undefined);
    assert.equal(mail.header("x-injected"), undefined);
    assert.ok(!mail.envelopeTo.includes("victim@example.com"));
    assert.ok(!/\r?\nBcc:/i.test(mail.raw.split(/\r?\n\r?\n/)[0]), "no Bcc header");
  }
  assertToAttendee(mails["attendee-booked-0"], email);
  assertToStudio(mails["studio-new-0"], email);
  assert.equal(mails["studio-new-0"].parsed.subject?.includes("\n"), false);
});

test("POST /api/v1/booking gives exactly one 201 and 49 × 409 to 50 simultaneous requests for a slot", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-11");
  const responses = await Promise.all(
    Array.from({ length: 50 }, (_, index) =>
      book(
        app,
        buildBookingBody(start, { email: `race${index}@example.pt` }),
        {},
        fromAddress(`198.51.100.${index + 10}`),
      )),
  );
  const created = responses.filter((response) => response.status === 201);
  const conflicts = responses.filter((response) => response.status === 409);
  assert.equal(created.length, 1);
  assert.equal(conflicts.length, 49);
  await readCreated(created[0], "accepted", start);
  for (const response of conflicts) await readConflict(response);
  const records = await listBookings(app);
  assert.equal(records.length, 1);
  await receiveMails(app, records[0].id, ["attendee-booked-0", "studio-new-0"]);
  assert.equal(await countKeys(app.store, ["slot"]), 1);
  assert.equal(await countKeys(app.store, ["outbox"]), 0);
});

// ---------------------------------------------------------------------------------------------
// Bad input

test("POST /api/v1/booking accepts every field at its bounds, counted in code points", async () => {
  const app = createApp();
  const mixed = (length: number) =>
    Array.from({ length }, (_, index) => ["a", "é", "😀"][index % 3]).join("");
  const domain = "@example.pt";
  const longest = {
    name: mixed(120),
    email: "m".repeat(254 - domain.length) + domain,
    company: mixed(160),
    topic: mixed(2000),
    locale: "en",
    website: "",
  };
  const start = await takeSlot(app, "2026-12", "2026-12-14");
  const padded = Object.fromEntries(
    Object.entries(longest).map(([name, value]) => [name, ` \t${value}\n `]),
  );
  const body = JSON.stringify({ ...padded, start });
  assert.ok(new TextEncoder().encode(body).length <= BOOKING_LIMIT, "fits the body limit");
  await readCreated(
    await post(app, body, { "Content-Type": "application/json" }),
    "accepted",
    start,
  );
  const record = await findBooking(app, longest.email);
  assert.equal(record.name, longest.name);
  assert.equal(record.company, longest.company);
  assert.equal(record.topic, longest.topic);

  const shortest = await takeSlot(app, "2026-12", "2026-12-14");
  await readCreated(
    await book(app, {
      start: shortest,
      name: "Al",
      email: "a@b.pt",
      topic: "0123456789",
      locale: "pt",
      website: "  ",
    }),
    "accepted",
    shortest,
  );
  const minimal = await findBooking(app, "a@b.pt");
  assert.equal(minimal.company, undefined, "an absent company stays absent");
  const mails = await receiveMails(app, minimal.id, ["attendee-booked-0", "studio-new-0"]);
  assert.ok(!(mails["attendee-booked-0"].parsed.text ?? "").includes("Empresa"));
  assertNoInternalError(app);
});

test("POST /api/v1/booking answers 400 validation-failed one past each bound, naming the field", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-15");
  const domain = "@example.pt";
  const cases: Array<[field: string, value: unknown, problem: string]> = [
    ["name", "A", "length"],
    ["name", "  A  ", "length"],
    ["name", "n".repeat(121), "length"],
    ["name", "😀".repeat(121), "length"],
    ["name", "", "missing"],
    ["email", "m".repeat(255 - domain.length) + domain, "length"],
    ["email", "ana@", "format"],
    ["email", "ana example@example.pt", "format"],
    ["email", "ana@example..pt", "format"],
    ["email", "", "missing"],
    ["company", "c".repeat(161), "length"],
    ["topic", "123456789", "length"],
    ["topic", "t".repeat(2001), "length"],
    ["locale", "fr", "enum"],
    ["locale", "PT", "enum"],
    ["locale", "pt-PT", "enum"],
    ["locale", "", "missing"],
    ["start", "", "missing"],
    ["start", "amanhã às 10", "format"],
    ["website", "https://spam.example", "length"],
    ["website", "x", "length"],
  ];
  for (const [field, value, problem] of cases) {
    const label = `${field} = ${JSON.stringify(value).slice(0, 40)}`;
    const response = await book(app, buildBookingBody(start, { [field]: value }));
    const body = await readError(response, 400, "validation-failed");
    assert.equal(body.error.message, `Field "${field}" is invalid`, label);
    assert.equal(body.error.details?.length, 1, label);
    assert.equal(body.error.details?.[0].field, field, label);
    assert.equal(body.error.details?.[0].problem, problem, label);
    assert.ok(body.error.hint.includes(`"${field}"`), `${label}: ${body.error.hint}`);
  }
  assert.ok((await listSlots(app, "2026-12")).includes(start), "nothing was booked");
  assert.equal(await countKeys(app.store, ["booking"]), 0);
  assertNoInternalError(app);
});

test("POST /api/v1/booking answers 400 for wrong types and missing fields, listing each", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-15");
  const cases: Array<[field: string, value: unknown]> = [
    ["start", 1796290200000],
    ["name", 42],
    ["email", null],
    ["company", { name: "Lda" }],
    ["topic", ["a new website"]],
    ["locale", true],
    ["website", 0],
  ];
  for (const [field, value] of cases) {
    const body = await readError(
      await book(app, buildBookingBody(start, { [field]: value })),
      400,
      "validation-failed",
    );
    assert.deepEqual(
      body.error.details?.map((item) => [item.field, item.problem]),
      [[field, "type"]],
      `${field} = ${JSON.stringify(value)}`,
    );
    assert.equal(body.error.hint, `Send "${field}" as a string`);
  }
  const empty = await readError(await book(app, {}), 400, "validation-failed");
  assert.deepEqual(
    empty.error.details?.map((item) => [item.field, item.problem]),
    [["start", "missing"], ["name", "missing"], ["email", "missing"], ["topic", "missing"], [
      "locale",
      "missing",
    ]],
  );
  assert.equal(empty.error.hint, 'Add "start": it is required');
  const unknownIgnored = await takeSlot(app, "2026-12", "2026-12-15");
  await readCreated(
    await book(
      app,
      buildBookingBody(unknownIgnored, { email: "extra@example.pt", admin: true, status: "x" }),
    ),
    "accepted",
    unknownIgnored,
  );
  assertNoInternalError(app);
});

test("POST /api/v1/booking answers 400 bad-form to bodies that are not a JSON object", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-16");
  const valid = JSON.stringify(buildBookingBody(start));
  const bodies: Array<[label: string, body: BodyInit | null, message: RegExp]> = [
    ["malformed JSON", '{"start": "2026-12-16T09:30:00+00:00",', /not valid JSON/],
    ["single quotes", "{'start': 'x'}", /not valid JSON/],
    ["empty body", "", /not valid JSON/],
    ["no body", null, /not valid JSON/],
    ["invalid UTF-8", Uint8Array.of(0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d), /not valid UTF-8/],
    ["an array", `[${valid}]`, /not an object/],
    ["a string", JSON.stringify(valid), /not an object/],
    ["null", "null", /not an object/],
    ["a number", "42", /not an object/],
  ];
  for (const [label, body, message] of bodies) {
    const error = await readError(
      await post(app, body, { "Content-Type": "application/json" }),
      400,
      "bad-form",
    );
    assert.match(error.error.message, message, label);
    assert.match(error.error.hint, /application\/json/, label);
  }
  const types: Array<[label: string, body: BodyInit, headers: Record<string, string>]> = [
    ["text/plain", valid, { "Content-Type": "text/plain" }],
    ["no Content-Type", new TextEncoder().encode(valid), {}],
    ["urlencoded", new URLSearchParams(buildBookingBody(start) as Record<string, string>), {}],
    ["multipart", new FormData(), {}],
    ["Latin-1 JSON", valid, { "Content-Type": "application/json; charset=iso-8859-1" }],
    ["JSON-ish type", valid, { "Content-Type": "application/jsonp" }],
  ];
  for (const [label, body, headers] of types) {
    const error = await readError(await post(app, body, headers), 400, "bad-form");
    assert.match(error.error.message, /Content-Type must be application\/json/, label);
  }
  assert.ok((await listSlots(app, "2026-12")).includes(start), "nothing was booked");
  assertNoInternalError(app);
});

test("POST /api/v1/booking answers 413 bad-form to a body over its limit, declared or chunked", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-17");
  const email = "exactly8k@example.pt";
  /** A valid booking padded with spaces (JSON whitespace) to exactly `size` bytes. */
  const padTo = (size: number) => {
    const json = JSON.stringify(buildBookingBody(start, { email }));
    const bytes = new TextEncoder().encode(json).length;
    return json.slice(0, -1) + " ".repeat(size - bytes) + "}";
  };
  const over = padTo(BOOKING_LIMIT + 1);
  assert.equal(new TextEncoder().encode(over).length, BOOKING_LIMIT + 1);
  const tooLarge = await readError(
    await post(app, over, { "Content-Type": "application/json" }),
    413,
    "bad-form",
  );
  assert.equal(tooLarge.error.message, `The body is larger than ${BOOKING_LIMIT / 1024} KiB`);

  const mebibyte = new Uint8Array(1024 * 1024).fill(0x20);
  await readError(
    await post(app, mebibyte, { "Content-Type": "application/json" }),
    413,
    "bad-form",
  );

  // Declared too large: refused before a single byte is read.
  let pulledDeclared = 0;
  const declared = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulledDeclared++;
      controller.enqueue(new Uint8Array(1024).fill(0x20));
    },
  });
  await readError(
    await post(app, declared, {
      "Content-Type": "application/json",
      "Content-Length": String(1024 * 1024),
    }),
    413,
    "bad-form",
  );
  assert.ok(pulledDeclared <= 1, `read ${pulledDeclared} chunks of a declared 1 MiB body`);

  // Chunked without Content-Length and endless: refused as soon as it passes the limit.
  let pulledBytes = 0;
  let cancelled = false;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulledBytes += 1024;
      controller.enqueue(new Uint8Array(1024).fill(0x20));
    },
    cancel() {
      cancelled = true;
    },
  });
  await readError(
    await post(app, endless, { "Content-Type": "application/json" }),
    413,
    "bad-form",
  );
  assert.ok(cancelled, "the stream was cancelled");
  assert.ok(
    pulledBytes <= BOOKING_LIMIT + 8 * 1024,
    `read ${pulledBytes} bytes of an endless body`,
  );

  assert.ok((await listSlots(app, "2026-12")).includes(start), "nothing was booked");
  const exact = padTo(BOOKING_LIMIT);
  assert.equal(new TextEncoder().encode(exact).length, BOOKING_LIMIT);
  await readCreated(
    await post(app, exact, { "Content-Type": "application/json" }),
    "accepted",
    start,
  );
  assertNoInternalError(app);
});

test(
  "POST /api/v1/booking accepts a request whose every field is at its limit in 4-byte characters",
  {},
  async () => {
    const app = createApp();
    const start = await takeSlot(app, "2026-12", "2026-12-17");
    const email = "e".repeat(243) + "@example.pt";
    const body = buildBookingBody(start, {
      name: "😀".repeat(120),
      email,
      company: "😀".repeat(160),
      topic: "😀".repeat(2000),
    });
    await readCreated(await book(app, body), "accepted", start);
  },
);

test("POST /api/v1/booking answers 409 to valid instants that are not available", async () => {
  const app = createApp();
  const cases: Array<[label: string, start: string]> = [
    ["off the grid", "2026-12-02T09:45:00+00:00"],
    ["at closing time", "2026-12-02T12:30:00+00:00"],
    ["at lunch", "2026-12-02T13:00:00+00:00"],
    ["after hours", "2026-12-02T18:00:00+00:00"],
    ["before opening", "2026-12-02T09:00:00+00:00"],
    ["one second off", "2026-12-02T09:30:01+00:00"],
    ["a Saturday", "2026-12-05T09:30:00+00:00"],
    ["a holiday (1 December)", "2026-12-01T09:30:00+00:00"],
    ["a holiday (8 December)", "2026-12-08T09:30:00+00:00"],
    ["a closed date (24 December)", "2026-12-24T09:30:00+00:00"],
    ["a listed wall time in the wrong offset", "2026-12-02T09:30:00+01:00"],
    ["in the past", "2026-11-20T09:30:00+00:00"],
    ["long past", "1970-01-01T00:00:00Z"],
    ["beyond the horizon", "2027-05-24T09:30:00+01:00"],
    ["far in the future", "9999-12-31T23:59:59Z"],
    ["the year 1000", "1000-01-06T09:30:00Z"],
    ["with an extreme offset", "2026-12-02T09:30:00+23:59"],
  ];
  for (const [label, start] of cases) {
    const response = await book(app, buildBookingBody(start));
    assert.equal(response.status, 409, label);
    await readConflict(response);
  }
  assert.equal(await countKeys(app.store, ["booking"]), 0);
  assertNoInternalError(app);
});

test("POST /api/v1/booking answers 400 to a start that is not an RFC 3339 date-time", async () => {
  const app = createApp();
  const cases = [
    "2026-12-02",
    "2026-12-02T09:30:00",
    "2026-12-02T09:30Z",
    "2026-12-02 09:30:00Z",
    "2026-02-30T09:30:00Z",
    "2026-12-02T24:00:00Z",
    "2026-12-02T09:60:00Z",
    "2026-12-02T09:30:00+24:00",
    "2026-12-02T09:30:00Z[Europe/Lisbon]",
    "+002026-12-02T09:30:00Z",
    "1796290200",
    "x".repeat(65),
  ];
  for (const start of cases) {
    const body = await readError(
      await book(app, buildBookingBody(start)),
      400,
      "validation-failed",
    );
    assert.equal(body.error.details?.[0].field, "start", start);
    assert.match(body.error.hint, /"start"/, start);
  }
  assertNoInternalError(app);
});

test(
  "POST /api/v1/booking answers 409, not 400, to a valid date-time in the years 0000 to 0099",
  {},
  async () => {
    const app = createApp();
    await readConflict(await book(app, buildBookingBody("0099-06-01T09:30:00Z")));
  },
);

test("POST /api/v1/booking books only within the notice and the horizon, boundaries included", async () => {
  const app = createApp();
  // 12 h notice: at 02:00Z on Tuesday 24 November, 14:00 is the first bookable start.
  app.clock.set("2026-11-24T02:00:00Z");
  await readConflict(await book(app, buildBookingBody("2026-11-24T12:00:00+00:00")));
  await readCreated(
    await book(app, buildBookingBody("2026-11-24T14:00:00+00:00", { email: "notice@example.pt" })),
    "accepted",
    "2026-11-24T14:00:00+00:00",
  );
  // 183 days: at 09:30Z on 24 November, 2027-05-26 09:30 (Lisbon) is the last bookable start.
  app.clock.set("2026-11-24T09:30:00Z");
  await readConflict(await book(app, buildBookingBody("2027-05-26T10:00:00+01:00")));
  await readCreated(
    await book(app, buildBookingBody("2027-05-26T09:30:00+01:00", { email: "horizon@example.pt" })),
    "accepted",
    "2027-05-26T09:30:00+01:00",
  );
});

test("POST /api/v1/booking answers 403 to a foreign or null Origin and books without one", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-18");
  for (
    const origin of [
      "https://evil.example",
      "null",
      "http://localhost:8000.evil.example",
      "https://localhost:8000",
      "http://localhost:8001",
      "http://localhost",
    ]
  ) {
    const body = await readError(
      await book(app, buildBookingBody(start), { Origin: origin }),
      403,
      "validation-failed",
    );
    assert.match(body.error.message, /is not allowed to post here/, origin);
    assert.match(body.error.hint, /http:\/\/localhost:8000\//, origin);
  }
  assert.ok((await listSlots(app, "2026-12")).includes(start), "a refused origin books nothing");
  await readCreated(
    await book(app, buildBookingBody(start, { email: "own.origin@example.pt" }), {
      Origin: BASE_URL,
    }),
    "accepted",
    start,
  );
  const second = await takeSlot(app, "2026-12", "2026-12-18");
  await readCreated(
    await book(app, buildBookingBody(second, { email: "no.origin@example.pt" })),
    "accepted",
    second,
  );

  const configured = createApp({
    allowedOrigins: ["https://studio.example", "https://www.studio.example"],
  });
  const third = await takeSlot(configured, "2026-12", "2026-12-18");
  // Neither configured nor the request's own origin (another port is another origin).
  await readError(
    await book(configured, buildBookingBody(third), { Origin: "http://localhost:8080" }),
    403,
    "validation-failed",
  );
  await readCreated(
    await book(configured, buildBookingBody(third, { email: "www@example.pt" }), {
      Origin: "https://www.studio.example",
    }),
    "accepted",
    third,
  );
});

test("GET /api/v1/booking answers 405 with Allow: POST", async () => {
  const app = createApp();
  const response = await app.handler(buildRequest("/api/v1/booking"), CLIENT);
  const body = await readError(response, 405, "not-found");
  assert.equal(response.headers.get("Allow"), "POST");
  assert.match(body.error.hint, /POST/);
});

// ---------------------------------------------------------------------------------------------
// Idempotency

test("POST /api/v1/booking replays the first answer to a repeat with the same Idempotency-Key", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-21");
  const email = "idempotent@example.pt";
  const key = crypto.randomUUID();
  const body = buildBookingBody(start, { email });
  await readCreated(await book(app, body, { "Idempotency-Key": key }), "accepted", start);
  // The same validated request: the trimmed form hashes the same.
  app.clock.advance({ hours: 23, minutes: 59 });
  const padded = { ...body, name: "  Ana Sousa  " };
  await readCreated(await book(app, padded, { "Idempotency-Key": key }), "accepted", start);

  const changed = await readError(
    await book(app, { ...body, topic: "Um assunto completamente diferente" }, {
      "Idempotency-Key": key,
    }),
    400,
    "validation-failed",
  );
  assert.match(changed.error.message, /Idempotency-Key/);
  assert.match(changed.error.hint, /new Idempotency-Key/);

  const record = await findBooking(app, email);
  await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
  assert.equal(await countKeys(app.store, ["booking"]), 1);

  // Without the key, the same body is a new request: the slot is taken.
  await readConflict(await book(app, body));

  // After 24 hours the key is free again, for any request.
  app.clock.advance({ minutes: 1, seconds: 1 });
  const later = await takeSlot(app, "2026-12", "2026-12-21");
  await readCreated(
    await book(app, buildBookingBody(later, { email: "idempotent.later@example.pt" }), {
      "Idempotency-Key": key,
    }),
    "accepted",
    later,
  );
});

test("POST /api/v1/booking books once for simultaneous repeats with one Idempotency-Key", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-22");
  const email = "idempotent.race@example.pt";
  const responses = await Promise.all(
    Array.from(
      { length: 10 },
      () => book(app, buildBookingBody(start, { email }), { "Idempotency-Key": "race-key-1" }),
    ),
  );
  for (const response of responses) await readCreated(response, "accepted", start);
  const record = await findBooking(app, email);
  await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
});

test("POST /api/v1/booking answers 400 to a malformed Idempotency-Key before reading the body", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-22");
  for (const key of ["", "two words", "k".repeat(201), "tab\tkey"]) {
    const body = await readError(
      await book(app, buildBookingBody(start), { "Idempotency-Key": key }),
      400,
      "validation-failed",
    );
    assert.equal(body.error.message, "Header Idempotency-Key is invalid", JSON.stringify(key));
  }
  await readCreated(
    await book(app, buildBookingBody(start, { email: "key200@example.pt" }), {
      "Idempotency-Key": "k".repeat(200),
    }),
    "accepted",
    start,
  );
});

// ---------------------------------------------------------------------------------------------
// Quotas

test("POST /api/v1/booking counts against the booking quota of 5 per 300 s, the honeypot included", async () => {
  const app = createApp({ rateLimits: {} });
  const start = await takeSlot(app, "2026-12", "2026-12-23");
  const client = fromAddress("203.0.113.50");
  const expectedRemaining = [4, 3, 2, 1, 0];
  for (const [index, remaining] of expectedRemaining.entries()) {
    const response = await book(
      app,
      buildBookingBody(start, { website: "https://spam.example" }),
      {},
      client,
    );
    assert.equal(response.headers.get("RateLimit-Policy"), DEFAULT_POLICY);
    assert.equal(
      response.headers.get("RateLimit"),
      `"write";r=${9 - index};t=60, "booking";r=${remaining};t=300`,
    );
    assert.equal(response.headers.get("RateLimit-Limit"), "5");
    assert.equal(response.headers.get("RateLimit-Remaining"), String(remaining));
    assert.equal(response.headers.get("RateLimit-Reset"), "300");
    assert.equal(response.headers.get("Retry-After"), null);
    const body = await readError(response, 400, "validation-failed");
    assert.equal(body.error.details?.[0].field, "website");
  }
  const limited = await book(
    app,
    buildBookingBody(start, { email: "late@example.pt" }),
    {},
    client,
  );
  await readError(limited, 429, "rate-limited");
  assert.equal(limited.headers.get("RateLimit-Policy"), DEFAULT_POLICY);
  assert.equal(limited.headers.get("Retry-After"), "300");
  assert.equal(limited.headers.get("RateLimit-Remaining"), "0");
  assert.ok((await listSlots(app, "2026-12")).includes(start), "a 429 books nothing");

  // The write window (60 s) resets; the booking window (300 s) does not.
  app.clock.advance({ seconds: 60 });
  const stillLimited = await book(app, buildBookingBody(start), {}, client);
  await readError(stillLimited, 429, "rate-limited");
  assert.equal(stillLimited.headers.get("Retry-After"), "240");
  assert.equal(
    stillLimited.headers.get("RateLimit"),
    '"write";r=9;t=60, "booking";r=0;t=240',
  );

  // Another client has its own quota.
  await readCreated(
    await book(app, buildBookingBody(start, { email: "other.client@example.pt" }), {}, CLIENT),
    "accepted",
    start,
  );

  app.clock.advance({ seconds: 240 });
  const next = await takeSlot(app, "2026-12", "2026-12-23");
  const again = await book(
    app,
    buildBookingBody(next, { email: "after.window@example.pt" }),
    {},
    client,
  );
  assert.equal(again.headers.get("RateLimit"), '"write";r=9;t=60, "booking";r=4;t=300');
  await readCreated(again, "accepted", next);
});

test("POST /api/v1/booking counts against the write quota of 10 per 60 s shared with contact", async () => {
  const app = createApp({ rateLimits: {} });
  const start = await takeSlot(app, "2026-12", "2026-12-23");
  const client = fromAddress("203.0.113.60");
  for (let index = 0; index < 10; index++) {
    const response = await app.handler(
      buildRequest("/api/v1/contact", {
        method: "POST",
        body: "{}",
        headers: { "Content-Type": "application/json" },
      }),
      client,
    );
    assert.equal(response.status, 400);
    assert.equal(response.headers.get("RateLimit-Policy"), '"write";q=10;w=60');
    await response.body?.cancel();
  }
  const limited = await book(app, buildBookingBody(start), {}, client);
  await readError(limited, 429, "rate-limited");
  assert.equal(limited.headers.get("RateLimit-Policy"), DEFAULT_POLICY);
  assert.equal(limited.headers.get("RateLimit"), '"write";r=0;t=60, "booking";r=4;t=300');
  assert.equal(limited.headers.get("Retry-After"), "60");
  assert.equal(limited.headers.get("RateLimit-Limit"), "10");

  app.clock.advance({ seconds: 60 });
  await readCreated(
    await book(app, buildBookingBody(start, { email: "write.quota@example.pt" }), {}, client),
    "accepted",
    start,
  );
});

// ---------------------------------------------------------------------------------------------
// Signed links: manual confirmation, decline, cancel

test("POST /api/v1/booking in manual mode holds the slot, and the studio's confirm link sends the invite", async () => {
  const app = createApp({ confirmation: "manual" });
  const start = await takeSlot(app, "2026-12", "2026-12-28");
  const email = "manual.confirm@example.pt";
  await readCreated(
    await book(app, buildBookingBody(start, { email, locale: "en" })),
    "pending",
    start,
  );
  assert.ok(!(await listSlots(app, "2026-12")).includes(start), "a pending booking holds the slot");
  await readConflict(await book(app, buildBookingBody(start, { email: "second@example.pt" })));

  const record = await findBooking(app, email);
  assert.equal(record.status, "pending");
  assert.equal(record.attendeeInvited, false);
  const first = await receiveMails(app, record.id, ["attendee-pending-0", "studio-new-0"]);
  const pending = first["attendee-pending-0"];
  assertToAttendee(pending, email);
  assert.equal(pending.parsed.subject, "Conversation request received — awaiting confirmation");
  assert.match(pending.parsed.text ?? "", /The team will confirm it shortly/);
  assert.equal(hasCalendar(pending), false, "no invite before confirmation");
  assert.deepEqual(Object.keys(findLinks(pending)), ["cancel"]);

  const studio = first["studio-new-0"];
  assertToStudio(studio, email);
  assert.match(studio.parsed.subject ?? "", /^Nova conversa a confirmar: Ana Sousa — /);
  assert.match(studio.parsed.text ?? "", /pedido de conversa à espera de confirmação/);
  assert.deepEqual(Object.keys(findLinks(studio)).sort(), ["cancel", "confirm", "decline"]);
  const confirmLink = findLink(studio, "confirm");
  const studioInvite = readInvite(studio, "REQUEST");
  assertInvite(studioInvite, record, { sequence: 0, locale: "pt" });

  // Opening the link only shows a page with a button.
  const page = await openLink(app, confirmLink, "GET");
  assert.equal(page.status, 200);
  assert.match(
    page.html,
    /<form method="post" action="\/booking\/confirm\?id=[0-9A-Z]{26}&amp;sig=[\w-]{43}" class="action-form"><button type="submit">Confirmar<\/button><\/form>/,
  );
  assert.ok(page.html.includes(email));
  assert.equal((await findBooking(app, email)).status, "pending", "GET changes nothing");
  await receiveMails(app, record.id, ["attendee-pending-0", "studio-new-0"]);

  const confirmed = await openLink(app, confirmLink, "POST");
  assert.equal(confirmed.status, 200);
  assert.match(confirmed.html, /Conversa confirmada\. O convite foi enviado\./);
  const after = await findBooking(app, email);
  assert.equal(after.status, "accepted");
  assert.equal(after.attendeeInvited, true);
  const second = await receiveMails(app, record.id, [
    "attendee-pending-0",
    "studio-new-0",
    "attendee-booked-0",
  ]);
  const invited = second["attendee-booked-0"];
  assertToAttendee(invited, email);
  assert.match(invited.parsed.subject ?? "", /^Conversation booked: Monday, 28 December 2026/);
  const invite = readInvite(invited, "REQUEST");
  assertInvite(invite, after, { sequence: 0, locale: "en" });
  assert.equal(invite.uid, studioInvite.uid);
  assert.deepEqual(Object.keys(findLinks(invited)), ["cancel"]);

  // A replayed confirm changes nothing; a decline after it is refused.
  const replayed = await openLink(app, confirmLink, "POST");
  assert.equal(replayed.status, 200);
  assert.match(replayed.html, /já estava confirmada/);
  const decline = await openLink(app, findLink(studio, "decline"), "POST");
  assert.equal(decline.status, 409);
  assert.match(decline.html, /já não é possível/);
  assert.equal((await findBooking(app, email)).status, "accepted");
  await receiveMails(app, record.id, ["attendee-pending-0", "studio-new-0", "attendee-booked-0"]);
  assert.ok(!(await listSlots(app, "2026-12")).includes(start));
  assertNoInternalError(app);
});

test("POST /booking/decline frees the slot, sends the studio a CANCEL and the attendee a plain notice", async () => {
  const app = createApp({ confirmation: "manual" });
  const start = await takeSlot(app, "2027-05", "2027-05-10");
  const email = "manual.decline@example.pt";
  await readCreated(await book(app, buildBookingBody(start, { email })), "pending", start);
  const record = await findBooking(app, email);
  const first = await receiveMails(app, record.id, ["attendee-pending-0", "studio-new-0"]);
  const pending = first["attendee-pending-0"];
  assert.equal(pending.parsed.subject, "Pedido de conversa recebido — a aguardar confirmação");
  const declineLink = findLink(first["studio-new-0"], "decline");
  const request = readInvite(first["studio-new-0"], "REQUEST");

  const page = await openLink(app, declineLink, "GET");
  assert.equal(page.status, 200);
  assert.match(page.html, /<button type="submit">Recusar<\/button>/);

  const declined = await openLink(app, declineLink, "POST");
  assert.equal(declined.status, 200);
  assert.match(declined.html, /Pedido recusado/);
  const after = await findBooking(app, email);
  assert.equal(after.status, "declined");
  assert.equal(after.sequence, 1);
  assert.ok((await listSlots(app, "2027-05")).includes(start), "the slot is listed again");
  assert.equal((await app.store.get(["slot", record.startEpochMs])).value, null);

  const mails = await receiveMails(app, record.id, [
    "attendee-pending-0",
    "studio-new-0",
    "attendee-declined-1",
    "studio-cancelled-1",
  ]);
  const notice = mails["attendee-declined-1"];
  assertToAttendee(notice, email);
  assert.equal(notice.parsed.subject, "Não foi possível confirmar a conversa");
  assert.match(notice.parsed.text ?? "", /não conseguimos confirmar a conversa/);
  assert.equal(hasCalendar(notice), false, "no invite went out, so no CANCEL either");
  const cancel = readInvite(mails["studio-cancelled-1"], "CANCEL");
  assertToStudio(mails["studio-cancelled-1"], email);
  assertInvite(cancel, after, { sequence: 1, locale: "pt" });
  assert.equal(cancel.uid, request.uid);
  assert.equal(cancel.status, "CANCELLED");
  assert.equal(cancel.sequence, request.sequence + 1);

  // Replays and later actions.
  const replayed = await openLink(app, declineLink, "POST");
  assert.equal(replayed.status, 200);
  assert.match(replayed.html, /já tinha sido recusado/);
  const confirm = await openLink(app, findLink(first["studio-new-0"], "confirm"), "POST");
  assert.equal(confirm.status, 409);
  const cancelAfter = await openLink(app, findLink(first["studio-new-0"], "cancel"), "POST");
  assert.equal(cancelAfter.status, 200, "a declined booking counts as called off");
  await receiveMails(app, record.id, [
    "attendee-pending-0",
    "studio-new-0",
    "attendee-declined-1",
    "studio-cancelled-1",
  ]);

  // The freed slot can be booked again.
  await readCreated(
    await book(app, buildBookingBody(start, { email: "rebook@example.pt" })),
    "pending",
    start,
  );
});

test(
  "GET /booking/confirm of a declined booking does not claim it was confirmed",
  {},
  async () => {
    const app = createApp({ confirmation: "manual" });
    const start = await takeSlot(app, "2027-05", "2027-05-11");
    const email = "declined.page@example.pt";
    await readCreated(await book(app, buildBookingBody(start, { email })), "pending", start);
    const record = await findBooking(app, email);
    const mails = await receiveMails(app, record.id, ["attendee-pending-0", "studio-new-0"]);
    const studio = mails["studio-new-0"];
    assert.equal((await openLink(app, findLink(studio, "decline"), "POST")).status, 200);
    const page = await openLink(app, findLink(studio, "confirm"), "GET");
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.html, /já estava confirmada/);
    assert.match(page.html, /recusad/);
  },
);

test("POST /booking/cancel frees the slot and sends METHOD:CANCEL with a higher SEQUENCE to both sides", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2027-05", "2027-05-12");
  const email = "cancel.me@example.pt";
  await readCreated(
    await book(app, buildBookingBody(start, { email, locale: "en" })),
    "accepted",
    start,
  );
  const record = await findBooking(app, email);
  const first = await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
  const request = readInvite(first["attendee-booked-0"], "REQUEST");
  const link = findLink(first["attendee-booked-0"], "cancel");

  const page = await openLink(app, link, "GET");
  assert.equal(page.status, 200);
  assert.match(page.html, /<html lang="en">/, "the attendee's language");
  assert.match(page.html, /<button type="submit">Cancel the conversation<\/button>/);
  assert.equal((await findBooking(app, email)).status, "accepted", "GET changes nothing");

  const cancelled = await openLink(app, link, "POST");
  assert.equal(cancelled.status, 200);
  assert.match(cancelled.html, /Conversation cancelled\./);
  const after = await findBooking(app, email);
  assert.equal(after.status, "cancelled");
  assert.equal(after.sequence, 1);
  assert.ok((await listSlots(app, "2027-05")).includes(start), "the slot is listed again");

  const mails = await receiveMails(app, record.id, [
    "attendee-booked-0",
    "studio-new-0",
    "attendee-cancelled-1",
    "studio-cancelled-1",
  ]);
  const attendee = mails["attendee-cancelled-1"];
  assertToAttendee(attendee, email);
  assert.match(attendee.parsed.subject ?? "", /^Conversation cancelled: Wednesday, 12 May 2027/);
  const attendeeCancel = readInvite(attendee, "CANCEL");
  assertInvite(attendeeCancel, after, { sequence: 1, locale: "en" });
  assert.equal(attendeeCancel.uid, request.uid);
  assert.equal(attendeeCancel.status, "CANCELLED");
  assert.ok(attendeeCancel.sequence > request.sequence);
  const studio = mails["studio-cancelled-1"];
  assertToStudio(studio, email);
  assert.match(studio.parsed.subject ?? "", /^Conversa cancelada: Ana Sousa — /);
  const studioCancel = readInvite(studio, "CANCEL");
  assertInvite(studioCancel, after, { sequence: 1, locale: "pt" });
  assert.equal(studioCancel.uid, request.uid);

  const replayed = await openLink(app, link, "POST");
  assert.equal(replayed.status, 200);
  assert.match(replayed.html, /already cancelled/);
  await receiveMails(app, record.id, [
    "attendee-booked-0",
    "studio-new-0",
    "attendee-cancelled-1",
    "studio-cancelled-1",
  ]);
  await readCreated(
    await book(app, buildBookingBody(start, { email: "next.person@example.pt" })),
    "accepted",
    start,
  );
});

test("POST /booking/cancel of a pending booking frees the slot and tells both sides", async () => {
  const app = createApp({ confirmation: "manual" });
  const start = await takeSlot(app, "2026-12", "2026-12-29");
  const email = "pending.cancel@example.pt";
  await readCreated(await book(app, buildBookingBody(start, { email })), "pending", start);
  const record = await findBooking(app, email);
  const first = await receiveMails(app, record.id, ["attendee-pending-0", "studio-new-0"]);
  const link = findLink(first["attendee-pending-0"], "cancel");
  assert.equal((await openLink(app, link, "POST")).status, 200);
  assert.ok((await listSlots(app, "2026-12")).includes(start));
  const mails = await receiveMails(app, record.id, [
    "attendee-pending-0",
    "studio-new-0",
    "attendee-cancelled-1",
    "studio-cancelled-1",
  ]);
  assertToAttendee(mails["attendee-cancelled-1"], email);
  assert.equal(readInvite(mails["studio-cancelled-1"], "CANCEL").sequence, 1);
  const confirm = await openLink(app, findLink(first["studio-new-0"], "confirm"), "POST");
  assert.equal(confirm.status, 409, "a cancelled request cannot be confirmed");
});

test("POST /booking/cancel answers 409 once the conversation has started", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-30");
  const email = "too.late@example.pt";
  await readCreated(await book(app, buildBookingBody(start, { email })), "accepted", start);
  const record = await findBooking(app, email);
  const mails = await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
  const link = findLink(mails["attendee-booked-0"], "cancel");
  app.clock.set(start);
  const late = await openLink(app, link, "POST");
  assert.equal(late.status, 409);
  assert.match(late.html, /já não é possível/);
  assert.equal((await findBooking(app, email)).status, "accepted");
  await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
});

test("POST /api/v1/booking answers 429 once an attendee address had 3 bookings in the day, whoever books", async () => {
  const app = createApp();
  const starts = [];
  for (let index = 0; index < 5; index++) starts.push(await takeSlot(app, "2026-12"));
  // Three bookings for one address, from three clients, in three spellings of it.
  for (
    const [index, email] of ["quota@example.pt", "Quota@Example.pt", "QUOTA@example.pt"].entries()
  ) {
    const client = fromAddress(`198.51.100.${10 + index}`);
    await readCreated(
      await book(app, buildBookingBody(starts[index], { email }), {}, client),
      "accepted",
      starts[index],
    );
  }
  const refused = await book(
    app,
    buildBookingBody(starts[3], { email: "quota@example.pt" }),
    {},
    fromAddress("198.51.100.20"),
  );
  const body = await readError(refused, 429, "rate-limited");
  assert.match(body.error.message, /already has 3 bookings today/);
  // Until the end of the UTC day: 2026-11-21T10:00Z + 14 h.
  assert.equal(refused.headers.get("Retry-After"), String(14 * 3600));
  assert.match(body.error.hint, /retry after 50400 s/);
  assert.ok((await listSlots(app, "2026-12")).includes(starts[3]), "nothing was held");
  // Another address books; the next day, the first address books again.
  await readCreated(
    await book(app, buildBookingBody(starts[3], { email: "someone.else@example.pt" })),
    "accepted",
    starts[3],
  );
  app.clock.set("2026-11-22T00:00:01Z");
  await readCreated(
    await book(app, buildBookingBody(starts[4], { email: "quota@example.pt" })),
    "accepted",
    starts[4],
  );
});

test("POST /api/v1/booking keeps the per-address quota under simultaneous bookings", async () => {
  const app = createApp({ bookingsPerAttendee: 2 });
  const starts = [];
  for (let index = 0; index < 6; index++) starts.push(await takeSlot(app, "2026-12"));
  const responses = await Promise.all(starts.map((start, index) =>
    book(
      app,
      buildBookingBody(start, { email: "burst@example.pt" }),
      {},
      fromAddress(`198.51.100.${30 + index}`),
    )
  ));
  const statuses = responses.map((response) => response.status).sort();
  assert.deepEqual(statuses, [201, 201, 429, 429, 429, 429]);
  await Promise.all(responses.map((response) => response.body?.cancel()));
});

test("a pending booking's hold lapses after 48 hours: the slot is free again, and its links can no longer confirm or decline", async () => {
  const app = createApp({ confirmation: "manual" });
  const start = await takeSlot(app, "2026-12", "2026-12-22");
  const email = "unanswered@example.pt";
  await readCreated(await book(app, buildBookingBody(start, { email })), "pending", start);
  const record = await findBooking(app, email);
  assert.equal(
    record.holdUntilEpochMs,
    Date.parse(NOW) + 48 * 3600_000,
    "held 48 hours from the booking",
  );
  const first = await receiveMails(app, record.id, ["attendee-pending-0", "studio-new-0"]);
  assert.match(first["studio-new-0"].parsed.text ?? "", /Sem confirmação até .*o pedido caduca/);
  assert.ok(!(await listSlots(app, "2026-12")).includes(start), "held while pending");

  app.clock.set(Temporal.Instant.from(NOW).add({ hours: 48 }).toString());
  assert.ok((await listSlots(app, "2026-12")).includes(start), "free once the hold lapsed");
  const confirmLink = findLink(first["studio-new-0"], "confirm");
  const shown = await openLink(app, confirmLink, "GET");
  assert.equal(shown.status, 200);
  assert.match(shown.html, /Este pedido caducou/);
  assert.doesNotMatch(shown.html, /<form method="post"/, "no button to press");
  for (const action of ["confirm", "decline"] as const) {
    const page = await openLink(app, findLink(first["studio-new-0"], action), "POST");
    assert.equal(page.status, 409, action);
    assert.match(page.html, /Este pedido caducou/, action);
  }
  assert.equal((await findBooking(app, email)).status, "pending");

  // Someone else books the freed slot; the lapsed request's cancel link leaves their hold alone.
  const other = "next.in.line@example.pt";
  await readCreated(await book(app, buildBookingBody(start, { email: other })), "pending", start);
  const cancelled = await openLink(app, findLink(first["attendee-pending-0"], "cancel"), "POST");
  assert.equal(cancelled.status, 200);
  assert.equal((await findBooking(app, email)).status, "cancelled");
  assert.ok(!(await listSlots(app, "2026-12")).includes(start), "still held for the other");
  await receiveMails(app, record.id, [
    "attendee-pending-0",
    "studio-new-0",
    "attendee-cancelled-1",
    "studio-cancelled-1",
  ]);
});

test("a confirm link opened after the start answers 409 and sends nothing", async () => {
  const app = createApp({ confirmation: "manual" });
  const start = await takeSlot(app, "2026-11", "2026-11-23");
  const email = "too.late.to.confirm@example.pt";
  await readCreated(await book(app, buildBookingBody(start, { email })), "pending", start);
  const record = await findBooking(app, email);
  assert.equal(
    record.holdUntilEpochMs,
    Date.parse(start),
    "held until the start, sooner than 48 h",
  );
  const first = await receiveMails(app, record.id, ["attendee-pending-0", "studio-new-0"]);
  app.clock.set(Temporal.Instant.from(start).add({ hours: 72 }).toString());
  const page = await openLink(app, findLink(first["studio-new-0"], "confirm"), "POST");
  assert.equal(page.status, 409);
  assert.match(page.html, /Este pedido caducou/);
  assert.equal((await findBooking(app, email)).status, "pending");
  await receiveMails(app, record.id, ["attendee-pending-0", "studio-new-0"]);
});

test("confirming within the hold keeps the slot held for good", async () => {
  const app = createApp({ confirmation: "manual" });
  const start = await takeSlot(app, "2026-12", "2026-12-23");
  const email = "answered.in.time@example.pt";
  await readCreated(await book(app, buildBookingBody(start, { email })), "pending", start);
  const record = await findBooking(app, email);
  const first = await receiveMails(app, record.id, ["attendee-pending-0", "studio-new-0"]);
  app.clock.set(Temporal.Instant.from(NOW).add({ hours: 47 }).toString());
  assert.equal(
    (await openLink(app, findLink(first["studio-new-0"], "confirm"), "POST")).status,
    200,
  );
  app.clock.set(Temporal.Instant.from(NOW).add({ hours: 49 }).toString());
  assert.ok(!(await listSlots(app, "2026-12")).includes(start), "held after the pending window");
  await readError(
    await book(app, buildBookingBody(start, { email: "late.comer@example.pt" })),
    409,
    "validation-failed",
  );
});

test("POST /booking/<action> answers 403 to forged links and 404 to a signed unknown booking", async () => {
  const app = createApp({ confirmation: "manual" });
  const start = await takeSlot(app, "2026-12", "2026-12-30");
  const email = "forged@example.pt";
  await readCreated(await book(app, buildBookingBody(start, { email })), "pending", start);
  const record = await findBooking(app, email);
  const first = await receiveMails(app, record.id, ["attendee-pending-0", "studio-new-0"]);
  const links = findLinks(first["studio-new-0"]);
  const signature = new URL(findLink(first["studio-new-0"], "confirm")).searchParams.get("sig") ??
    "";
  const cancelSignature =
    new URL(findLink(first["studio-new-0"], "cancel")).searchParams.get("sig") ?? "";
  const flipped = (signature[0] === "A" ? "B" : "A") + signature.slice(1);
  const otherId = record.id.slice(0, -1) + (record.id.endsWith("0") ? "1" : "0");
  const forged = [
    `/booking/confirm?id=${record.id}&sig=${flipped}`,
    `/booking/confirm?id=${record.id}&sig=${signature.slice(0, -1)}`,
    `/booking/confirm?id=${record.id}`,
    `/booking/confirm?sig=${signature}`,
    `/booking/confirm?id=${otherId}&sig=${signature}`,
    `/booking/confirm?id=${record.id.toLowerCase()}&sig=${signature}`,
    // A valid signature of another action does not carry over.
    `/booking/decline?id=${record.id}&sig=${signature}`,
    `/booking/cancel?id=${record.id}&sig=${signature}`,
    `/booking/confirm?id=${record.id}&sig=${cancelSignature}`,
    `/booking/confirm?id=${record.id}&sig=${"A".repeat(43)}`,
    `/booking/confirm?id=${record.id}&sig=${encodeURIComponent(signature + "==")}`,
  ];
  for (const path of forged) {
    for (const method of ["GET", "POST"] as const) {
      const page = await openLink(app, BASE_URL + path, method);
      assert.equal(page.status, 403, `${method} ${path}`);
      // Without a signature, the page's own URL asks for the e-mail's link.
      const unsigned = method === "GET" && !path.includes("sig=");
      assert.match(page.html, unsigned ? /Abra a ligação do e-mail/ : /Esta ligação não é válida/);
    }
  }
  // Signed with the studio's key (an old booking since removed): valid link, no booking.
  const signer = createLinkSigner(() => Promise.resolve(SECRET));
  const unknownId = "01KAAAAAAAAAAAAAAAAAAAAAAA";
  const unknown = await openLink(
    app,
    await signer.buildUrl(BASE_URL, "cancel", unknownId),
    "POST",
  );
  assert.equal(unknown.status, 404);
  assert.match(unknown.html, /Não encontrámos esta conversa/);
  assert.equal(
    await signer.buildUrl(BASE_URL, "confirm", record.id),
    links.confirm,
    "links are the HMAC of action and id under the configured secret",
  );

  // Nothing of that changed the booking or sent mail.
  assert.equal((await findBooking(app, email)).status, "pending");
  await receiveMails(app, record.id, ["attendee-pending-0", "studio-new-0"]);
  assertNoInternalError(app);
});

test("POST /booking/<action> counts against the write quota", async () => {
  const app = createApp({ rateLimits: { write: 3 } });
  const start = await takeSlot(app, "2026-12", "2026-12-30");
  const email = "action.quota@example.pt";
  await readCreated(await book(app, buildBookingBody(start, { email })), "accepted", start);
  const record = await findBooking(app, email);
  const mails = await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
  const link = findLink(mails["attendee-booked-0"], "cancel");
  // The booking took one write; the page client is another address with its own quota.
  assert.equal((await openLink(app, link, "POST")).status, 200);
  assert.equal((await openLink(app, link, "POST")).status, 200);
  assert.equal((await openLink(app, link, "POST")).status, 200);
  const limited = await openLink(app, link, "POST");
  assert.equal(limited.status, 429);
  assert.match(limited.html, /Demasiados pedidos/);
});

// ---------------------------------------------------------------------------------------------
// Store failures

/** A store whose reads or commits reject, around a memory store. */
function createFailingStore(failing: { reads?: boolean; commits?: boolean }): Store {
  const inner = createMemoryStore();
  const fail = () => Promise.reject(new Error("database is locked"));
  return {
    get: (key) => failing.reads ? fail() : inner.get(key),
    set: (key, value, options) => inner.set(key, value, options),
    delete: (key) => inner.delete(key),
    list: (selector, options) => {
      if (!failing.reads) return inner.list(selector, options);
      return {
        [Symbol.asyncIterator]: () => ({ next: fail }),
      };
    },
    atomic(): AtomicOperation {
      const operation = inner.atomic();
      const wrapper: AtomicOperation = {
        check(...checks: AtomicCheck[]) {
          operation.check(...checks);
          return this;
        },
        set(key: KvKey, value: unknown, options?: KvSetOptions) {
          operation.set(key, value, options);
          return this;
        },
        delete(key: KvKey) {
          operation.delete(key);
          return this;
        },
        commit: () => failing.commits ? fail() : operation.commit(),
      };
      return wrapper;
    },
    close: () => inner.close(),
  };
}

test("POST /api/v1/booking answers 503 no-backend with the mailbox hint when the commit's outcome is unknown", async () => {
  const app = createApp({ store: createFailingStore({ commits: true }) });
  const response = await book(
    app,
    buildBookingBody("2026-12-02T09:30:00+00:00", { email: "uncertain@example.pt" }),
  );
  const body = await readError(response, 503, "no-backend");
  assert.equal(body.error.message, "The booking's outcome is uncertain");
  assert.match(body.error.hint, /check the attendee's mailbox/);
  assert.match(body.error.hint, /before any retry/);
  assert.ok(
    app.logger.records.some((record) =>
      record.level === "error" && record.message === "Booking commit failed; outcome unknown"
    ),
  );
  assertNoInternalError(app);
});

test("POST /api/v1/booking answers 503 no-backend when the store cannot be read", async () => {
  const app = createApp({ store: createFailingStore({ reads: true }) });
  const body = await readError(
    await book(app, buildBookingBody("2026-12-02T09:30:00+00:00")),
    503,
    "no-backend",
  );
  assert.match(body.error.hint, /nothing was booked/);
  const replay = await readError(
    await book(app, buildBookingBody("2026-12-02T09:30:00+00:00"), { "Idempotency-Key": "k1" }),
    503,
    "no-backend",
  );
  assert.match(replay.error.hint, /nothing was booked/);
  assertNoInternalError(app);
});

test(
  "POST /api/v1/booking answers 503, not 500, when the link secret cannot be read or stored",
  {},
  async () => {
    const app = createApp({ store: createFailingStore({ commits: true }), secret: undefined });
    await readError(
      await book(app, buildBookingBody("2026-12-02T09:30:00+00:00")),
      503,
      "no-backend",
    );
    assertNoInternalError(app);
  },
);

test("POST /api/v1/booking answers 400 validation-failed, not 500, for {toString} objects and arrays nested 3000 deep", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12");
  const nested = JSON.parse("[".repeat(3000) + "]".repeat(3000));
  for (const topic of [{ toString: 1 }, nested]) {
    const body = await readError(
      await book(app, buildBookingBody(start, { topic })),
      400,
      "validation-failed",
    );
    assert.deepEqual(body.error.details, [
      { field: "topic", problem: "type", hint: 'Send "topic" as a string' },
    ]);
  }
});

test("POST /api/v1/booking removes control characters before they reach the invite and the e-mails", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12");
  const email = "controls@example.pt";
  await readCreated(
    await book(
      app,
      buildBookingBody(start, {
        email,
        topic: "Um site\u0000 novo\u001b[31m para a padaria\u0007",
        company: "Padaria\u007f Central\u009b",
      }),
    ),
    "accepted",
    start,
  );
  const record = await findBooking(app, email);
  assert.equal(record.topic, "Um site novo[31m para a padaria");
  assert.equal(record.company, "Padaria Central");
  const mails = await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
  for (const mail of Object.values(mails)) {
    // deno-lint-ignore no-control-regex -- matching control characters is the point
    const forbidden = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
    assert.doesNotMatch(mail.raw, forbidden);
    assert.doesNotMatch(mail.parsed.text ?? "", forbidden);
    assert.match(mail.parsed.text ?? "", /Um site novo\[31m para a padaria/);
  }
});

// ---------------------------------------------------------------------------------------------
// The booking page in the visitor's zone, and the booking's own page

/** Posts the booking page's form from the site's own page. */
function postBookingForm(app: TestApp, fields: Record<string, string>): Promise<Response> {
  return app.handler(
    buildRequest("/en/book", {
      method: "POST",
      headers: { Origin: BASE_URL },
      body: new URLSearchParams(fields),
    }),
    CLIENT,
  );
}

test("POST /en/book from the page in São Paulo's zone books there: its 303 page, the attendee's e-mail and the .ics give the time in both zones, with the e-mailed invite's UID", async () => {
  const app = createApp();
  const page = await app.handler(
    buildRequest("/en/book?month=2026-12&tz=America/Sao_Paulo"),
    CLIENT,
  );
  const html = await page.text();
  assert.equal(page.status, 200);
  assert.ok(html.includes("Times in Brasilia Standard Time (America/Sao_Paulo)."), "the zone");
  assert.ok(html.includes("The studio&#39;s time: Western European Time."), "the studio's zone");
  const start = /name="start" value="([^"]+)"/.exec(html)?.[1] ?? "";
  const key = /name="idempotency" value="([^"]+)"/.exec(html)?.[1] ?? "";
  assert.equal(start, "2026-12-02T09:30:00+00:00");
  assert.match(html, /value="2026-12-02T09:30:00\+00:00" required><span>06:30<\/span>/);
  assert.match(html, /<input type="hidden" name="tz" value="America\/Sao_Paulo">/);

  const booked = await postBookingForm(app, {
    start,
    name: "Joana Lima",
    email: "joana.sp@example.com.br",
    topic: "A new identity for our bakery",
    tz: "America/Sao_Paulo",
    idempotency: key,
  });
  await booked.body?.cancel();
  assert.equal(booked.status, 303);
  const location = booked.headers.get("Location") ?? "";
  assert.match(location, /^\/booking\/view\?id=[0-9A-Z]{26}&sig=/);
  const record = await findBooking(app, "joana.sp@example.com.br");
  assert.equal(record.timeZone, "America/Sao_Paulo", "the zone travels with the booking");

  const view = await openLink(app, BASE_URL + location, "GET");
  assert.equal(view.status, 200);
  assert.match(view.html, /<h1>Your conversation is booked<\/h1>/);
  for (
    const words of [
      "Conversation, 30 min",
      "Wednesday, 2 December 2026, 06:30–07:00 (Brasilia Standard Time)",
      "Wednesday, 2 December 2026, 09:30–10:00 (Western European Time)",
      escapeHtml(PLACE.en),
      "Add to calendar",
      "https://calendar.google.com/calendar/render?action=TEMPLATE",
      "https://outlook.live.com/calendar/0/deeplink/compose?",
      "/booking/reschedule?id=" + record.id,
      "/booking/cancel?id=" + record.id,
    ]
  ) {
    assert.ok(view.html.includes(words), `the booking's page says "${words}"`);
  }

  const icsPath = /href="(\/booking\/invite\?[^"]+)"/.exec(view.html)?.[1] ?? "";
  const ics = await app.handler(buildRequest(icsPath.replace(/&amp;/g, "&")), CLIENT);
  const text = await ics.text();
  assert.equal(ics.status, 200);
  assert.equal(ics.headers.get("Content-Type"), "text/calendar; charset=utf-8");
  assert.match(ics.headers.get("Content-Disposition") ?? "", /^attachment; filename=".+\.ics"$/);
  assert.match(text, /\r\nMETHOD:PUBLISH\r\n/);
  assert.match(text, /\r\nDTSTART;TZID=Europe\/Lisbon:20261202T093000\r\n/);
  assert.doesNotMatch(text, /\r\nATTENDEE/, "a file to add, not an invitation");

  const mails = await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
  const attendee = mails["attendee-booked-0"];
  assert.equal(
    attendee.parsed.subject,
    "Conversation booked: Wednesday, 2 December 2026 at 06:30 (Brasilia Standard Time)",
  );
  const body = attendee.parsed.text ?? "";
  assert.ok(body.includes("When: Wednesday, 2 December 2026 at 06:30 (Brasilia Standard Time)"));
  assert.ok(
    body.includes("Studio time: Wednesday, 2 December 2026 at 09:30 (Western European Time)"),
  );
  const invite = readInvite(attendee, "REQUEST");
  assert.ok(text.includes(`\r\nUID:${invite.uid}\r\n`), "the e-mailed invite's UID");
  assertNoInternalError(app);
});

test("GET /en/book?tz= with a zone Intl does not know shows the studio's times with a note, never an error page", async () => {
  const app = createApp();
  for (const asked of ["Mars/Olympus_Mons", "<b>", "x".repeat(300)]) {
    const page = await app.handler(
      buildRequest(`/en/book?month=2026-12&tz=${encodeURIComponent(asked)}`),
      CLIENT,
    );
    const html = await page.text();
    assert.equal(page.status, 200, asked);
    assert.ok(html.includes("We do not know the time zone"), asked);
    assert.ok(html.includes("Times in Western European Time (Europe/Lisbon)."), asked);
    assert.match(html, /value="2026-12-02T09:30:00\+00:00" required><span>09:30<\/span>/);
    assert.ok(!html.includes("<b>"), "the zone asked for is escaped");
  }
  assertNoInternalError(app);
});

test("GET /booking/view and /booking/invite answer a forged link 403 and a POST 405, and the cancel page offers to keep the booking or change its time", async () => {
  const app = createApp();
  const start = await takeSlot(app, "2026-12", "2026-12-03");
  const booked = await postBookingForm(app, {
    start,
    name: "Rui Alves",
    email: "rui.view@example.org",
    topic: "A website for our bookshop",
  });
  await booked.body?.cancel();
  assert.equal(booked.status, 303, "a form without its key books with one of its own");
  const location = booked.headers.get("Location") ?? "";
  const forged = await openLink(app, BASE_URL + location.replace(/sig=.{4}/, "sig=AAAA"), "GET");
  assert.equal(forged.status, 403);
  const post = await app.handler(buildRequest(location, { method: "POST" }), CLIENT);
  await post.body?.cancel();
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("Allow"), "GET, HEAD");
  const record = await findBooking(app, "rui.view@example.org");
  const mails = await receiveMails(app, record.id, ["attendee-booked-0", "studio-new-0"]);
  const cancel = await openLink(app, findLink(mails["attendee-booked-0"], "cancel"), "GET");
  assert.equal(cancel.status, 200);
  assert.ok(cancel.html.includes(">Keep the conversation</a>"));
  assert.ok(cancel.html.includes(">Change the time instead</a>"));
  assert.ok(cancel.html.includes(`href="/booking/view?id=${record.id}&amp;sig=`));
  assert.ok(cancel.html.includes(`href="/booking/reschedule?id=${record.id}&amp;seq=0&amp;sig=`));
  const signed = new URL(findLink(mails["attendee-booked-0"], "cancel"));
  const form = `<form method="post" action="${escapeHtml(signed.pathname + signed.search)}"`;
  assert.ok(cancel.html.includes(form), "the form posts to the signed link");
  assertNoInternalError(app);
});
