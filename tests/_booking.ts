/**
 * Shared support of the booking tests: a valid BookingRequest, reading the iMIP invite of a
 * booking e-mail with ical.js, and finding the signed links in an e-mail's text. Internal to
 * tests/.
 *
 * @module
 */
import assert from "node:assert/strict";
import ICAL from "ical.js";
import type { ReceivedMail } from "./_smtp.ts";

/** A BookingRequest body that passes validation, with `overrides` applied. */
export function buildBookingBody(
  start: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    start,
    name: "Ana Sousa",
    email: "ana@example.pt",
    company: "Cerâmica Lda",
    topic: "Um novo site para a nossa marca de cerâmica",
    locale: "pt",
    ...overrides,
  };
}

/** The fields of the one VEVENT of an invite, as ical.js reads them. */
export interface ParsedInvite {
  /** The `.ics` text. */
  ics: string;
  /** VCALENDAR METHOD. */
  method: string;
  /** How many VEVENTs the calendar holds. */
  eventCount: number;
  /** The TZIDs of the calendar's VTIMEZONEs. */
  timeZones: string[];
  uid: string;
  sequence: number;
  status: string;
  /** DTSTART as an instant, epoch milliseconds, resolved through the calendar's own VTIMEZONE. */
  startEpochMs: number;
  /** DTEND as an instant, epoch milliseconds. */
  endEpochMs: number;
  /** The TZID parameter of DTSTART and DTEND. */
  startTzid: string | null;
  endTzid: string | null;
  /** DTSTART's wall-clock text, e.g. `2026-12-02T09:30:00`. */
  startWallClock: string;
  summary: string;
  description: string;
  location: string;
  organizer: string;
  organizerName: string | null;
  attendee: string;
  attendeeName: string | null;
  attendeeRsvp: string | null;
  attendeeRole: string | null;
  attendeePartstat: string | null;
}

function decodeContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (content instanceof ArrayBuffer) return new TextDecoder().decode(content);
  if (ArrayBuffer.isView(content)) {
    return new TextDecoder().decode(
      new Uint8Array(content.buffer, content.byteOffset, content.byteLength),
    );
  }
  throw new TypeError(`Unexpected attachment content: ${typeof content}`);
}

/** Reads the DTSTART or DTEND of an event as an instant and the TZID it names. */
function readTime(event: ICAL.Component, name: string) {
  const property = event.getFirstProperty(name);
  assert.ok(property, `${name} is present`);
  const value = property.getFirstValue();
  assert.ok(value instanceof ICAL.Time, `${name} is a date-time`);
  const tzid = property.getParameter("tzid");
  if (typeof tzid === "string") {
    // The zone must come from the calendar's own VTIMEZONE, not a floating time.
    assert.equal(value.zone?.tzid, tzid, `${name} resolves through the VTIMEZONE "${tzid}"`);
  }
  return {
    epochMs: value.toUnixTime() * 1000,
    tzid: typeof tzid === "string" ? tzid : null,
    wallClock: value.toString(),
  };
}

function readParameter(property: ICAL.Property, name: string): string | null {
  const value = property.getParameter(name);
  return typeof value === "string" ? value : null;
}

/** Parses `.ics` text with ical.js and returns the fields of its one VEVENT. */
export function parseInvite(ics: string): ParsedInvite {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  assert.equal(calendar.name, "vcalendar");
  const events = calendar.getAllSubcomponents("vevent");
  assert.ok(events.length >= 1, "a VEVENT");
  const [event] = events;
  const organizer = event.getFirstProperty("organizer");
  const attendees = event.getAllProperties("attendee");
  assert.ok(organizer, "ORGANIZER is present");
  assert.equal(attendees.length, 1, "one ATTENDEE");
  const [attendee] = attendees;
  const start = readTime(event, "dtstart");
  const end = readTime(event, "dtend");
  return {
    ics,
    method: String(calendar.getFirstPropertyValue("method")),
    eventCount: events.length,
    timeZones: calendar.getAllSubcomponents("vtimezone").map((zone) =>
      String(zone.getFirstPropertyValue("tzid"))
    ),
    uid: String(event.getFirstPropertyValue("uid")),
    sequence: Number(event.getFirstPropertyValue("sequence")),
    status: String(event.getFirstPropertyValue("status")),
    startEpochMs: start.epochMs,
    endEpochMs: end.epochMs,
    startTzid: start.tzid,
    endTzid: end.tzid,
    startWallClock: start.wallClock,
    summary: String(event.getFirstPropertyValue("summary")),
    description: String(event.getFirstPropertyValue("description")),
    location: String(event.getFirstPropertyValue("location")),
    organizer: String(organizer.getFirstValue()),
    organizerName: readParameter(organizer, "cn"),
    attendee: String(attendee.getFirstValue()),
    attendeeName: readParameter(attendee, "cn"),
    attendeeRsvp: readParameter(attendee, "rsvp"),
    attendeeRole: readParameter(attendee, "role"),
    attendeePartstat: readParameter(attendee, "partstat"),
  };
}

/** Whether a received e-mail carries a calendar part or attachment. */
export function hasCalendar(mail: ReceivedMail): boolean {
  return /text\/calendar|application\/ics/i.test(mail.raw) ||
    mail.parsed.attachments.some((part) => /calendar|ics/i.test(part.mimeType));
}

/**
 * Checks that an e-mail is an iMIP message (RFC 6047): a `text/calendar; method=<method>`
 * alternative next to the text body, and the same calendar as an `.ics` attachment; then parses
 * that calendar.
 *
 * @param mail The received e-mail.
 * @param method The iTIP method both parts must name.
 */
export function readInvite(mail: ReceivedMail, method: "REQUEST" | "CANCEL"): ParsedInvite {
  assert.match(
    mail.raw,
    new RegExp(`Content-Type: text/calendar; charset=utf-8; method=${method}\\r?\\n`, "i"),
  );
  const header = mail.header("content-type") ?? "";
  assert.match(header, /^multipart\/mixed/, "the .ics travels as an attachment");
  const inline = mail.parsed.attachments.filter((part) => part.mimeType === "text/calendar");
  assert.equal(inline.length, 1, "one text/calendar alternative");
  assert.equal(inline[0].method, method);
  const files = mail.parsed.attachments.filter((part) => /\.ics$/.test(part.filename ?? ""));
  assert.equal(files.length, 1, "one .ics attachment");
  assert.equal(files[0].disposition, "attachment");
  assert.equal(files[0].filename, method === "CANCEL" ? "cancel.ics" : "invite.ics");
  const ics = decodeContent(inline[0].content);
  assert.equal(decodeContent(files[0].content), ics, "the attachment is the same calendar");
  assert.ok((mail.parsed.text ?? "").trim().length > 0, "a readable text body");
  const invite = parseInvite(ics);
  assert.equal(invite.method, method);
  return invite;
}

/** The signed links of a booking e-mail, by action. */
export interface BookingLinks {
  confirm?: string;
  decline?: string;
  cancel?: string;
}

/** Finds the `/booking/<action>?id=…&sig=…` links in an e-mail's text. */
export function findLinks(mail: ReceivedMail): BookingLinks {
  const links: BookingLinks = {};
  const pattern = /https?:\/\/[^\s/]+\/booking\/(confirm|decline|cancel)\?id=[0-9A-Z]+&sig=[\w-]+/g;
  for (const match of (mail.parsed.text ?? "").matchAll(pattern)) {
    const action = match[1] as keyof BookingLinks;
    assert.ok(!links[action] || links[action] === match[0], `one ${action} link`);
    links[action] = match[0];
  }
  return links;
}

/** The `YYYY-MM` months from the month of `now` in Lisbon to `count` months later. */
export function listMonths(now: Temporal.Instant, count: number): string[] {
  const first = now.toZonedDateTimeISO("Europe/Lisbon").toPlainDate().toPlainYearMonth();
  return Array.from({ length: count + 1 }, (_, index) => first.add({ months: index }).toString());
}

/** The signed link of `action` in an e-mail's text; fails the test when there is none. */
export function findLink(mail: ReceivedMail, action: keyof BookingLinks): string {
  const link = findLinks(mail)[action];
  assert.ok(link, `a ${action} link in the e-mail`);
  return link;
}

/** The `/booking/reschedule?id=…&seq=…&sig=…` link in an e-mail's text, if there is one. */
export function findRescheduleLink(mail: ReceivedMail): string | undefined {
  const pattern = /https?:\/\/[^\s/]+\/booking\/reschedule\?id=[0-9A-Z]{26}&seq=\d+&sig=[\w-]+/g;
  const found = [...(mail.parsed.text ?? "").matchAll(pattern)].map((match) => match[0]);
  assert.ok(found.length <= 1, "at most one reschedule link");
  return found[0];
}

/** Sends a request for a path (with its query) to the service under test, following no redirect. */
export type SendRequest = (
  path: string,
  init: RequestInit & { headers?: Record<string, string> },
) => Promise<Response>;

/**
 * Opens a signed link (`/booking/<action>?id=…&sig=…`, `/booking/reschedule?…&sig=…`) the way a
 * browser does: its `GET` answers `303 See Other` to the page's URL without `sig`, with the
 * cookie that carries the signature, and the browser asks for that URL with the cookie. Checks the
 * exchange on the way (the `Location` is the link without `sig`, one `HttpOnly`,
 * `SameSite=Lax` cookie scoped to the page's path); an answer other than a `303` (a forged link's
 * `403`) is returned as it is.
 *
 * @param send Sends a request: the handler in-process, or `fetch` to a server with
 * `redirect: "manual"`.
 * @param link The link, absolute (any origin: only its path and query are sent) or a path.
 * @param init Fields of both requests, e.g. `Accept-Encoding`.
 * @returns The page's answer.
 */
export async function openSignedLink(
  send: SendRequest,
  link: string,
  init: { headers?: Record<string, string> } = {},
): Promise<Response> {
  const url = new URL(link, "http://localhost");
  const exchange = await send(url.pathname + url.search, { headers: init.headers });
  if (exchange.status !== 303) return exchange;
  await exchange.body?.cancel();
  const location = exchange.headers.get("Location") ?? "";
  const clean = new URL(url);
  clean.searchParams.delete("sig");
  assert.equal(location, clean.pathname + clean.search, "the 303 leads to the link without sig");
  const setCookie = exchange.headers.get("Set-Cookie") ?? "";
  const [pair, ...attributes] = setCookie.split(/;\s*/);
  assert.match(pair, /^booking-[a-z]+-[0-9A-Z]{26}(?:-\d+)?=[\w-]{43}$/, setCookie);
  assert.ok(attributes.includes("HttpOnly"), setCookie);
  assert.ok(attributes.includes("SameSite=Lax"), setCookie);
  assert.ok(attributes.includes(`Path=${url.pathname}`), setCookie);
  const cookie = init.headers?.Cookie ? `${init.headers.Cookie}; ${pair}` : pair;
  return await send(location, { headers: { ...init.headers, Cookie: cookie } });
}

/**
 * The {@linkcode SendRequest} of a server: `fetch` to its origin, following no redirect.
 *
 * @param origin The server's origin, e.g. `http://127.0.0.1:8123`.
 */
export function sendTo(origin: string): SendRequest {
  return (path, init) => fetch(origin + path, { ...init, redirect: "manual" });
}
