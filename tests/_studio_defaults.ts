/**
 * The studio's own service defaults, as `create_handler.ts` passes them, for tests that resolve
 * the services themselves (to read the route table). Internal to tests/.
 *
 * @module
 */
import type { ServiceDefaults } from "../lib/resolve_services.ts";
import { CORPUS } from "../build/corpus.generated.ts";
import { SITE_INDEX } from "../build/site_index.generated.ts";
import { DEFAULT_SCHEDULE } from "../build/schedule.generated.ts";
import { PUBLIC_HOLIDAYS } from "../build/public_holidays.generated.ts";

/** The studio's corpus, schedule, holiday table and API reference renderer. */
export const STUDIO_DEFAULTS: ServiceDefaults = {
  content: { index: SITE_INDEX, load: () => Promise.resolve(CORPUS) },
  schedule: DEFAULT_SCHEDULE,
  holidays: PUBLIC_HOLIDAYS,
  loadApiReference: async () =>
    (await import("../build/api_reference_bundle.generated.ts")).API_REFERENCE,
};
