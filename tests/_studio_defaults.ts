/**
 * The service defaults of the sample fixture studio (tests/_fixture_studio.ts), as
 * `compose_handler.ts` gives the studio's own build, for tests that resolve the services
 * themselves (to read the route table). Internal to tests/.
 *
 * @module
 */
import type { ServiceDefaults } from "../lib/resolve_services.ts";
import { SAMPLE_STUDIO } from "./_fixture_studio.ts";

/** The sample fixture's corpus, site prepared ahead, schedule and holidays; the API reference. */
export const STUDIO_DEFAULTS: ServiceDefaults = {
  content: {
    index: SAMPLE_STUDIO.siteIndex,
    load: () => Promise.resolve(SAMPLE_STUDIO.content),
    loadPrebuilt: SAMPLE_STUDIO.loadPrebuilt,
  },
  schedule: SAMPLE_STUDIO.schedule,
  holidays: SAMPLE_STUDIO.holidays,
  // The API reference's renderer is the service's, not a studio's: the service's build has it.
  loadApiReference: async () =>
    (await import("../build/api_reference_bundle.generated.ts")).API_REFERENCE,
};
