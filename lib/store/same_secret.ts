/**
 * Comparing a secret the service keeps with one a request carries, in time that does not depend
 * on where they first differ (a form token, the calendar feed's key).
 *
 * @module
 */

/**
 * Whether `candidate` equals `kept`, compared in constant time for a given length: every
 * character is compared, so the time taken tells nothing of how much of a guess was right. A
 * candidate of another length is refused at once (the length of a secret is no secret here: each
 * kind has a fixed one).
 *
 * @param kept The secret the service keeps.
 * @param candidate The text a request carries.
 * @returns Whether they are equal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSameSecret } from "./same_secret.ts";
 *
 * assert.ok(isSameSecret("s3cret", "s3cret"));
 * assert.ok(!isSameSecret("s3cret", "s3creT"));
 * assert.ok(!isSameSecret("s3cret", "s3cre"));
 * ```
 */
export function isSameSecret(kept: string, candidate: string): boolean {
  if (candidate.length !== kept.length) return false;
  let difference = 0;
  for (let index = 0; index < kept.length; index++) {
    difference |= kept.charCodeAt(index) ^ candidate.charCodeAt(index);
  }
  return difference === 0;
}
