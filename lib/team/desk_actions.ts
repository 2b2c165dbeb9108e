/**
 * The desk's actions that live in other modules: personal data on request (export and erase by
 * e-mail address) and the team's calendar feed (its secret URL, renewed from the desk). The desk
 * shows each section, and serves its form, only when its members are given; the desk writes the
 * audit entry of each call (`export`, `erase`, `feed-renewed`), so implementations need not: an
 * action that commits to the store takes the desk's writes (`withCommit`) into its commit.
 *
 * @module
 */
import type { AtomicOperation } from "../store/store.ts";

/** One file of personal data, as the desk offers it for download. */
export interface PersonalDataExport {
  /** The download's file name, e.g. `personal-data-2026-11-21.json`. */
  filename: string;
  /** The file: JSON text of everything stored about the address. */
  json: string;
}

/** What an erasure removed: counts by kind of record, never the records themselves. */
export interface ErasureSummary {
  /** Records erased by kind, e.g. `{ inquiries: 2, bookings: 1, mail: 5 }`. */
  counts: Readonly<Record<string, number>>;
}

/** What the desk asks of an erasure. */
export interface ErasureRequest {
  /** The team member asking. */
  actor: string;
  /**
   * Erase even when the CANCEL invites of the address's upcoming bookings cannot be delivered
   * in time, discarding them. @default {false}
   */
  discardUndelivered?: boolean;
  /**
   * Adds the desk's writes (its audit entry, with the counts) to the commit of the erasure's
   * record. @default {none}
   */
  withCommit?(operation: AtomicOperation, summary: ErasureSummary): void;
}

/** What the desk asks of a renewal of the calendar feed's secret. */
export interface FeedRenewalRequest {
  /** The team member asking. */
  actor: string;
  /** Adds the desk's writes (its audit entry) to the renewal's commit. @default {none} */
  withCommit?(operation: AtomicOperation): void;
}

/** The actions the desk calls; each absent member hides its section. */
export interface TeamDeskActions {
  /**
   * Everything stored about an address, as one JSON file.
   *
   * @param email The address (trimmed, lower-cased, checked as an address).
   * @param actor The team member asking.
   */
  exportPersonalData?(email: string, actor: string): Promise<PersonalDataExport>;
  /**
   * Erases what is stored about an address (an upcoming booking cancelled first, with its CANCEL
   * sent), keeping a record that the erasure happened.
   *
   * @param email The address (trimmed, lower-cased, checked as an address).
   * @param request Who asks, whether to discard undelivered invites, what to commit with it.
   * @throws {ApiError} 400 for an address it refuses; 503 `no-backend` when the invites could
   * not be delivered in time. The desk shows their message and hint.
   */
  erasePersonalData?(email: string, request: ErasureRequest): Promise<ErasureSummary>;
  /**
   * Replaces the calendar feed's secret: the old URL stops working.
   *
   * @param request Who asks, and what to commit with the new secret.
   * @returns The feed's new URL.
   */
  renewCalendarFeed?(request: FeedRenewalRequest): Promise<{ url: string }>;
  /** The feed's current URL, if it has one. */
  readCalendarFeedUrl?(): Promise<string | undefined>;
}
