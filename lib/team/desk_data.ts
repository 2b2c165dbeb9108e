/**
 * What the team's desk shows, read from the store: the counts of its sections, the lists of
 * inquiries and bookings a page at a time with their search and filters, one record's page and its
 * history (the audit trail's entries about it, the e-mails sent about it and their delivery), and
 * the audit trail a page at a time. Every read is bounded: a list reads at most the newest
 * {@linkcode DESK_SCAN_LIMIT} records of its kind, a search the newest
 * {@linkcode DESK_SEARCH_LIMIT}, a record's history the newest {@linkcode DESK_AUDIT_SCAN_LIMIT}
 * audit entries, and each says when it stopped at its bound.
 *
 * @module
 */
import { INQUIRY_PREFIX, type InquiryRecord, type InquiryState } from "../contact/inquiries.ts";
import { BOOKING_PREFIX } from "../booking/booking_store.ts";
import type { BookingRecord } from "../booking/booking_mail.ts";
import { AUDIT_PREFIX, type AuditEntry } from "./audit_trail.ts";
import { OUTBOX_PREFIX, type OutboxEntry, SENT_PREFIX, type SentRecord } from "../mail/outbox.ts";
import type { Store } from "../store/store.ts";

/** The most records of each kind a list or a count reads, newest first. */
export const DESK_SCAN_LIMIT = 2000;

/**
 * The most records of each kind a search reads, newest first: far more than a list, so that a
 * search finds an old record (records are kept for the retention period only), yet bounded.
 */
export const DESK_SEARCH_LIMIT = 20_000;

/** The records on one page of a list. */
export const DESK_PAGE_SIZE = 25;

/** The most audit entries a record's history, or the trail's pages, read (newest first). */
export const DESK_AUDIT_SCAN_LIMIT = 5000;

/** A booking's status as the desk shows it: a pending request past its hold has `lapsed`. */
export type DeskBookingStatus = "pending" | "accepted" | "declined" | "cancelled" | "lapsed";

/** The bookings list's filters: requests waiting, accepted ones not over, and the rest. */
export const BOOKING_FILTERS = ["pending", "upcoming", "past"] as const;

/** One of {@linkcode BOOKING_FILTERS}. */
export type BookingFilter = typeof BOOKING_FILTERS[number];

/** The inquiries list's filters: by state. */
export const INQUIRY_FILTERS = ["open", "answered"] as const satisfies readonly InquiryState[];

/** One page of a list. */
export interface DeskList<T> {
  /** The page's records. */
  records: T[];
  /** How many records match, among those read. */
  total: number;
  /** The page shown, from 1 (a page past the last shows the last). */
  page: number;
  /** How many pages the matches fill, at least 1. */
  pageCount: number;
  /** Whether the read stopped at its bound, so that older records were not looked at. */
  limited: boolean;
}

/** What the list of inquiries or bookings is asked for. */
export interface DeskListQuery {
  /** Words to find in a name, an e-mail address or a topic (a message), without regard to case. */
  search?: string;
  /** The page, from 1. @default {1} */
  page?: number;
  /** The most records read. @default {DESK_SCAN_LIMIT, or DESK_SEARCH_LIMIT with a search} */
  scanLimit?: number;
}

/** The counts beside the desk's sections. */
export interface DeskCounts {
  /** Inquiries not yet answered. */
  openInquiries: number;
  /** Requests waiting for the team's confirmation. */
  pendingBookings: number;
  /** Accepted bookings not yet over. */
  upcomingBookings: number;
}

/** Whether a booking is still a request the team can confirm or decline at `nowEpochMs`. */
export function isWaiting(record: BookingRecord, nowEpochMs: number): boolean {
  return record.status === "pending" &&
    nowEpochMs < (record.holdUntilEpochMs ?? record.startEpochMs);
}

/**
 * A booking's status as the desk shows it.
 *
 * @param record The booking.
 * @param nowEpochMs The current time, epoch milliseconds.
 * @returns Its stored status, or `lapsed` for a request whose hold has passed.
 */
export function toDeskStatus(record: BookingRecord, nowEpochMs: number): DeskBookingStatus {
  return record.status === "pending" && !isWaiting(record, nowEpochMs) ? "lapsed" : record.status;
}

/** Which of the list's filters a booking falls under at `nowEpochMs`. */
export function toBookingFilter(record: BookingRecord, nowEpochMs: number): BookingFilter {
  if (isWaiting(record, nowEpochMs)) return "pending";
  return record.status === "accepted" && record.endEpochMs > nowEpochMs ? "upcoming" : "past";
}

/** A search as the desk keeps it: trimmed, lower-cased, 254 characters at most. */
export function toSearch(value: string | null | undefined): string | undefined {
  return value?.trim().toLowerCase().slice(0, 254) || undefined;
}

/** Whether every word of `search` is in one of `texts`, without regard to case. */
function matches(search: string, texts: ReadonlyArray<string | undefined>): boolean {
  const haystack = texts.filter(Boolean).join("\n").toLowerCase();
  return search.split(/\s+/).every((word) => haystack.includes(word));
}

/** The newest records under `prefix` that `keep` keeps, reading at most `limit`. */
async function scan<T>(
  store: Store,
  prefix: readonly string[],
  options: { limit: number; keep?: (record: T) => boolean },
): Promise<{ values: T[]; limited: boolean }> {
  const values: T[] = [];
  let read = 0;
  // One more than the bound: whether there was more to read.
  const listed = store.list<T>({ prefix }, { reverse: true, limit: options.limit + 1 });
  for await (const { value } of listed) {
    if (++read > options.limit) return { values, limited: true };
    if (!options.keep || options.keep(value)) values.push(value);
  }
  return { values, limited: false };
}

/** The page `page` of `values`, and where it is among all. */
function toPage<T>(values: T[], page: number | undefined, limited: boolean): DeskList<T> {
  const pageCount = Math.max(1, Math.ceil(values.length / DESK_PAGE_SIZE));
  const shown = Math.min(Math.max(1, Math.floor(page ?? 1)), pageCount);
  return {
    records: values.slice((shown - 1) * DESK_PAGE_SIZE, shown * DESK_PAGE_SIZE),
    total: values.length,
    page: shown,
    pageCount,
    limited,
  };
}

/**
 * A page of inquiries, newest first.
 *
 * @param store The store.
 * @param query The search (in the name, address, category and message), the state, the page.
 * @returns The page.
 * @throws Whatever the store throws.
 */
export async function readInquiryList(
  store: Store,
  query: DeskListQuery & { state?: InquiryState },
): Promise<DeskList<InquiryRecord>> {
  const { search, state } = query;
  const { values, limited } = await scan<InquiryRecord>(store, INQUIRY_PREFIX, {
    limit: query.scanLimit ?? (search ? DESK_SEARCH_LIMIT : DESK_SCAN_LIMIT),
    keep: (record) =>
      (!state || (record.state ?? "open") === state) &&
      (!search || matches(search, [
        record.fields.Name,
        record.fields.Email,
        record.fields.Category,
        record.fields.Message,
      ])),
  });
  return toPage(values, query.page, limited);
}

/** The order of the bookings list: requests soonest first, upcoming soonest, then latest first. */
function compareBookings(nowEpochMs: number): (a: BookingRecord, b: BookingRecord) => number {
  const rank = { pending: 0, upcoming: 1, past: 2 } as const;
  return (a, b) => {
    const [first, second] = [toBookingFilter(a, nowEpochMs), toBookingFilter(b, nowEpochMs)];
    if (first !== second) return rank[first] - rank[second];
    return first === "past" ? b.startEpochMs - a.startEpochMs : a.startEpochMs - b.startEpochMs;
  };
}

/**
 * A page of bookings: requests waiting (soonest first), then upcoming ones (soonest first), then
 * the rest (latest start first).
 *
 * @param store The store.
 * @param query The current time, the search (in the name, address, company and topic), the
 * filter and the page.
 * @returns The page.
 * @throws Whatever the store throws.
 */
export async function readBookingList(
  store: Store,
  query: DeskListQuery & { nowEpochMs: number; show?: BookingFilter },
): Promise<DeskList<BookingRecord>> {
  const { search, show, nowEpochMs } = query;
  const { values, limited } = await scan<BookingRecord>(store, BOOKING_PREFIX, {
    limit: query.scanLimit ?? (search ? DESK_SEARCH_LIMIT : DESK_SCAN_LIMIT),
    keep: (record) =>
      (!show || toBookingFilter(record, nowEpochMs) === show) &&
      (!search || matches(search, [record.name, record.email, record.company, record.topic])),
  });
  return toPage(values.sort(compareBookings(nowEpochMs)), query.page, limited);
}

/**
 * The counts beside the desk's sections, among the newest {@linkcode DESK_SCAN_LIMIT} records of
 * each kind.
 *
 * @param store The store.
 * @param nowEpochMs The current time.
 * @throws Whatever the store throws.
 */
export async function readDeskCounts(store: Store, nowEpochMs: number): Promise<DeskCounts> {
  const [inquiries, bookings] = await Promise.all([
    scan<InquiryRecord>(store, INQUIRY_PREFIX, {
      limit: DESK_SCAN_LIMIT,
      keep: (record) => (record.state ?? "open") === "open",
    }),
    scan<BookingRecord>(store, BOOKING_PREFIX, {
      limit: DESK_SCAN_LIMIT,
      keep: (record) => toBookingFilter(record, nowEpochMs) !== "past",
    }),
  ]);
  const pending = bookings.values.filter((record) => isWaiting(record, nowEpochMs)).length;
  return {
    openInquiries: inquiries.values.length,
    pendingBookings: pending,
    upcomingBookings: bookings.values.length - pending,
  };
}

/** An e-mail sent about a record, and how its delivery went. */
export interface MailHistoryItem {
  /** The outbox's id of the message (a ULID: sorts by the time it was queued). */
  id: string;
  /** `sent`: the server accepted it; `waiting`: not yet tried; `retrying`: tried and failed. */
  state: "sent" | "waiting" | "retrying";
  /** Its recipients. */
  to: string[];
  /** Its subject. */
  subject: string;
  /** When it was sent, or when it is (next) due; ISO 8601 UTC. */
  at: string;
  /** Delivery attempts so far (a sent one's include the one that succeeded). */
  attempts: number;
  /** The last failure's message, for one that is retrying. */
  lastError?: string;
  /** The kind its Message-ID names (`attendee-booked`, `studio-new` …), when the store has it. */
  kind?: string;
  /** The invite's SEQUENCE its Message-ID names, for a booking's e-mail. */
  sequence?: number;
}

/**
 * The kind and SEQUENCE a booking e-mail's Message-ID names: `<kind>-<booking id>-<sequence>@…`
 * (`lib/booking/booking_mail.ts`); an inquiry's names its kind and record.
 */
export function readMessageKind(
  messageId: string,
): { kind: string; sequence?: number } | undefined {
  const match = /^<?([a-z]+(?:-[a-z]+)*)-[0-9A-Z]{26}(?:-(\d+))?@/.exec(messageId);
  if (!match) return undefined;
  return { kind: match[1], ...(match[2] ? { sequence: Number(match[2]) } : {}) };
}

/** The Message-ID a delivery record carries (none in records older than the field). */
function readSentMessageId(record: SentRecord): string | undefined {
  return typeof record.messageId === "string" ? record.messageId : undefined;
}

/**
 * The e-mails of a record (its `mailIds`), each with its delivery state, in the order they were
 * queued; one the store no longer holds (a delivery record past its 90 days) is left out.
 *
 * @param store The store.
 * @param mailIds The outbox ids, as the record lists them.
 * @throws Whatever the store throws.
 */
export async function readMailHistory(
  store: Store,
  mailIds: readonly string[],
): Promise<MailHistoryItem[]> {
  const found = await Promise.all(mailIds.map(async (id) => {
    const [waiting, sent] = await Promise.all([
      store.get<OutboxEntry>([...OUTBOX_PREFIX, id]),
      store.get<SentRecord>([...SENT_PREFIX, id]),
    ]);
    if (sent.value) {
      const messageId = readSentMessageId(sent.value);
      const { to, subject, sentAt, attempts } = sent.value;
      return {
        id,
        state: "sent",
        to,
        subject,
        at: sentAt,
        attempts,
        ...(messageId ? readMessageKind(messageId) : {}),
      } satisfies MailHistoryItem;
    }
    if (!waiting.value) return undefined;
    const { mail, attempts, nextAttemptAt, lastError } = waiting.value;
    return {
      id,
      state: attempts > 0 ? "retrying" : "waiting",
      to: mail.to,
      subject: mail.subject,
      at: nextAttemptAt,
      attempts,
      ...(lastError ? { lastError } : {}),
      ...readMessageKind(mail.messageId),
    } satisfies MailHistoryItem;
  }));
  return found.filter((item): item is MailHistoryItem => item !== undefined);
}

/**
 * The audit trail's entries about one record, oldest first, among the newest
 * {@linkcode DESK_AUDIT_SCAN_LIMIT}.
 *
 * @param store The store.
 * @param subject The record's id.
 * @throws Whatever the store throws.
 */
export async function readAuditFor(store: Store, subject: string): Promise<AuditEntry[]> {
  const { values } = await scan<AuditEntry>(store, AUDIT_PREFIX, {
    limit: DESK_AUDIT_SCAN_LIMIT,
    keep: (entry) => entry.subject === subject,
  });
  return values.reverse();
}

/**
 * A page of the audit trail, newest first, among its newest {@linkcode DESK_AUDIT_SCAN_LIMIT}
 * entries.
 *
 * @param store The store.
 * @param page The page, from 1.
 * @throws Whatever the store throws.
 */
export async function readAuditList(store: Store, page = 1): Promise<DeskList<AuditEntry>> {
  const { values, limited } = await scan<AuditEntry>(store, AUDIT_PREFIX, {
    limit: DESK_AUDIT_SCAN_LIMIT,
  });
  return toPage(values, page, limited);
}

/**
 * One inquiry or booking by its id.
 *
 * @param store The store.
 * @param kind Which kind of record.
 * @param id Its id.
 * @returns The record, or `undefined` when there is none (never stored, or erased).
 * @throws Whatever the store throws.
 */
export async function readRecord<K extends "inquiry" | "booking">(
  store: Store,
  kind: K,
  id: string,
): Promise<(K extends "inquiry" ? InquiryRecord : BookingRecord) | undefined> {
  const prefix = kind === "inquiry" ? INQUIRY_PREFIX : BOOKING_PREFIX;
  const entry = await store.get<K extends "inquiry" ? InquiryRecord : BookingRecord>([
    ...prefix,
    id,
  ]);
  return entry.value ?? undefined;
}
