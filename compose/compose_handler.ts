/**
 * The handler composed from options already checked: options resolved once (with the studio's own content, schedule,
 * holidays and API reference where they say nothing), the one route table of `routes/`, and the
 * pipeline of `lib/http/` (match → count → answer → finish, one catch). The options' schedule and
 * corpus, when given, are already checked: `createHandler` (`create_handler.ts`, the library's
 * way in) checks them first, and the service's start (`create_app.ts`), which never passes them,
 * comes here directly and so loads no checker.
 *
 * @module
 */
import { DEFAULT_SCHEDULE } from "../build/schedule.generated.ts";
import { SITE_INDEX } from "../build/site_index.generated.ts";
import { PUBLIC_HOLIDAYS } from "../build/public_holidays.generated.ts";
import { createPipeline, type Handler } from "../lib/http/create_pipeline.ts";
import {
  type HandlerOptions,
  resolveServices,
  type ServiceDefaults,
} from "../lib/resolve_services.ts";
import type { Services } from "../lib/services.ts";
import { buildRouteTable } from "../routes/mod.ts";

/**
 * The studio's own content, schedule, holiday table and API reference renderer, for options that
 * leave them out.
 */
const STUDIO_DEFAULTS: ServiceDefaults = {
  // The studio's corpus is a large module: the site's first request imports it, not start-up,
  // while the route table is built from its small index.
  content: {
    index: SITE_INDEX,
    load: async () => (await import("../build/corpus.generated.ts")).CORPUS,
    loadPrebuilt: async () => (await import("../build/site/site.generated.ts")).PREBUILT_SITE,
  },
  schedule: DEFAULT_SCHEDULE,
  // A small table, so that listing slots in the studio's country loads no holiday library.
  holidays: PUBLIC_HOLIDAYS,
  // Megabytes of script, imported by the first request for an API reference page.
  loadApiReference: async () =>
    (await import("../build/api_reference_bundle.generated.ts")).API_REFERENCE,
};

/**
 * Resolves handler options into the services that the routes close over, with the studio's own
 * defaults: what {@linkcode composeHandler} builds its routes on, and what operator tools
 * (the CLI's export and erasure of personal data) act with on the same store, outbox and
 * settings. A `schedule` or `content` given must be checked already (`createHandler` does).
 *
 * @param options Injected services and settings.
 * @returns The frozen services.
 * @throws {TypeError | RangeError} When an option is invalid.
 */
export function composeServices(options: HandlerOptions = {}): Services {
  return resolveServices(options, STUDIO_DEFAULTS);
}

/**
 * Creates the studio's fetch handler from options whose `schedule` and `content`, if any, have
 * been checked (see `createHandler`, which checks them first).
 *
 * @param options Injected services and settings.
 * @returns The handler; it answers every request, errors included, and never rejects.
 * @throws {TypeError | RangeError} When an option is invalid (a bad base URL, quota or notice).
 */
export function composeHandler(options: HandlerOptions = {}): Handler {
  return composeService(options).handler;
}

/**
 * Creates the studio's fetch handler, as {@linkcode composeHandler}, with the services it closes
 * over: what the service's start (`create_app.ts`) acts with besides answering requests.
 *
 * @param options Injected services and settings, checked as for `composeHandler`.
 * @returns The handler and its services.
 * @throws {TypeError | RangeError} When an option is invalid.
 */
export function composeService(
  options: HandlerOptions = {},
): { handler: Handler; services: Services } {
  const services = composeServices(options);
  const { table, fallback } = buildRouteTable(services);
  return { handler: createPipeline({ ...services, table, fallback }), services };
}
