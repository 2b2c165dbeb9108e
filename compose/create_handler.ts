/**
 * The fetch handler of the studio's website and API v1, as a library gives it: the options are
 * checked (a schedule or corpus of your own included), then composed by `compose_handler.ts`.
 *
 * @module
 */
import type { Handler } from "../lib/http/create_pipeline.ts";
import type { HandlerOptions } from "../lib/resolve_services.ts";
import { readSchedule } from "../lib/availability/read_schedule.ts";
import { checkCorpus } from "../lib/site/check_corpus.ts";
import type { Services } from "../lib/services.ts";
import { composeHandler, composeServices } from "./compose_handler.ts";

export type {
  FallbackHandler,
  Handler,
  HandlerInfo,
  ResponsePromise,
} from "../lib/http/create_pipeline.ts";
export {
  CONSOLE_LOGGER,
  type HandlerOptions,
  type ServiceDefaults,
  SYSTEM_CLOCK,
} from "../lib/resolve_services.ts";
export type { HolidayTable } from "../lib/availability/holidays.ts";
export type { ApiReferenceScript } from "../lib/site/api_reference_script.ts";

/**
 * Creates the fetch handler of the studio's website and API v1.
 *
 * With no options it works on test-grade defaults: an in-memory store, mail kept in memory, the
 * system clock, a console logger, and the studio's own content and schedule (`content/`). The
 * service's start (`create_app.ts`, which the runtime entries run) pass the durable store and the real
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
  return composeHandler(checkOptions(options));
}

/**
 * Resolves handler options, checked as {@linkcode createHandler} checks them, into the services
 * its routes close over: for tools that act on the same store and settings as a handler.
 *
 * @param options Injected services and settings.
 * @returns The frozen services.
 * @throws {TypeError | RangeError} When an option is invalid.
 */
export function createServices(options: HandlerOptions = {}): Services {
  return composeServices(checkOptions(options));
}

/** The options with a schedule or corpus of your own checked (`readSchedule`, `checkCorpus`). */
function checkOptions(options: HandlerOptions): HandlerOptions {
  return {
    ...options,
    schedule: options.schedule && readSchedule(options.schedule),
    content: options.content && checkCorpus(options.content),
  };
}
