/**
 * Record ids: ULIDs (https://github.com/ulid/spec): 48 bits of time in milliseconds and 80 random
 * bits from Web Crypto, in 26 characters of Crockford's base 32, so that ids sort by the time
 * they were made.
 *
 * The encoding is written here rather than imported: the `ulid` package's entry for Deno and Node
 * imports `node:crypto`, which starts Deno's Node compatibility layer and so lengthens every cold
 * start. The tests check these ids against the `ulid` package's own `isValid` and
 * `decodeTime`.
 *
 * @module
 */

/** Crockford's base-32 alphabet, as the ULID specification uses it. */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** The largest time a ULID can hold: 2^48 − 1 milliseconds after the Unix epoch. */
const MAX_TIME = 2 ** 48 - 1;

/**
 * Creates a ULID for a record made at `epochMilliseconds`.
 *
 * @param epochMilliseconds The time the id encodes (its first 10 characters), e.g. `clock.now()`'s;
 * an integer from 0 to 2^48 − 1.
 * @returns The id, e.g. `01KAB3N6Z9Q8W4T2R7YV5XHMJD`.
 * @throws {RangeError} When the time is not such an integer.
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
  if (
    !Number.isInteger(epochMilliseconds) || epochMilliseconds < 0 || epochMilliseconds > MAX_TIME
  ) {
    throw new RangeError(`A ULID's time must be an integer from 0 to ${MAX_TIME}`);
  }
  let time = "";
  for (let rest = epochMilliseconds, index = 0; index < 10; index++) {
    time = ALPHABET[rest % 32] + time;
    rest = Math.floor(rest / 32);
  }
  // 16 random characters of 5 bits: 80 bits, one byte each (the top 3 bits unused).
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let random = "";
  for (const byte of bytes) random += ALPHABET[byte & 31];
  return time + random;
}
