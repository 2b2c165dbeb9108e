/**
 * A studio other than the sample, for the tests that check that no code serving a request names
 * the sample studio, its city or its zone: the fixture studio Ateliê Sol
 * (tests/fixtures/studios/sol/), with pages, facts and texts of its own and a schedule in São
 * Paulo's zone with its own meeting place. Internal to tests/.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { HolidayTable } from "../lib/availability/holidays.ts";
import type { ScheduleSettings } from "../lib/availability/schedule.ts";
import type { Corpus } from "../lib/site/corpus.ts";
import { SOL_STUDIO } from "./_fixture_studio.ts";

/** The zone of the other studio's schedule. */
export const OTHER_TIME_ZONE = "America/Sao_Paulo";

/** What code must never write for the other studio: the sample's name, city and zone. */
export const SAMPLE_WORDS: readonly RegExp[] = [/Traço/, /Lisbo[an]/, /Europe\/Lisbon/];

/** The other studio's schedule: São Paulo's zone, Brazil's holidays, its own meeting place. */
export const OTHER_SCHEDULE: ScheduleSettings = SOL_STUDIO.schedule;

/** The other studio's corpus: its own facts, pages and pictures. */
export const OTHER_CORPUS: Corpus = SOL_STUDIO.content;

/** The public holidays of the other studio's country. */
export const OTHER_HOLIDAYS: HolidayTable = SOL_STUDIO.holidays;

/**
 * Fails when a text names the sample studio, its city or its zone.
 *
 * @param text What the code wrote for the other studio.
 * @param what What the text is, for the failure's message.
 */
export function assertNoSampleWords(text: string, what: string): void {
  for (const word of SAMPLE_WORDS) assert.doesNotMatch(text, word, `${what} names the sample`);
}
