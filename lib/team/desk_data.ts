/**
 * What the team's desk shows, read from the store: inquiries newest first, bookings as pending,
 * upcoming and past, the audit trail, and a search by e-mail address across every inquiry and
 * booking kept.
 *
 * @module
 */
import { INQUIRY_PREFIX, type InquiryRecord } from "../contact/inquiries.ts";
import { BOOKING_PREFIX } from "../booking/booking_store.ts";
import type { BookingRecord } from "../booking/booking_mail.ts";
import { type AuditEntry, listAuditEntries } from "./audit_trail.ts";
import type { Store } from "../store/store.ts";

/**
 * The most records of each kind the desk reads (newest first) to sort into its lists; a search
 * reads every record, as the export of personal data does, so it finds a record however old.
 */
export const DESK_SCAN_LIMIT = 2000;

/** The most records the desk lists in each of its lists. */
export const DESK_LIST_LIMIT = 50;

/** What the desk shows. */
export interface DeskData {
  /** Inquiries, newest first. */
  inquiries: InquiryRecord[];
  /** Requests waiting for the team (manual confirmation), soonest first. */
  pending: BookingRecord[];
  /** Accepted bookings not yet over, soonest first. */
  upcoming: BookingRecord[];
  /** The rest (over, declined, cancelled, lapsed), latest start first. */
  past: BookingRecord[];
  /** The audit trail, newest first. */
  audit: AuditEntry[];
  /** The search, lower-cased, when one was asked for. */
  search?: string;
}

/** Whether a booking is still a request the team can confirm or decline at `nowEpochMs`. */
function isWaiting(record: BookingRecord, nowEpochMs: number): boolean {
  return record.status === "pending" &&
    nowEpochMs < (record.holdUntilEpochMs ?? record.startEpochMs);
}

/**
 * The records under `prefix`, newest first: without a search the newest
 * {@linkcode DESK_SCAN_LIMIT}; with one, every record that `keep` keeps, however old.
 */
async function readNewest<T>(
  store: Store,
  prefix: readonly string[],
  keep?: (record: T) => boolean,
): Promise<T[]> {
  const values: T[] = [];
  const listed = store.list<T>(
    { prefix },
    keep ? { reverse: true } : { reverse: true, limit: DESK_SCAN_LIMIT },
  );
  for await (const { value } of listed) if (!keep || keep(value)) values.push(value);
  return values;
}

/**
 * Reads what the desk shows.
 *
 * @param store The store.
 * @param options `nowEpochMs`: the current time; `search`: a part of an e-mail address, matched
 * without regard to case, which narrows inquiries and bookings to those of matching addresses,
 * among every record kept (without it, among the newest {@linkcode DESK_SCAN_LIMIT}).
 * @returns The desk's lists, each at most {@linkcode DESK_LIST_LIMIT} long.
 * @throws Whatever the store throws.
 */
export async function readDesk(
  store: Store,
  options: { nowEpochMs: number; search?: string },
): Promise<DeskData> {
  const search = options.search?.trim().toLowerCase() || undefined;
  const matches = search ? (email: string) => email.toLowerCase().includes(search) : undefined;
  const [inquiries, found, audit] = await Promise.all([
    readNewest<InquiryRecord>(
      store,
      INQUIRY_PREFIX,
      matches && ((record) => matches(record.fields.Email)),
    ),
    readNewest<BookingRecord>(
      store,
      BOOKING_PREFIX,
      matches && ((record) => matches(record.email)),
    ),
    listAuditEntries(store, DESK_LIST_LIMIT),
  ]);
  const { nowEpochMs } = options;
  const bySoonest = (a: BookingRecord, b: BookingRecord) => a.startEpochMs - b.startEpochMs;
  const pending = found.filter((record) => isWaiting(record, nowEpochMs)).sort(bySoonest);
  const upcoming = found.filter((record) =>
    record.status === "accepted" && record.endEpochMs > nowEpochMs
  ).sort(bySoonest);
  const listed = new Set([...pending, ...upcoming]);
  const past = found.filter((record) => !listed.has(record))
    .sort((a, b) => b.startEpochMs - a.startEpochMs);
  return {
    inquiries: inquiries.slice(0, DESK_LIST_LIMIT),
    pending: pending.slice(0, DESK_LIST_LIMIT),
    upcoming: upcoming.slice(0, DESK_LIST_LIMIT),
    past: past.slice(0, DESK_LIST_LIMIT),
    audit,
    ...(search ? { search } : {}),
  };
}
