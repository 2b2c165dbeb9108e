/**
 * The resolved set of services that route factories close over (the ports themselves live in
 * `ports.ts`).
 *
 * @module
 */
import type { Clock, Logger } from "./ports.ts";
import type { PolicyName, RateLimitPolicy } from "./contract/contract.ts";
import type { TrustedProxyHeader } from "./http/client_address.ts";
import type { RateLimiter } from "./http/rate_limit.ts";
import type { Store } from "./store/store.ts";
import type { GroupCommit } from "./store/group_commit.ts";
import type { Outbox } from "./mail/outbox.ts";
import type { MailAddresses } from "./mail/mail.ts";
import type { Corpus } from "./site/corpus.ts";
import type { Site } from "./site/site.ts";
import type { SiteIndex } from "./site/site_index.ts";
import type { SiteDocuments } from "./site/site_documents.ts";
import type { ApiReferenceScript } from "./site/api_reference_script.ts";
import type { ContentFormat } from "./http/negotiate_format.ts";
import type { ScheduleSettings } from "./availability/schedule.ts";
import type { BusyCalendar } from "./availability/busy_calendar.ts";
import type { SlotFinder } from "./availability/slots.ts";
import type { LinkSigner } from "./booking/signed_links.ts";
import type { InviteModule } from "./booking/booking_mail.ts";
import type { TeamSettings } from "./team/team.ts";

/** Everything a route needs, resolved once per handler and frozen. */
export interface Services {
  /** The public origin for absolute links, without a trailing slash, e.g. `https://studio.pt`. */
  baseUrl: string;
  /** Absolute URL of the OpenAPI document, for ErrorResponse `docs`. */
  docsUrl: string;
  /** The store. */
  store: Store;
  /**
   * Commits new records (inquiries with their mail) together while the store is busy with an
   * earlier commit: one commit of the store for the group (see `createGroupCommit`).
   */
  groupCommit: GroupCommit;
  /** The clock. */
  clock: Clock;
  /**
   * The clock's current time in epoch milliseconds, for hot paths (rate limiting, health):
   * `Date.now` for the system clock, which is several times cheaper than `Temporal.Now`.
   */
  nowMilliseconds: () => number;
  /** The logger. */
  logger: Logger;
  /** The rate limiter. */
  rateLimiter: RateLimiter;
  /** The rate-limit policies with the operator's quotas. */
  policies: Readonly<Record<PolicyName, RateLimitPolicy>>;
  /** The header trusted for the client address, if any. */
  trustProxy?: TrustedProxyHeader;
  /** The booking schedule. */
  schedule: ScheduleSettings;
  /** The calendars whose events block slots. */
  busyCalendar: BusyCalendar;
  /** The availability service (listing and booking check). */
  slotFinder: SlotFinder;
  /**
   * Booking rules: the confirmation mode, the bookings per attendee address and day, and the
   * minutes before the start that the attendee is reminded (0: no reminders).
   */
  booking: {
    confirmation: "auto" | "manual";
    bookingsPerAttendee: number;
    reminderLeadMinutes: number;
  };
  /** The origins whose pages may POST (contact, booking, the forms); see `createOriginCheck`. */
  allowedOrigins: ReadonlySet<string>;
  /** Signs and checks the links of booking e-mails. */
  linkSigner: LinkSigner;
  /** The team who may sign in to the desk, and the signer of their sign-in links. */
  team: TeamSettings;
  /** The outbox that delivers e-mail and webhook events. */
  outbox: Outbox;
  /** Mail addresses: From, the studio inbox, and the domain of generated Message-IDs. */
  mail: MailAddresses;
  /** Headers every `/api/` response carries: `API-Version` and any deprecation notice. */
  versionHeaders: ReadonlyArray<readonly [string, string]>;
  /**
   * Loads the site's content (pages of both languages, settings and assets) once: the studio's
   * own corpus is a large module that the site's first request loads, not start-up, so a cold
   * start that answers the API never loads it. The site's routes get it as
   * `SiteServices.content`.
   */
  loadContent(): Promise<Corpus>;
  /**
   * Loads the invites' module (ical-generator) once, with the first e-mail of a booking made or
   * changed, by the API, the forms, the action links or MCP; not at start-up.
   */
  loadInvites(): Promise<InviteModule>;
  /** The site's paths (its pages and root assets), which the route table is built from. */
  siteIndex: SiteIndex;
  /**
   * The site built from the content, on first use and kept for the handler's lifetime (the content
   * routes, the contact form, the booking links and the not-found fallback share it). Building it
   * (and loading the Markdown renderer) is paid by the first request that needs it, not by
   * start-up.
   */
  site(): Promise<Site>;
  /**
   * The site's answers that depend on nothing in a request (pages, the 404 pages, the documents,
   * the assets): for the studio's corpus, those the build prepared, each read and filled in with
   * the public origin on its first request; for a corpus passed in, those of `site()`. Their
   * module is imported by the first request that needs them.
   */
  documents(): Promise<SiteDocuments>;
  /** Chooses HTML or Markdown for an `Accept` value, remembering recent answers. */
  negotiateFormat(accept: string | null): Promise<ContentFormat>;
  /**
   * Loads the API reference pages' renderer, a script of some megabytes: the reference routes
   * call it on their first request and keep what it gave.
   */
  loadApiReference(): Promise<ApiReferenceScript>;
  /**
   * Aborted when the server stops: the body reads that watch it (the MCP endpoint's) give up
   * then, so that the server's shutdown (which waits for open requests) is not held by a slow
   * sender.
   */
  stopping: AbortSignal;
}

/** The services of the site's routes: the services, with the content loaded. */
export interface SiteServices extends Services {
  /** The site's content: pages of both languages, settings and assets. */
  readonly content: Corpus;
}
