/**
 * A studio other than the sample, for the tests that check that no code serving a request names
 * the sample studio, its city or its zone: its own facts, taglines, summaries and booking note
 * over the sample's pages, and a schedule in São Paulo's zone with its own meeting place.
 * Internal to tests/.
 *
 * @module
 */
import assert from "node:assert/strict";
import { CORPUS } from "../build/corpus.generated.ts";
import { DEFAULT_SCHEDULE } from "../build/schedule.generated.ts";
import type { ScheduleSettings } from "../lib/availability/schedule.ts";
import type { Corpus } from "../lib/site/corpus.ts";

/** The zone of the other studio's schedule. */
export const OTHER_TIME_ZONE = "America/Sao_Paulo";

/** What code must never write for the other studio: the sample's name, city and zone. */
export const SAMPLE_WORDS: readonly RegExp[] = [/Traço/, /Lisbo[an]/, /Europe\/Lisbon/];

/** The sample's schedule, but in São Paulo's zone and with the other studio's meeting place. */
export const OTHER_SCHEDULE: ScheduleSettings = {
  ...DEFAULT_SCHEDULE,
  timeZone: OTHER_TIME_ZONE,
  meetingPlace: {
    pt: "Videochamada: https://meet.sol.example/conversa",
    en: "Video call: https://meet.sol.example/conversa",
  },
};

/** The sample's corpus with the other studio's facts and the texts that name a place. */
export const OTHER_CORPUS: Corpus = {
  ...CORPUS,
  name: "Ateliê Sol",
  email: "ola@sol.example",
  address: "Rua Augusta 10, 01305-000 São Paulo",
  languages: {
    pt: {
      ...CORPUS.languages.pt,
      tagline: "Estúdio de design em São Paulo",
      summary: "O Ateliê Sol é um estúdio de design em São Paulo.",
      booking: { ...CORPUS.languages.pt.booking, timeZone: "Horas de São Paulo." },
    },
    en: {
      ...CORPUS.languages.en,
      tagline: "Design studio in São Paulo",
      summary: "Ateliê Sol is a design studio in São Paulo.",
      booking: { ...CORPUS.languages.en.booking, timeZone: "São Paulo time." },
    },
  },
};

/**
 * Fails when a text names the sample studio, its city or its zone.
 *
 * @param text What the code wrote for the other studio.
 * @param what What the text is, for the failure's message.
 */
export function assertNoSampleWords(text: string, what: string): void {
  for (const word of SAMPLE_WORDS) assert.doesNotMatch(text, word, `${what} names the sample`);
}
