/**
 * The fetch handler of the studio's website and API v1: options resolved once, the one route
 * table of `routes/`, and the pipeline of `lib/http/` (match → count → answer → finish, one
 * catch).
 *
 * @module
 */
import { DEFAULT_SCHEDULE } from "./build/schedule.generated.ts";
import { SITE_INDEX } from "./build/site_index.generated.ts";
import { PUBLIC_HOLIDAYS } from "./build/public_holidays.generated.ts";
import { createPipeline, type Handler } from "./lib/http/create_pipeline.ts";
import {
  type HandlerOptions,
  resolveServices,
  type ServiceDefaults,
} from "./lib/resolve_services.ts";
import type { Services } from "./lib/services.ts";
import { buildRouteTable } from "./routes/mod.ts";

export type {
  FallbackHandler,
  Handler,
  HandlerInfo,
  ResponsePromise,
} from "./lib/http/create_pipeline.ts";
export {
  CONSOLE_LOGGER,
  type HandlerOptions,
  type ServiceDefaults,
  SYSTEM_CLOCK,
} from "./lib/resolve_services.ts";
export type { HolidayTable } from "./lib/availability/holidays.ts";
export type { ApiReferenceScript } from "./lib/site/api_reference_script.ts";

/**
 * Creates the fetch handler of the studio's website and API v1.
 *
 * With no options it works on test-grade defaults: an in-memory store, mail kept in memory, the
 * system clock, a console logger, and the studio's own content and schedule (`content/`). The
 * composition roots (`app.ts` and the runtime entries) pass the durable store and the real
 * mailer.
 *
 * @param options Injected services and settings.
 * @returns The handler; it answers every request, errors included, and never rejects.
 * @throws {TypeError | RangeError} When an option is invalid (a bad base URL, quota, notice,
 * schedule or corpus).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHandler } from "./create_handler.ts";
 *
 * const handler = createHandler();
 * const response = await handler(new Request("http://localhost/api/v1/health"));
 * assert.equal(response.status, 200);
 * assert.equal((await response.json()).status, "ok");
 * ```
 */
export function createHandler(options: HandlerOptions = {}): Handler {
  const services = createServices(options);
  const { table, fallback } = buildRouteTable(services);
  return createPipeline({ ...services, table, fallback });
}

/**
 * The studio's own content, schedule, holiday table and API reference renderer, for options that
 * leave them out.
 */
const STUDIO_DEFAULTS: ServiceDefaults = {
  // The studio's corpus is a large module: the site's first request imports it, not start-up,
  // while the route table is built from its small index.
  content: {
    index: SITE_INDEX,
    load: async () => (await import("./build/corpus.generated.ts")).CORPUS,
    loadPrebuilt: async () => (await import("./build/site/site.generated.ts")).PREBUILT_SITE,
  },
  schedule: DEFAULT_SCHEDULE,
  // A small table, so that listing slots in the studio's country loads no holiday library.
  holidays: PUBLIC_HOLIDAYS,
  // Megabytes of script, imported by the first request for an API reference page.
  loadApiReference: async () =>
    (await import("./build/api_reference_bundle.generated.ts")).API_REFERENCE,
};

/**
 * Resolves handler options into the services that the routes close over, with the studio's own
 * defaults: what {@linkcode createHandler} builds its routes on, and what operator tools (the
 * CLI's export and erasure of personal data) act with on the same store, outbox and settings.
 *
 * @param options Injected services and settings, as {@linkcode createHandler} takes them.
 * @returns The frozen services.
 * @throws {TypeError | RangeError} When an option is invalid.
 */
export function createServices(options: HandlerOptions = {}): Services {
  return resolveServices(options, STUDIO_DEFAULTS);
}
