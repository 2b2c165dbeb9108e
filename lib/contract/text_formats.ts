/**
 * The text formats of the contract's fields (e-mail address, RFC 3339 date-time) and how their
 * length is counted: plain functions without a validation library, so that the configuration and
 * the version headers can check a value without loading one.
 *
 * @module
 */
/**
 * The WHATWG HTML "valid e-mail address" (the rule of `<input type="email">`): no spaces, no
 * control characters, one `@`, a dotted domain of letters, digits and hyphens.
 * Source: https://html.spec.whatwg.org/multipage/input.html#valid-e-mail-address
 */
const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** RFC 3339 `date-time`: a full date, a time and an offset (`Z` or `±hh:mm`). */
const DATE_TIME_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** Whether `value` is a valid e-mail address under the WHATWG rule. */
export function isEmailAddress(value: string): boolean {
  return EMAIL_PATTERN.test(value);
}

/** Whether `value` is an RFC 3339 date-time naming a real instant (no 31 February, no hour 25). */
export function isDateTime(value: string): boolean {
  const match = DATE_TIME_PATTERN.exec(value);
  if (!match) return false;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  // setUTCFullYear, unlike Date.UTC, takes years 0 to 99 as they are.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day && date.getUTCHours() === hour && date.getUTCMinutes() === minute;
}

/** Counts Unicode code points, as JSON Schema's `minLength`/`maxLength` do. */
export function countCodePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}
