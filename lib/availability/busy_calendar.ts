/**
 * Busy time from iCalendar feeds (RFC 5545), for example the secret iCal address of the studio's
 * Google or iCloud calendar: fetching, caching and the failure rules. Parsing and recurrence
 * expansion (`ics_events.ts`, on ical.js) are loaded with the first feed, so a service without
 * busy calendars never loads ical.js, and a cold start does not wait for it.
 *
 * @module
 */
import type { BusyInterval } from "./availability.ts";
import type { ParsedCalendar } from "./ics_events.ts";
import { BodyError, readBounded } from "../http/read_body.ts";
import type { Clock, Logger } from "../ports.ts";
import { loadOnce } from "../load_once.ts";
import { withSpan } from "../telemetry/telemetry.ts";

/** Parsing and expansion of iCalendar feeds (`ics_events.ts`). */
type IcsEvents = typeof import("./ics_events.ts");

/** A calendar that cannot be read now and has no copy fresh enough: answered 503 `no-backend`. */
export class CalendarUnavailableError extends Error {
  /**
   * @param message What failed.
   */
  constructor(message: string) {
    super(message);
    this.name = "CalendarUnavailableError";
  }
}

/**
 * A source of busy time, such as the studio's calendars: its events block the booking slots they
 * overlap. {@linkcode createIcsCalendar} reads iCalendar feeds (RFC 5545).
 */
export interface BusyCalendar {
  /**
   * Reads the busy time that overlaps `span`.
   *
   * @param span The time of interest.
   * @param options `maxAgeSeconds`: the oldest copy of a feed that may be used (0: fetch now).
   * @throws {CalendarUnavailableError} When a feed cannot be fetched or parsed and no copy is
   * fresh enough.
   */
  read(span: BusyInterval, options: { maxAgeSeconds: number }): Promise<BusyInterval[]>;
}

/** A calendar with no events: the default when no feed is configured. */
export const NO_BUSY_CALENDAR: BusyCalendar = { read: () => Promise.resolve([]) };

/** Options of {@linkcode createIcsCalendar}. */
export interface IcsCalendarOptions {
  /** The feeds' http(s) URLs. */
  urls: readonly string[];
  /** The zone of all-day and floating times (the studio's). */
  defaultTimeZone: string;
  /** The clock. */
  clock: Clock;
  /** The logger. */
  logger: Logger;
  /** The fetch function. @default {globalThis.fetch} */
  fetch?: typeof globalThis.fetch;
  /** Milliseconds to wait for a feed. @default {5000} */
  timeoutMs?: number;
  /** The largest feed accepted, in bytes. @default {5242880} (5 MiB) */
  maxBytes?: number;
}

interface FeedCopy {
  fetchedAtMs: number;
  /** The feed's validators, sent back so that an unchanged feed answers 304 (RFC 9110, 13.1). */
  etag?: string;
  lastModified?: string;
  /** The feed's text, to recognise an unchanged feed and keep its parsed form. */
  text: string;
  calendar: ParsedCalendar;
  /** Expansions of this copy by span, so a warm copy is expanded once per month listed. */
  expansions: Map<string, BusyInterval[]>;
}

/** The largest feed accepted by default, in bytes (5 MiB). */
const DEFAULT_MAX_FEED_BYTES = 5 * 1024 * 1024;

/** How long a feed may take by default, headers and body, in milliseconds. */
const DEFAULT_FEED_TIMEOUT_MILLISECONDS = 5000;

/**
 * Reads a feed's text within `maxBytes`. Its time is the fetch's abort signal, which also ends
 * the body's stream: a stream that fails says why (the abort, or the network).
 */
async function readFeedText(response: Response, maxBytes: number): Promise<string> {
  try {
    const bytes = await readBounded(response.body, {
      maxBytes,
      declaredLength: response.headers.get("Content-Length"),
    });
    return new TextDecoder().decode(bytes);
  } catch (error) {
    if (!(error instanceof BodyError)) throw error;
    if (error.problem === "too-large") throw new Error(`Feed larger than ${maxBytes} bytes`);
    throw error.cause ?? error;
  }
}

/** How feeds are fetched and read: resolved once per calendar. */
interface FeedFetching {
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  maxBytes: number;
  clock: Clock;
  /** Loads the parser with the first feed, once per calendar. */
  loadEvents(): Promise<IcsEvents>;
}

/**
 * Fetches a feed and parses it, unless its text is that of the copy kept in `copies`, whose
 * parsed form is then kept; the new copy replaces the old in `copies`.
 */
async function downloadFeed(
  fetching: FeedFetching,
  copies: Map<string, FeedCopy>,
  url: string,
): Promise<FeedCopy> {
  // Called as a plain function, as the platform's fetch expects (not as a method of `fetching`).
  const fetchFeed = fetching.fetch;
  const previous = copies.get(url);
  const headers: Record<string, string> = { Accept: "text/calendar" };
  if (previous?.etag) headers["If-None-Match"] = previous.etag;
  if (previous?.lastModified) headers["If-Modified-Since"] = previous.lastModified;
  const response = await fetchFeed(url, {
    signal: AbortSignal.timeout(fetching.timeoutMs),
    headers,
    redirect: "follow",
  });
  const fetchedAtMs = fetching.clock.now().epochMilliseconds;
  if (response.status === 304 && previous) {
    // Unchanged, as the feed says: the parsed calendar and its expansions stay.
    await response.body?.cancel().catch(() => {});
    previous.fetchedAtMs = fetchedAtMs;
    return previous;
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new Error(`HTTP ${response.status}`);
  }
  const text = await readFeedText(response, fetching.maxBytes);
  const validators = {
    etag: response.headers.get("ETag") ?? undefined,
    lastModified: response.headers.get("Last-Modified") ?? undefined,
  };
  if (previous && previous.text === text) {
    // Unchanged, though sent again: keep the parsed calendar and its expansions (parsing a large
    // feed is costly).
    Object.assign(previous, { fetchedAtMs }, validators);
    return previous;
  }
  const { parseCalendar } = await fetching.loadEvents();
  const calendar = parseCalendar(text);
  const copy: FeedCopy = { fetchedAtMs, text, calendar, expansions: new Map(), ...validators };
  copies.set(url, copy);
  return copy;
}

/**
 * The feeds' busy time together. The same parts give the same array, so callers can cache what
 * they derive from it.
 */
function combineParts(
  combined: Map<string, { parts: BusyInterval[][]; busy: BusyInterval[] }>,
  key: string,
  parts: BusyInterval[][],
): BusyInterval[] {
  const previous = combined.get(key);
  if (
    previous && previous.parts.length === parts.length &&
    previous.parts.every((part, index) => part === parts[index])
  ) return previous.busy;
  const busy = parts.length === 1 ? parts[0] : parts.flat();
  if (combined.size >= 16) combined.clear();
  combined.set(key, { parts, busy });
  return busy;
}

/**
 * Creates a busy calendar over iCalendar feeds, fetched with a timeout and a size cap. Each feed's
 * parsed copy is kept: a read within the `maxAgeSeconds` it allows reuses it, and an older one asks
 * the feed again with the copy's validators (`If-None-Match`, `If-Modified-Since`), so that an
 * unchanged feed answers 304 and the parsed copy stays; concurrent reads share one fetch in flight.
 *
 * @param options The feeds, zone, clock, logger and limits.
 */
export function createIcsCalendar(options: IcsCalendarOptions): BusyCalendar {
  const fetching: FeedFetching = {
    fetch: options.fetch ?? globalThis.fetch,
    timeoutMs: options.timeoutMs ?? DEFAULT_FEED_TIMEOUT_MILLISECONDS,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_FEED_BYTES,
    clock: options.clock,
    loadEvents: loadOnce(() => import("./ics_events.ts")),
  };
  const copies = new Map<string, FeedCopy>();
  const combined = new Map<string, { parts: BusyInterval[][]; busy: BusyInterval[] }>();
  const inFlight = new Map<string, Promise<FeedCopy>>();

  async function readFeed(url: string, maxAgeSeconds: number): Promise<FeedCopy> {
    const copy = copies.get(url);
    const nowMs = options.clock.now().epochMilliseconds;
    if (copy && nowMs - copy.fetchedAtMs <= maxAgeSeconds * 1000) return copy;
    let pending = inFlight.get(url);
    if (!pending) {
      pending = withSpan(
        "busy_calendar fetch",
        { "server.address": readHost(url) },
        () => downloadFeed(fetching, copies, url),
        "client",
      ).finally(() => inFlight.delete(url));
      inFlight.set(url, pending);
    }
    try {
      return await pending;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      options.logger.warn("Busy calendar unavailable", { url: redact(url), error: reason });
      throw new CalendarUnavailableError(`A busy calendar could not be read: ${reason}`);
    }
  }

  /** The busy time of one feed over `span` (keyed `key`), expanded once per span and copy. */
  async function readBusy(
    url: string,
    span: BusyInterval,
    key: string,
    maxAgeSeconds: number,
  ): Promise<BusyInterval[]> {
    const copy = await readFeed(url, maxAgeSeconds);
    let busy = copy.expansions.get(key);
    if (busy) return busy;
    const { expandCalendar } = await fetching.loadEvents();
    const skipped = [...copy.calendar.skipped];
    busy = expandCalendar(copy.calendar, span, options.defaultTimeZone, skipped);
    if (skipped.length) {
      options.logger.warn("Busy calendar events skipped: they could not be read", {
        url: redact(url),
        uids: skipped.slice(0, 20),
        count: skipped.length,
      });
    }
    if (copy.expansions.size >= 16) copy.expansions.clear();
    copy.expansions.set(key, busy);
    return busy;
  }

  return {
    async read(span, { maxAgeSeconds }) {
      const key = `${span.startEpochMs}:${span.endEpochMs}`;
      const parts = await Promise.all(
        options.urls.map((url) => readBusy(url, span, key, maxAgeSeconds)),
      );
      return combineParts(combined, key, parts);
    },
  };
}

/** A feed URL for logs: the secret path of a private iCal address is not written out. */
function redact(url: string): string {
  const host = readHost(url);
  return host ? `${new URL(url).protocol}//${host}/…` : "(invalid URL)";
}

/** A feed's host (and port), for logs and telemetry: never its secret path or query. */
function readHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}
