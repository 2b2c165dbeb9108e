/**
 * Option resolution: `createHandler`'s options, checked once and resolved with their defaults
 * into the frozen {@linkcode Services} that route factories close over.
 *
 * @module
 */
import {
  OPENAPI_PATH,
  type PolicyName,
  RATE_LIMIT_POLICIES,
  type RateLimitPolicy,
} from "./contract/contract.ts";
import type { TrustedProxyHeader } from "./http/client_address.ts";
import { MAX_REMINDER_LEAD_MINUTES, SERVICE_DEFAULTS } from "./config.ts";
import { createRateLimiter, type RateLimiter } from "./http/rate_limit.ts";
import { buildVersionHeaders, type DeprecationNotice } from "./http/versioning.ts";
import { type BusyCalendar, NO_BUSY_CALENDAR } from "./availability/busy_calendar.ts";
import type { HolidayTable } from "./availability/holidays.ts";
import type { ScheduleSettings } from "./availability/schedule.ts";
import { createSlotFinder } from "./availability/slots.ts";
import { createLinkSigner } from "./booking/signed_links.ts";
import { createTeamSigner } from "./team/team_signer.ts";
import { toBareAddress } from "./mail/mail.ts";
import { DEFAULT_BOOKINGS_PER_ATTENDEE } from "./booking/booking_store.ts";
import type { Mailer } from "./mail/mail.ts";
import { createMemoryMailer } from "./mail/memory_mailer.ts";
import { createOutbox, type Outbox } from "./mail/outbox.ts";
import type { Clock, Logger } from "./ports.ts";
import { createJsonLogger } from "./create_json_logger.ts";
import type { Services } from "./services.ts";
import type { Corpus } from "./site/corpus.ts";
import { buildSiteIndex, type SiteIndex } from "./site/site_index.ts";
import type { PrebuiltSite } from "./site/site_documents.ts";
import type { ApiReferenceScript } from "./site/api_reference_script.ts";
import { loadOnce } from "./load_once.ts";
import { createFormatNegotiator } from "./http/negotiate_format.ts";
import { createMemoryStore } from "./store/memory_store.ts";
import { createGroupCommit } from "./store/group_commit.ts";
import { readOrCreateSecret } from "./store/secret.ts";
import type { Store } from "./store/store.ts";

/** Options of {@linkcode createHandler}; every one is optional. */
export interface HandlerOptions {
  /**
   * The public origin for absolute links (`docs`, the index, the catalog), without a path.
   * @default {"http://localhost:8000"}
   */
  baseUrl?: string;
  /**
   * The store. @default {createMemoryStore()}: `@deno/kv`'s in-memory KV, opened on first use
   * (test grade: data is lost on exit)
   */
  store?: Store;
  /** The clock. @default {the system clock} */
  clock?: Clock;
  /** The logger. @default {JSON lines on the console} */
  logger?: Logger;
  /**
   * The header that carries the client address behind a trusted reverse proxy. Unset, the
   * connection's address counts and forwarding headers are ignored.
   */
  trustProxy?: TrustedProxyHeader;
  /** Quotas per window, by policy name. @default {{ read: 120, write: 10, booking: 5 }} */
  rateLimits?: Partial<Record<PolicyName, number>>;
  /**
   * A rate limiter of your own, for example `createKvRateLimiter({ store })`, whose counters the
   * instances on one store share. @default {createRateLimiter()} (counts in the process)
   */
  rateLimiter?: RateLimiter;
  /** Announces the deprecation of v1 (RFC 9745, RFC 8594). */
  deprecation?: DeprecationNotice;
  /**
   * The mailer the default outbox sends with. @default {createMemoryMailer()} (test grade: mail
   * is kept in memory)
   */
  mailer?: Mailer;
  /**
   * An outbox of your own (see `createOutbox`), e.g. one the composition root starts and stops;
   * it must use the same store. Without one, an outbox over `store` and `mailer` is created and
   * delivers right after each commit.
   */
  outbox?: Outbox;
  /**
   * The booking schedule (`createHandler` checks it; `resolveServices` takes it as checked).
   * @default {the settings of `content/schedule.json`}
   */
  schedule?: ScheduleSettings;
  /**
   * National public holidays computed ahead (`public_holidays.generated.ts` of a studio's build,
   * `deno task build --content <folder> --out <folder>`), by country and year: a listing of the
   * schedule's country then loads no holiday library. Other countries and years are computed by
   * `date-holidays` when first listed. @default {the table of the studio's own build}
   */
  holidays?: HolidayTable;
  /**
   * The calendars whose events block slots (see `createIcsCalendar`). @default {no calendar}
   */
  busyCalendar?: BusyCalendar;
  /** `auto`: bookings are accepted at once; `manual`: they wait for the team. @default {"auto"} */
  confirmation?: "auto" | "manual";
  /**
   * Bookings one attendee address may receive per day (UTC), whoever books: each one e-mails the
   * address text the booker wrote. A whole number of at least 1. @default {3}
   */
  bookingsPerAttendee?: number;
  /**
   * Minutes before an accepted booking's start that its attendee gets one reminder e-mail, a whole
   * number from 0 to 43,200 (30 days); 0: no reminders. The handler schedules them with the
   * bookings; a sweeper (`createReminderSweeper`, which the service's start runs) queues them
   * when due. @default {1440}
   */
  reminderLeadMinutes?: number;
  /**
   * Origins whose pages may POST (contact, booking, the contact form, booking links): a POST whose
   * `Origin` is another is refused with 403; a request without `Origin` is always accepted.
   * @default {[the origin of baseUrl]}
   */
  allowedOrigins?: readonly string[];
  /**
   * The key that signs confirm, decline, cancel and reschedule links (at least 32 characters).
   * @default {one generated once and kept in the store}
   */
  secret?: string;
  /** From address of outgoing e-mail. @default {"studio@localhost"} */
  mailFrom?: string;
  /** The studio's inbox for inquiries and booking notices. @default {"studio@localhost"} */
  inbox?: string;
  /**
   * The addresses of the team, who may sign in to the desk (`/equipa`, `/en/team`) by a link
   * e-mailed to them; compared without regard to case. @default {[the inbox's address]}
   */
  team?: readonly string[];
  /**
   * The site's content (see `Corpus`), checked once by `createHandler` (`resolveServices` takes it
   * as checked).
   * @default {the studio's corpus, compiled from content/ into build/corpus.generated.ts}
   */
  content?: Corpus;
  /**
   * Aborted when the server is about to stop (`App.interrupt()`, before the server's shutdown):
   * the MCP endpoint then gives up a request body still arriving and answers 503 at once, since a
   * server's shutdown waits for its open requests and a slow sender would otherwise hold it (the
   * API's and the forms' reads end within their 10 s).
   * @default {a signal never aborted}
   */
  signal?: AbortSignal;
}

/** What a handler uses where its options say nothing and the library cannot decide alone. */
export interface ServiceDefaults {
  /**
   * The site's content: its index (the paths the route table is built from) and what loads the
   * corpus, once, with the site's first request.
   */
  content: {
    index: SiteIndex;
    load: () => Promise<Corpus>;
    /** Imports the site the build prepared from this corpus (see `createPrebuiltDocuments`). */
    loadPrebuilt?: () => Promise<PrebuiltSite>;
  };
  /** The booking schedule, already checked. */
  schedule: ScheduleSettings;
  /**
   * Public holidays computed at build time (the schedule's country, the years a listing is likely
   * to ask for); others load `date-holidays` when first listed.
   */
  holidays: HolidayTable;
  /** Loads the API reference pages' renderer (called by their first request). */
  loadApiReference(): Promise<ApiReferenceScript>;
}

/** The system clock (`Temporal.Now`); where it is the clock, hot paths read `Date.now()`. */
export const SYSTEM_CLOCK: Clock = { now: () => Temporal.Now.instant() };

/**
 * The default logger: one JSON object per line (see `createJsonLogger`), each written at once,
 * errors and warnings on standard error. The service's own log writes in batches (`app.ts`).
 */
export const CONSOLE_LOGGER: Logger = createJsonLogger({
  write: (line) => console.log(line),
  writeError: (line) => console.error(line),
  // A string per line: a cache here would be state that every handler of the process shares.
  time: () => new Date().toISOString(),
});

function readBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`Invalid baseUrl: "${value}" is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`Invalid baseUrl: "${value}" is not an http(s) URL`);
  }
  return url.origin;
}

function resolvePolicies(
  limits: Partial<Record<PolicyName, number>> = {},
): Record<PolicyName, RateLimitPolicy> {
  const policies = { ...RATE_LIMIT_POLICIES };
  for (const name of Object.keys(policies) as PolicyName[]) {
    const limit = limits[name];
    if (limit === undefined) continue;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(
        `Invalid rateLimits.${name}: ${limit} is not a whole number of at least 1`,
      );
    }
    policies[name] = { ...policies[name], limit };
  }
  return policies;
}

function readBookingsPerAttendee(limit: number = DEFAULT_BOOKINGS_PER_ATTENDEE): number {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(
      `Invalid bookingsPerAttendee: ${limit} is not a whole number of at least 1`,
    );
  }
  return limit;
}

function readReminderLeadMinutes(
  minutes: number = SERVICE_DEFAULTS.reminderLeadMinutes,
): number {
  if (!Number.isInteger(minutes) || minutes < 0 || minutes > MAX_REMINDER_LEAD_MINUTES) {
    throw new RangeError(
      `Invalid reminderLeadMinutes: ${minutes} is not a whole number from 0 to ${MAX_REMINDER_LEAD_MINUTES}`,
    );
  }
  return minutes;
}

/**
 * Resolves the options into the frozen services that route factories close over.
 *
 * @param options The handler's options.
 * @param defaults The studio's own content, schedule, holiday table and API reference renderer,
 * for options that leave them out.
 * @throws {TypeError | RangeError} When an option is invalid.
 */
export function resolveServices(options: HandlerOptions, defaults: ServiceDefaults): Services {
  const clock = options.clock ?? SYSTEM_CLOCK;
  const nowMilliseconds = clock === SYSTEM_CLOCK ? Date.now : () => clock.now().epochMilliseconds;
  const baseUrl = readBaseUrl(options.baseUrl ?? SERVICE_DEFAULTS.baseUrl);
  const store = options.store ?? createMemoryStore();
  const logger = options.logger ?? CONSOLE_LOGGER;
  const schedule = options.schedule ?? defaults.schedule;
  const busyCalendar = options.busyCalendar ?? NO_BUSY_CALENDAR;
  const given = options.content;
  const loadContent = given ? () => Promise.resolve(given) : loadOnce(defaults.content.load);
  const site = loadOnce(async () => {
    const [{ buildSite }, content] = await Promise.all([
      import("./site/build_site.ts"),
      loadContent(),
    ]);
    return buildSite(content, baseUrl);
  });
  const loadPrebuilt = given ? undefined : defaults.content.loadPrebuilt;
  const inbox = options.inbox ?? SERVICE_DEFAULTS.mailAddress;
  const readSecret = () => readOrCreateSecret(store, options.secret);
  return Object.freeze({
    baseUrl,
    docsUrl: baseUrl + OPENAPI_PATH,
    store,
    groupCommit: createGroupCommit(store),
    clock,
    nowMilliseconds,
    logger,
    schedule,
    busyCalendar,
    slotFinder: createSlotFinder({
      settings: schedule,
      busyCalendar,
      store,
      nowMilliseconds,
      holidays: options.holidays ?? defaults.holidays,
    }),
    booking: {
      confirmation: options.confirmation ?? "auto",
      bookingsPerAttendee: readBookingsPerAttendee(options.bookingsPerAttendee),
      reminderLeadMinutes: readReminderLeadMinutes(options.reminderLeadMinutes),
    },
    allowedOrigins: new Set(options.allowedOrigins ?? [baseUrl]),
    linkSigner: createLinkSigner(readSecret),
    team: {
      members: new Set(
        (options.team ?? [toBareAddress(inbox)]).map((address) =>
          toBareAddress(address).trim().toLowerCase()
        ),
      ),
      signer: createTeamSigner(readSecret),
    },
    outbox: options.outbox ??
      createOutbox({ store, mailer: options.mailer ?? createMemoryMailer(), clock, logger }),
    mail: {
      from: options.mailFrom ?? SERVICE_DEFAULTS.mailAddress,
      inbox,
      messageIdDomain: new URL(baseUrl).hostname,
    },
    rateLimiter: options.rateLimiter ?? createRateLimiter({ nowMilliseconds }),
    policies: Object.freeze(resolvePolicies(options.rateLimits)),
    trustProxy: options.trustProxy,
    versionHeaders: Object.freeze(buildVersionHeaders(options.deprecation)),
    loadInvites: loadOnce(() => import("./booking/invites.ts")),
    siteIndex: given ? buildSiteIndex(given) : defaults.content.index,
    site,
    documents: loadOnce(async () => {
      const prepared = await import("./site/site_documents.ts");
      return loadPrebuilt
        ? prepared.createPrebuiltDocuments(loadPrebuilt, baseUrl)
        : prepared.createSiteDocuments(site);
    }),
    loadContent,
    negotiateFormat: createFormatNegotiator(),
    loadApiReference: defaults.loadApiReference,
    stopping: options.signal ?? new AbortController().signal,
  });
}
