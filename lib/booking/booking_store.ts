/**
 * The store keys and defaults of bookings. How a booking holds its slot (`["slot", startEpochMs]`
 * and `["slots_version"]`) is availability's to read and lives in `lib/availability/slot_holds.ts`.
 *
 * @module
 */

/** Key prefix of bookings: `["booking", id]`. */
export const BOOKING_PREFIX = ["booking"] as const;

/**
 * Bookings one attendee address may receive per day by default. Every booking e-mails the
 * attendee text the booker wrote (the topic), so whoever books can make the studio write to any
 * address: per client, the booking quota bounds how often; per address, this bounds how much any
 * one mailbox receives however many clients book for it.
 */
export const DEFAULT_BOOKINGS_PER_ATTENDEE = 3;
