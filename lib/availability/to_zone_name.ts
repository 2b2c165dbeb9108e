/**
 * The name of a time zone as the people who live in it say it, in a language: how the booking
 * e-mails, pages and MCP tools say which time the studio's hours are written in, for any IANA
 * zone a studio's schedule names.
 *
 * @module
 */

/** Options of {@linkcode toZoneName}. */
export interface ZoneNameOptions {
  /** The language of the name, a BCP 47 tag, e.g. `pt-PT` or `en-GB`. */
  locale: string;
  /**
   * The instant the name is for: a zone's name follows the offsets it has kept over the years
   * (a place may change zones), so it is the name at the time being described.
   */
  at: Temporal.Instant;
}

/**
 * Names a time zone for people: its generic long name in CLDR (`timeZoneName: "longGeneric"`),
 * which does not change with summer time, e.g. "Western European Time" for `Europe/Lisbon` in
 * English. The name is written to stand inside a sentence such as "09:30 (…)": CLDR's Portuguese
 * names begin with a capital ("Hora da Europa Ocidental"), as at the start of a line, so in
 * Portuguese a leading capital that starts a word in lower case is lowered ("hora da Europa
 * Ocidental"); an acronym ("GMT") and the other languages' names are kept as CLDR writes them.
 *
 * @param timeZone An IANA time zone, e.g. `America/Sao_Paulo`.
 * @param options The language of the name and the instant it is for.
 * @returns The zone's name, e.g. "Brasilia Standard Time" (`en-GB`) or "hora padrão de Brasília"
 *   (`pt-PT`) for `America/Sao_Paulo`; the zone's id when the runtime has no name for it.
 * @throws {RangeError} When the zone or the locale is not valid.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toZoneName } from "./to_zone_name.ts";
 *
 * const at = Temporal.Instant.from("2026-12-02T09:30:00Z");
 * assert.equal(toZoneName("Europe/Lisbon", { locale: "en-GB", at }), "Western European Time");
 * assert.equal(toZoneName("Europe/Lisbon", { locale: "pt-PT", at }), "hora da Europa Ocidental");
 * ```
 */
export function toZoneName(timeZone: string, options: ZoneNameOptions): string {
  const { locale, at } = options;
  const name = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: "longGeneric" })
    .formatToParts(new Date(at.epochMilliseconds))
    .find((part) => part.type === "timeZoneName")?.value ?? timeZone;
  if (new Intl.Locale(locale).language !== "pt" || !/^\p{Lu}\p{Ll}/u.test(name)) return name;
  return name.charAt(0).toLocaleLowerCase(locale) + name.slice(1);
}
