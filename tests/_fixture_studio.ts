/**
 * The suite's fixture studios, so that no test depends on `content/`, which an adopter rewrites:
 * `sample` (tests/fixtures/studios/sample/, the sample studio Traço in Lisbon frozen, with a
 * camera photo among its case studies' pictures) and `sol` (tests/fixtures/studios/sol/, Ateliê
 * Sol in São Paulo, another zone and country). The test runner builds each into
 * `tests/.build/<name>/` before the first test (`deno task build --content … --out …`); this
 * module imports those builds and makes the handler the tests call. Internal to tests/.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { createHandler, createServices, type HandlerOptions } from "../compose/create_handler.ts";
import type { HolidayTable } from "../lib/availability/holidays.ts";
import type { ScheduleSettings } from "../lib/availability/schedule.ts";
import type { Handler } from "../lib/http/create_pipeline.ts";
import type { Services } from "../lib/services.ts";
import type { Corpus } from "../lib/site/corpus.ts";
import type { PrebuiltSite } from "../lib/site/site_documents.ts";
import type { SiteIndex } from "../lib/site/site_index.ts";

/** The fixture studios, by their folder's name under tests/fixtures/studios/. */
export const FIXTURE_STUDIOS = ["sample", "sol"] as const;

/** A fixture studio's name. */
export type FixtureStudioName = typeof FIXTURE_STUDIOS[number];

/** A fixture studio, as its build in `tests/.build/<name>/` gives it. */
export interface FixtureStudio {
  /** The folder of its sources, as `content/` is the service's: absolute, ending in `/`. */
  contentFolder: string;
  /** The folder of its build: absolute, ending in `/`. */
  buildFolder: string;
  /** Its corpus (`corpus.generated.ts`), as `createHandler`'s `content` takes it. */
  content: Corpus;
  /** Its checked schedule (`schedule.generated.ts`). */
  schedule: ScheduleSettings;
  /** The public holidays of its schedule's country (`public_holidays.generated.ts`). */
  holidays: HolidayTable;
  /** The paths of its pages and their layouts (`site_index.generated.ts`). */
  siteIndex: SiteIndex;
  /** Imports the site its build prepared ahead (`site/site.generated.ts`). */
  loadPrebuilt(): Promise<PrebuiltSite>;
}

/**
 * The folder a fixture studio is built into.
 *
 * @param name The fixture studio.
 * @returns The absolute path, ending in `/`.
 */
export function toFixtureBuildFolder(name: FixtureStudioName): string {
  return fileURLToPath(new URL(`./.build/${name}/`, import.meta.url));
}

/**
 * The folder of a fixture studio's sources.
 *
 * @param name The fixture studio.
 * @returns The absolute path, ending in `/`.
 */
export function toFixtureContentFolder(name: FixtureStudioName): string {
  return fileURLToPath(new URL(`./fixtures/studios/${name}/`, import.meta.url));
}

/**
 * Imports a fixture studio's build.
 *
 * @param name The fixture studio.
 * @returns The studio.
 * @throws {Error} When the build is missing, saying how to make it.
 */
async function loadFixtureStudio(name: FixtureStudioName): Promise<FixtureStudio> {
  // Specifiers made at run time: type-checking the suite needs no build of the fixtures.
  const folder = `./.build/${name}/`;
  try {
    const [corpus, schedule, holidays, index]: [
      { CORPUS: Corpus },
      { DEFAULT_SCHEDULE: ScheduleSettings },
      { PUBLIC_HOLIDAYS: HolidayTable },
      { SITE_INDEX: SiteIndex },
    ] = await Promise.all([
      import(`${folder}corpus.generated.ts`),
      import(`${folder}schedule.generated.ts`),
      import(`${folder}public_holidays.generated.ts`),
      import(`${folder}site_index.generated.ts`),
    ]);
    return {
      contentFolder: toFixtureContentFolder(name),
      buildFolder: toFixtureBuildFolder(name),
      content: corpus.CORPUS,
      schedule: schedule.DEFAULT_SCHEDULE,
      holidays: holidays.PUBLIC_HOLIDAYS,
      siteIndex: index.SITE_INDEX,
      loadPrebuilt: async () => {
        const site: { PREBUILT_SITE: PrebuiltSite } = await import(
          `${folder}site/site.generated.ts`
        );
        return site.PREBUILT_SITE;
      },
    };
  } catch (error) {
    throw new Error(
      `The fixture studio "${name}" is not built in tests/.build/${name}/: run \`deno task test\` ` +
        `once, or \`deno task build --content tests/fixtures/studios/${name} --out ` +
        `tests/.build/${name}\``,
      { cause: error },
    );
  }
}

/** The sample studio frozen as a fixture: Traço, in Lisbon (Europe/Lisbon, holidays of PT). */
export const SAMPLE_STUDIO: FixtureStudio = await loadFixtureStudio("sample");

/** Another studio: Ateliê Sol, in São Paulo (America/Sao_Paulo, holidays of BR). */
export const SOL_STUDIO: FixtureStudio = await loadFixtureStudio("sol");

/** The sample studio's corpus (its pages, facts and pictures), for tests that read it. */
export const SAMPLE_CORPUS: Corpus = SAMPLE_STUDIO.content;

/** The sample studio's checked schedule. */
export const SAMPLE_SCHEDULE: ScheduleSettings = SAMPLE_STUDIO.schedule;

/** The public holidays of the sample studio's country (PT). */
export const SAMPLE_HOLIDAYS: HolidayTable = SAMPLE_STUDIO.holidays;

/**
 * The handler options that serve a fixture studio: its `content`, `schedule` and `holidays`.
 *
 * @param studio The fixture studio.
 * @returns The options, to spread into others.
 */
export function toStudioOptions(
  studio: FixtureStudio,
): Pick<HandlerOptions, "content" | "schedule" | "holidays"> {
  return { content: studio.content, schedule: studio.schedule, holidays: studio.holidays };
}

/**
 * `createHandler` serving the sample fixture studio unless `options` name another corpus,
 * schedule or holiday table: the handler of every in-process test.
 *
 * @param options The handler's other options.
 * @returns The handler.
 */
export function createSampleHandler(options: HandlerOptions = {}): Handler {
  return createHandler({ ...toStudioOptions(SAMPLE_STUDIO), ...options });
}

/**
 * `createServices` over the sample fixture studio, as {@linkcode createSampleHandler} resolves
 * them: for tests that act on the same store and settings as a handler.
 *
 * @param options The handler's other options.
 * @returns The frozen services.
 */
export function createSampleServices(options: HandlerOptions = {}): Services {
  return createServices({ ...toStudioOptions(SAMPLE_STUDIO), ...options });
}
