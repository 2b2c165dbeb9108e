/**
 * iCalendar events (RFC 5545) as busy time, with ical.js: parsing, and recurrence expansion of
 * RRULE, EXDATE, RDATE and overridden instances (RECURRENCE-ID); all-day events; times in UTC,
 * floating, or any TZID. Events marked `TRANSP:TRANSPARENT` or `STATUS:CANCELLED` do not block.
 * Loaded by `busy_calendar.ts` with the first feed.
 *
 * @module
 */
import ICAL from "ical.js";
import { tzlib_get_ical_block } from "timezones-ical-library";
import type { BusyInterval } from "./availability.ts";

/** The most occurrences of one recurring event kept in a span (a guard against endless rules). */
const MAX_OCCURRENCES = 5000;

/** The most occurrences of one recurring event stepped through in all (old daily or hourly series). */
const MAX_STEPS = 200_000;

/**
 * The epoch milliseconds of an iCalendar time. `tzid` is the TZID parameter of the property the
 * time came from: ical.js forgets a TZID it has no VTIMEZONE for, and Temporal knows every IANA
 * zone by name, so such times are placed correctly too.
 */
function toEpochMs(time: ICAL.Time, tzid: string | undefined, defaultTimeZone: string): number {
  const wall = {
    year: time.year,
    month: time.month,
    day: time.day,
    hour: time.isDate ? 0 : time.hour,
    minute: time.isDate ? 0 : time.minute,
    second: time.isDate ? 0 : Math.min(time.second, 59),
  };
  if (!time.isDate && time.zone?.tzid === "UTC") {
    return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  }
  // All-day and floating times are the studio's days and wall-clock times; a TZID names the zone.
  const known = time.zone?.tzid && time.zone.tzid !== "floating" ? time.zone.tzid : undefined;
  const zone = time.isDate ? defaultTimeZone : (known ?? tzid ?? defaultTimeZone);
  try {
    // "compatible": a time in a skipped hour takes the offset before the gap (RFC 5545, 3.3.5).
    return Temporal.PlainDateTime.from(wall).toZonedDateTime(zone, { disambiguation: "compatible" })
      .epochMilliseconds;
  } catch {
    // Not an IANA name (e.g. a Windows zone name): use the feed's own VTIMEZONE if it has one.
    if (known && ICAL.TimezoneService.has(known)) return time.toUnixTime() * 1000;
    return Temporal.PlainDateTime.from(wall).toZonedDateTime(defaultTimeZone, {
      disambiguation: "compatible",
    }).epochMilliseconds;
  }
}

function isBlocking(component: ICAL.Component): boolean {
  const status = String(component.getFirstPropertyValue("status") ?? "").toUpperCase();
  const transparency = String(component.getFirstPropertyValue("transp") ?? "").toUpperCase();
  return status !== "CANCELLED" && transparency !== "TRANSPARENT";
}

function readTzid(component: ICAL.Component, name: "dtstart" | "dtend"): string | undefined {
  const value = component.getFirstProperty(name)?.getParameter("tzid");
  return typeof value === "string" && value ? value : undefined;
}

function toInterval(
  component: ICAL.Component,
  start: ICAL.Time,
  end: ICAL.Time | undefined,
  defaultTimeZone: string,
): BusyInterval | undefined {
  const startZone = readTzid(component, "dtstart");
  const startEpochMs = toEpochMs(start, startZone, defaultTimeZone);
  let endEpochMs = end
    ? toEpochMs(end, readTzid(component, "dtend") ?? startZone, defaultTimeZone)
    : startEpochMs;
  if (start.isDate && endEpochMs <= startEpochMs) {
    // An all-day event without an end lasts its day (RFC 5545, 3.6.1).
    const next = start.clone();
    next.day += 1;
    endEpochMs = toEpochMs(next, undefined, defaultTimeZone);
  }
  return endEpochMs > startEpochMs ? { startEpochMs, endEpochMs } : undefined;
}

/** A parsed feed: its events grouped by UID, ready to expand over any span. */
export interface ParsedCalendar {
  /** The recurring or single events, with their exceptions related. */
  events: ICAL.Event[];
  /** Events that could not be read (e.g. no DTSTART), by UID, skipped. */
  skipped: string[];
  /**
   * RDATEs given as periods (`RDATE;VALUE=PERIOD:start/end`), by event: ical.js cannot expand
   * them, so they are taken out of the event and expanded here.
   */
  periods: Map<ICAL.Event, ICAL.Period[]>;
}

/**
 * Registers with ical.js a VTIMEZONE for every IANA zone the feed names in a TZID parameter but
 * does not define, so that its times, recurrences and overrides (a RECURRENCE-ID or EXDATE in UTC
 * against a series in that zone) are matched as instants rather than as floating times.
 */
function registerNamedZones(text: string): void {
  for (const match of text.matchAll(/TZID=("?)([^;:"\r\n]+)\1/g)) {
    const tzid = match[2];
    if (ICAL.TimezoneService.has(tzid)) continue;
    const block = tzlib_get_ical_block(tzid);
    const definition = Array.isArray(block) ? block[0] : undefined;
    if (typeof definition !== "string" || !definition) continue;
    try {
      ICAL.TimezoneService.register(new ICAL.Component(ICAL.parse(definition)));
    } catch {
      // Not a zone the library knows: times in it are read with Temporal, or as the studio's.
    }
  }
}

/**
 * Parses an iCalendar text and registers its VTIMEZONEs (and those of IANA zones it only names).
 * An event that cannot be read is skipped and listed in `skipped`, so one broken event does not
 * take the whole calendar down.
 *
 * @param text The feed.
 * @throws {Error} When the text is not iCalendar.
 */
export function parseCalendar(text: string): ParsedCalendar {
  const root = new ICAL.Component(ICAL.parse(text));
  const calendar = root.name === "vcalendar" ? root : root.getFirstSubcomponent("vcalendar");
  if (!calendar) throw new Error("No VCALENDAR in the feed");
  for (const zone of calendar.getAllSubcomponents("vtimezone")) {
    const tzid = String(zone.getFirstPropertyValue("tzid") ?? "");
    if (tzid && !ICAL.TimezoneService.has(tzid)) ICAL.TimezoneService.register(zone);
  }
  registerNamedZones(text);
  const masters = new Map<string, ICAL.Event>();
  const exceptions: ICAL.Component[] = [];
  const singles: ICAL.Event[] = [];
  const skipped: string[] = [];
  const periods = new Map<ICAL.Event, ICAL.Period[]>();
  for (const component of calendar.getAllSubcomponents("vevent")) {
    const uid = String(component.getFirstPropertyValue("uid") ?? "");
    try {
      if (!component.hasProperty("dtstart")) throw new Error("No DTSTART");
      if (component.hasProperty("recurrence-id")) {
        exceptions.push(component);
        continue;
      }
      const periodDates: ICAL.Period[] = [];
      for (const property of component.getAllProperties("rdate")) {
        if (property.type !== "period") continue;
        for (const value of property.getValues()) {
          if (value instanceof ICAL.Period) periodDates.push(value);
        }
        component.removeProperty(property);
      }
      const event = new ICAL.Event(component);
      if (periodDates.length) periods.set(event, periodDates);
      if (uid && !masters.has(uid)) masters.set(uid, event);
      else singles.push(event);
    } catch {
      skipped.push(uid || "(no UID)");
    }
  }
  for (const exception of exceptions) {
    const uid = String(exception.getFirstPropertyValue("uid") ?? "");
    try {
      const master = masters.get(uid);
      if (master?.isRecurring()) master.relateException(exception);
      else singles.push(new ICAL.Event(exception)); // An orphan override is an event of its own.
    } catch {
      skipped.push(uid || "(no UID)");
    }
  }
  return { events: [...masters.values(), ...singles], skipped, periods };
}

function expandEvent(
  event: ICAL.Event,
  periods: readonly ICAL.Period[],
  span: BusyInterval,
  defaultTimeZone: string,
  keep: (interval: BusyInterval | undefined) => void,
): void {
  if (periods.length && isBlocking(event.component)) {
    for (const period of periods) {
      keep(toInterval(event.component, period.start, period.getEnd(), defaultTimeZone));
    }
  }
  if (!event.isRecurring()) {
    if (isBlocking(event.component)) {
      keep(toInterval(event.component, event.startDate, event.endDate, defaultTimeZone));
    }
    return;
  }
  // Occurrences may be moved by an override by up to this much and still land in the span.
  const slackMs = 14 * 86_400_000;
  const masterZone = readTzid(event.component, "dtstart");
  const startMs = toEpochMs(event.startDate, masterZone, defaultTimeZone);
  const occurrence = (time: ICAL.Time) => {
    // Each instance answers for itself: an override may be busy in a free series, or cancelled.
    const details = event.getOccurrenceDetails(time);
    if (isBlocking(details.item.component)) {
      keep(toInterval(details.item.component, details.startDate, details.endDate, defaultTimeZone));
    }
  };
  const iterator = event.iterator();
  const rule = event.component.getFirstPropertyValue("rrule");
  const count = rule instanceof ICAL.Recur && rule.count ? rule.count : undefined;
  let sawStart = false;
  let kept = 0;
  for (let step = 0; step < MAX_STEPS && kept < MAX_OCCURRENCES; step++) {
    const time = iterator.next();
    if (!time) break;
    const timeMs = toEpochMs(time, masterZone, defaultTimeZone);
    if (timeMs === startMs) sawStart = true;
    // A COUNT includes DTSTART (RFC 5545, 3.3.10), which ical.js skips when the rule does not
    // match it: then the rule's own instances are one fewer.
    if (count !== undefined && !sawStart && step >= count - 1) break;
    if (timeMs > span.endEpochMs + slackMs) break;
    if (timeMs < span.startEpochMs - slackMs) continue;
    kept++;
    occurrence(time);
  }
  // RFC 5545 counts DTSTART as the first instance even when the rule does not match it (or
  // there is only an RDATE); ical.js does not yield it then.
  const excluded = event.component.getAllProperties("exdate").some((property) =>
    property.getValues().some((value) =>
      value instanceof ICAL.Time && toEpochMs(value, masterZone, defaultTimeZone) === startMs
    )
  );
  if (
    !sawStart && !excluded && startMs <= span.endEpochMs + slackMs &&
    startMs >= span.startEpochMs - slackMs
  ) occurrence(event.startDate);
}

/**
 * Expands a parsed calendar into the busy intervals that overlap `span`. An event whose
 * expansion fails is skipped and its UID added to `skipped`.
 *
 * @param calendar From {@linkcode parseCalendar}.
 * @param span The time of interest.
 * @param defaultTimeZone The zone of all-day and floating times (the studio's).
 */
export function expandCalendar(
  calendar: ParsedCalendar,
  span: BusyInterval,
  defaultTimeZone: string,
  skipped: string[] = [],
): BusyInterval[] {
  const busy: BusyInterval[] = [];
  const keep = (interval: BusyInterval | undefined) => {
    if (
      interval && interval.startEpochMs < span.endEpochMs &&
      interval.endEpochMs > span.startEpochMs
    ) busy.push(interval);
  };
  for (const event of calendar.events) {
    const before = busy.length;
    try {
      expandEvent(event, calendar.periods.get(event) ?? [], span, defaultTimeZone, keep);
    } catch {
      busy.length = before; // Keep nothing of an event that failed half-way.
      skipped.push(event.uid || "(no UID)");
    }
  }
  return busy;
}
