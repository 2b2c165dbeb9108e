/**
 * Record ids: ULIDs (time-ordered, 26 Crockford base-32 characters) from the `ulid` library, with
 * their 80 random bits drawn from Web Crypto in one call per id. Left to itself, `ulid` looks up
 * a generator and calls `getRandomValues` once per character, which was a tenth of a contact
 * inquiry's server time (issue 15).
 *
 * @module
 */
import { ulid } from "ulid";

/**
 * Creates a ULID for a record made at `epochMilliseconds`.
 *
 * @param epochMilliseconds The time the id encodes (its first 10 characters), e.g. `clock.now()`'s.
 * @returns The id, e.g. `01KAB3N6Z9Q8W4T2R7YV5XHMJD`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createId } from "./ids.ts";
 *
 * const first = createId(Date.UTC(2026, 10, 25));
 * assert.match(first, /^[0-9A-HJKMNP-TV-Z]{26}$/);
 * assert.ok(first < createId(Date.UTC(2026, 10, 26)), "ids sort by time");
 * ```
 */
export function createId(epochMilliseconds: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let next = 0;
  return ulid(epochMilliseconds, () => bytes[next++] / 256);
}
