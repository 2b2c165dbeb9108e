/**
 * The team's calendar subscription: accepted and pending bookings as one iCalendar feed
 * (RFC 5545, built with ical-generator), which calendar apps poll at a secret address. The secret
 * is kept in the store (`["settings", "team_calendar_feed"]`), made when the desk first shows the
 * address, and replaced when the team asks for a new one, which revokes the old address at once
 * for every instance on the store.
 *
 * Each booking's event has the UID and SEQUENCE of the invites its e-mails carry, so a calendar
 * that holds the invite and the subscription sees one meeting; a pending booking is
 * `STATUS:TENTATIVE`, an accepted one `STATUS:CONFIRMED`. Declined, cancelled and lapsed requests
 * are left out, and so are erased ones: the feed is built from the store at each request.
 *
 * @module
 */
import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalEventStatus } from "ical-generator";
import type { ScheduleSettings } from "../availability/schedule.ts";
import type { BookingRecord } from "../booking/booking_mail.ts";
import { BOOKING_PREFIX } from "../booking/booking_store.ts";
import { hasLapsed } from "../booking/bookings.ts";
import { generateTimezone } from "../booking/invites.ts";
import { SERVICE_NAME } from "../contract/contract.ts";
import { type MailAddresses, toBareAddress, toHeaderText } from "../mail/mail.ts";
import type { Clock } from "../ports.ts";
import { toHex } from "../store/digest.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";
import { isSameSecret } from "../store/same_secret.ts";
import { readOrCreateSetting } from "../store/settings.ts";
import type { AtomicOperation, Store } from "../store/store.ts";
import { CALENDAR_FEED_PATH } from "./calendar_feed_path.ts";

export { CALENDAR_FEED_PATH } from "./calendar_feed_path.ts";

/** Where the feed's secret is kept. */
export const FEED_SECRET_KEY = ["settings", "team_calendar_feed"] as const;

/** How often calendar apps are asked to poll the feed (REFRESH-INTERVAL), in seconds. */
export const FEED_REFRESH_SECONDS = 15 * 60;

/** The feed's secret as stored. */
export interface FeedSecretSetting {
  /** 256 random bits, 64 hexadecimal characters. */
  secret: string;
  /** When it was made, ISO 8601 UTC. */
  createdAt: string;
}

/** The ports the secret's functions use. */
export type FeedSecretServices = { store: Store; clock: Clock };

/** What the feed is built from. */
export interface CalendarFeedServices {
  /** Where bookings are kept. */
  store: Store;
  /** The current time (lapsed requests are left out). */
  clock: Clock;
  /** The meeting's zone, length and place. */
  schedule: Pick<ScheduleSettings, "timeZone" | "meetingMinutes" | "meetingPlace">;
  /** The studio's From address (the events' ORGANIZER). */
  mail: Pick<MailAddresses, "from">;
}

function createSetting(clock: Clock): FeedSecretSetting {
  return {
    secret: toHex(crypto.getRandomValues(new Uint8Array(32))),
    createdAt: clock.now().toString(),
  };
}

/**
 * The feed's secret: the one kept in the store, or a new one stored first (instances asking at
 * once agree on one).
 *
 * @param services The store and the clock.
 * @returns The secret, 64 hexadecimal characters.
 * @throws Whatever the store throws.
 */
export async function readOrCreateFeedSecret(services: FeedSecretServices): Promise<string> {
  const setting = await readOrCreateSetting(
    services.store,
    FEED_SECRET_KEY,
    () => createSetting(services.clock),
  );
  return setting.secret;
}

/** Options of {@linkcode renewFeedSecret}. */
export interface RenewFeedSecretOptions {
  /**
   * Adds writes to the renewal's commit, e.g. the desk's audit entry, so that they are stored
   * with the new secret or not at all. @default {none}
   */
  withCommit?(operation: AtomicOperation): void;
}

/**
 * Replaces the feed's secret with a new one: the old address answers 404 from now on, on every
 * instance that shares the store.
 *
 * @param services The store and the clock.
 * @param options What to add to the renewal's commit.
 * @returns The new secret.
 * @throws Whatever the store throws.
 */
export async function renewFeedSecret(
  services: FeedSecretServices,
  options: RenewFeedSecretOptions = {},
): Promise<string> {
  const setting = createSetting(services.clock);
  const operation = services.store.atomic().set(FEED_SECRET_KEY, setting);
  options.withCommit?.(operation);
  await retry(() => operation.commit(), STORE_CONTENTION_RETRY);
  return setting.secret;
}

/**
 * Whether `candidate` is the feed's current secret, compared in constant time. No secret is made
 * here: until the desk shows the address, every candidate is refused.
 *
 * @param store The store.
 * @param candidate The `key` of a request.
 * @throws Whatever the store throws.
 */
export async function isFeedSecret(store: Store, candidate: string): Promise<boolean> {
  const kept = (await store.get<FeedSecretSetting>(FEED_SECRET_KEY)).value?.secret;
  return kept ? isSameSecret(kept, candidate) : false;
}

/**
 * The feed's address, for the desk to show (calendar apps take it as it is, or with `webcal:`).
 *
 * @param baseUrl The public origin, e.g. `https://studio.pt`.
 * @param secret The secret.
 * @returns E.g. `https://studio.pt/team/calendar.ics?key=…`.
 */
export function buildFeedUrl(baseUrl: string, secret: string): string {
  return `${baseUrl}${CALENDAR_FEED_PATH}?key=${encodeURIComponent(secret)}`;
}

/** The event's description: who, how to reach them, what about (in Portuguese, the studio's). */
function describeBooking(booking: BookingRecord): string {
  return [
    `E-mail: ${booking.email}`,
    ...(booking.company ? [`Empresa: ${booking.company}`] : []),
    `Idioma: ${booking.locale === "pt" ? "português" : "inglês"}`,
    "",
    "Tema:",
    booking.topic,
    "",
    `Reserva ${booking.id}${booking.status === "pending" ? " (a confirmar)" : ""}`,
  ].join("\n");
}

/** Adds a booking's VEVENT to `calendar`. */
function addBookingEvent(
  calendar: ReturnType<typeof ical>,
  booking: BookingRecord,
  services: CalendarFeedServices,
): void {
  const { schedule } = services;
  const pending = booking.status === "pending";
  const name = toHeaderText(booking.name, 120);
  const start = Temporal.Instant.fromEpochMilliseconds(booking.startEpochMs)
    .toZonedDateTimeISO(schedule.timeZone);
  const event = calendar.createEvent({
    id: booking.uid,
    sequence: booking.sequence,
    // The last change, not the time of the request, so that an unchanged feed keeps its ETag.
    stamp: Temporal.Instant.from(booking.updatedAt),
    created: Temporal.Instant.from(booking.createdAt),
    lastModified: Temporal.Instant.from(booking.updatedAt),
    start,
    end: Temporal.Instant.fromEpochMilliseconds(booking.endEpochMs)
      .toZonedDateTimeISO(schedule.timeZone),
    timezone: schedule.timeZone,
    summary: `${pending ? "A confirmar: conversa" : "Conversa"} com ${name}`,
    description: describeBooking(booking),
    location: schedule.meetingPlace.pt ?? schedule.meetingPlace.en ?? "",
    organizer: { name: "Studio", email: toBareAddress(services.mail.from) },
    status: pending ? ICalEventStatus.TENTATIVE : ICalEventStatus.CONFIRMED,
  });
  event.createAttendee({
    email: booking.email,
    name,
    role: ICalAttendeeRole.REQ,
    status: pending ? ICalAttendeeStatus.NEEDSACTION : ICalAttendeeStatus.ACCEPTED,
  });
}

/**
 * Builds the feed: every accepted booking and every pending one that has not lapsed, in the
 * order they were made, each with its invites' UID and SEQUENCE, in the schedule's zone (with
 * its VTIMEZONE). The text depends only on the bookings, so it keeps its ETag while they are
 * unchanged.
 *
 * @param services The store, clock, schedule and the studio's address.
 * @returns The `text/calendar` body.
 * @throws Whatever the store throws.
 */
export async function buildCalendarFeed(services: CalendarFeedServices): Promise<string> {
  const calendar = ical({
    prodId: { company: SERVICE_NAME, product: "team-calendar", language: "PT" },
    name: "Conversas do estúdio",
    ttl: FEED_REFRESH_SECONDS,
  });
  // A null name writes DTSTAMP in UTC while the generator adds the zone's VTIMEZONE.
  calendar.timezone({ name: null, generator: generateTimezone });
  const nowEpochMs = services.clock.now().epochMilliseconds;
  for await (const { value } of services.store.list<BookingRecord>({ prefix: BOOKING_PREFIX })) {
    const shown = value.status === "accepted" ||
      (value.status === "pending" && !hasLapsed(value, nowEpochMs));
    if (shown) addBookingEvent(calendar, value, services);
  }
  return calendar.toString();
}
