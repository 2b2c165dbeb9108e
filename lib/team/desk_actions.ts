/**
 * The desk's actions that live in other modules: personal data on request (export and erase by
 * e-mail address) and the team's calendar feed (its secret URL, renewed from the desk). The desk
 * shows each section, and serves its form, only when its members are given; the desk writes the
 * audit entry of each call (`export`, `erase`, `feed-renewed`), so implementations need not.
 *
 * @module
 */

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
   * @param actor The team member asking.
   */
  erasePersonalData?(email: string, actor: string): Promise<ErasureSummary>;
  /**
   * Replaces the calendar feed's secret: the old URL stops working.
   *
   * @param actor The team member asking.
   * @returns The feed's new URL.
   */
  renewCalendarFeed?(actor: string): Promise<{ url: string }>;
  /** The feed's current URL, if it has one. */
  readCalendarFeedUrl?(): Promise<string | undefined>;
}
