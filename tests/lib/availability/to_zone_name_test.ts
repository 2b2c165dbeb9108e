import { test } from "node:test";
import assert from "node:assert/strict";
import { toZoneName } from "../../../lib/availability/to_zone_name.ts";

const WINTER = Temporal.Instant.from("2026-12-02T09:30:00Z");
const SUMMER = Temporal.Instant.from("2027-07-02T09:30:00Z");

test("toZoneName() names a zone as its people do, in English and in Portuguese, the same in summer and winter", () => {
  const cases: Array<[zone: string, english: string, portuguese: string]> = [
    ["Europe/Lisbon", "Western European Time", "hora da Europa Ocidental"],
    ["Atlantic/Azores", "Azores Time", "hora dos Açores"],
    ["America/Sao_Paulo", "Brasilia Standard Time", "hora padrão de Brasília"],
  ];
  for (const [zone, english, portuguese] of cases) {
    for (const at of [WINTER, SUMMER]) {
      assert.equal(toZoneName(zone, { locale: "en-GB", at }), english, `${zone} at ${at}`);
      assert.equal(toZoneName(zone, { locale: "en", at }), english, `${zone} at ${at}`);
      assert.equal(toZoneName(zone, { locale: "pt-PT", at }), portuguese, `${zone} at ${at}`);
    }
  }
});

test("toZoneName() keeps an acronym as it is, in Portuguese too", () => {
  // ICU versions differ in the rest ("GMT" on Deno, "GMT+00:00" for pt-PT on Node 20).
  assert.match(toZoneName("UTC", { locale: "pt-PT", at: WINTER }), /^GMT/);
  assert.match(toZoneName("UTC", { locale: "en-GB", at: WINTER }), /^GMT/);
});

test("toZoneName() throws RangeError for a zone that is not IANA's", () => {
  assert.throws(() => toZoneName("Lisbon/Nowhere", { locale: "en", at: WINTER }), RangeError);
});
