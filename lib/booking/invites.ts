/**
 * Calendar invites for bookings (RFC 5545 with iTIP methods, RFC 5546), built with
 * ical-generator, with a VTIMEZONE for the schedule's zone so that calendar programs place the
 * meeting at the right instant; and the links that add the same event to Google Calendar and
 * Outlook on the web.
 *
 * @module
 */
import ical, {
  ICalAttendeeRole,
  ICalAttendeeStatus,
  ICalCalendarMethod,
  ICalEventStatus,
} from "ical-generator";
import { tzlib_get_ical_block } from "timezones-ical-library";
import { SERVICE_NAME } from "../contract/contract.ts";

/** What an invite says. */
export interface InviteDetails {
  /** The event's stable UID, e.g. `booking-01J…@studio.example`. */
  uid: string;
  /** The revision: 0 first, higher for each change (RFC 5545, 3.8.7.4). */
  sequence: number;
  /**
   * `REQUEST` to invite, `CANCEL` to call off, `PUBLISH` for a file to add to a calendar (no
   * ATTENDEE, as RFC 5546, 3.2.1 has it).
   */
  method: "REQUEST" | "CANCEL" | "PUBLISH";
  /** Whether the event awaits the studio's confirmation (STATUS:TENTATIVE). @default false */
  tentative?: boolean;
  /** Start, in the schedule's zone. */
  start: Temporal.ZonedDateTime;
  /** Length in minutes. */
  durationMinutes: number;
  /** One line, in the booking's locale. */
  summary: string;
  /** Several lines, in the booking's locale. */
  description: string;
  /** Where it takes place or the video link. */
  location: string;
  /** The studio. */
  organizer: { name: string; email: string };
  /** The person who booked. */
  attendee: { name: string; email: string };
  /** When the invite is issued (DTSTAMP). */
  issuedAt: Temporal.Instant;
}

/**
 * The VTIMEZONE of a zone, for ical-generator's `timezone({ generator })`: from
 * timezones-ical-library's table of IANA zones.
 *
 * @param timeZone An IANA zone, e.g. `Europe/Lisbon`.
 * @returns The VTIMEZONE block, or `null` for a zone the table does not hold.
 */
export function generateTimezone(timeZone: string): string | null {
  const block = tzlib_get_ical_block(timeZone);
  return Array.isArray(block) && typeof block[0] === "string" && block[0] ? block[0] : null;
}

/**
 * Builds the iCalendar text of an invite: one VEVENT with DTSTART/DTEND in the start's zone
 * (with its VTIMEZONE), ORGANIZER the studio and ATTENDEE the person with `RSVP=TRUE`.
 *
 * @param details What the invite says.
 * @returns The `.ics` text, with the METHOD property set.
 */
export function buildInvite(details: InviteDetails): string {
  const calendar = ical({
    prodId: { company: SERVICE_NAME, product: "booking", language: "EN" },
    method: ICalCalendarMethod[details.method],
  });
  // A null name writes DTSTAMP in UTC while the generator adds the zone's VTIMEZONE.
  calendar.timezone({ name: null, generator: generateTimezone });
  const event = calendar.createEvent({
    id: details.uid,
    sequence: details.sequence,
    stamp: details.issuedAt,
    start: details.start,
    end: details.start.add({ minutes: details.durationMinutes }),
    timezone: details.start.timeZoneId,
    summary: details.summary,
    description: details.description,
    location: details.location,
    organizer: details.organizer,
    status: details.method === "CANCEL"
      ? ICalEventStatus.CANCELLED
      : details.tentative
      ? ICalEventStatus.TENTATIVE
      : ICalEventStatus.CONFIRMED,
  });
  if (details.method === "PUBLISH") return calendar.toString();
  event.createAttendee({
    email: details.attendee.email,
    name: details.attendee.name,
    rsvp: true,
    role: ICalAttendeeRole.REQ,
    status: ICalAttendeeStatus.NEEDSACTION,
  });
  return calendar.toString();
}

/** An event to add to a web calendar: what, when and where. */
export interface CalendarLinkEvent {
  /** One line. */
  summary: string;
  /** Several lines. */
  description: string;
  /** Where, or the video link. */
  location: string;
  /** Start. */
  start: Temporal.Instant;
  /** End. */
  end: Temporal.Instant;
}

/** An instant in iCalendar's UTC form, as Google Calendar's `dates` takes it: `20261202T093000Z`. */
function toBasicUtc(instant: Temporal.Instant): string {
  return instant.toString({ smallestUnit: "second" }).replace(/[-:]/g, "");
}

/**
 * The links that open a web calendar's new-event page with the event filled in: Google Calendar
 * (`calendar/render?action=TEMPLATE`), Outlook.com and Microsoft 365 (`deeplink/compose`). Unlike
 * the `.ics` file they carry no UID, so a later invite by e-mail is a second event there.
 *
 * @param event What, when and where.
 * @returns The three URLs.
 */
export function buildCalendarLinks(
  event: CalendarLinkEvent,
): { google: string; outlook: string; office: string } {
  const google = new URLSearchParams({
    action: "TEMPLATE",
    text: event.summary,
    dates: `${toBasicUtc(event.start)}/${toBasicUtc(event.end)}`,
    details: event.description,
    location: event.location,
  });
  const outlook = new URLSearchParams({
    path: "/calendar/action/compose",
    rru: "addevent",
    subject: event.summary,
    startdt: event.start.toString({ smallestUnit: "second" }),
    enddt: event.end.toString({ smallestUnit: "second" }),
    body: event.description,
    location: event.location,
  });
  return {
    google: `https://calendar.google.com/calendar/render?${google}`,
    outlook: `https://outlook.live.com/calendar/0/deeplink/compose?${outlook}`,
    office: `https://outlook.office.com/calendar/0/deeplink/compose?${outlook}`,
  };
}
