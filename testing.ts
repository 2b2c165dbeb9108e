/**
 * Test doubles for library users and the service's own tests (`@studio/website/testing`): an
 * in-memory store, an in-memory mailer and a clock that stands still until moved. Pass them to
 * `createHandler` to test a handler in-process without a KV file, an SMTP server or waiting.
 *
 * @example A handler with test doubles
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHandler } from "./mod.ts";
 * import { createFixedClock, createMemoryMailer, createMemoryStore } from "./testing.ts";
 *
 * const store = createMemoryStore();
 * const handler = createHandler({
 *   baseUrl: "https://studio.example",
 *   store,
 *   mailer: createMemoryMailer(),
 *   clock: createFixedClock("2026-11-21T10:00:00Z"),
 * });
 * const response = await handler(new Request("https://studio.example/api/v1/health"));
 * assert.equal(response.status, 200);
 * await response.body?.cancel();
 * store.close();
 * ```
 *
 * @module
 */
import type { Clock } from "./lib/ports.ts";

export { createMemoryStore } from "./lib/store/memory_store.ts";
export { createMemoryMailer, type MemoryMailer } from "./lib/mail/memory_mailer.ts";

/** A {@linkcode Clock} that stands still until moved. */
export interface FixedClock extends Clock {
  /**
   * Moves the clock forward (or back, with negative numbers).
   *
   * @param duration How far, in hours, minutes, seconds and milliseconds.
   */
  advance(
    duration: { hours?: number; minutes?: number; seconds?: number; milliseconds?: number },
  ): void;
  /**
   * Sets the clock to an instant.
   *
   * @param instant An ISO 8601 instant with an offset, e.g. `2026-11-21T10:00:00Z`, or an instant.
   */
  set(instant: string | Temporal.Instant): void;
}

/**
 * Creates a clock standing at `instant`: `now()` answers the same instant until `advance` or
 * `set` moves it.
 *
 * @param instant Where the clock starts: an ISO 8601 instant with an offset, or an instant.
 * @returns The clock.
 * @throws {RangeError} When `instant` (or a later `set`) is not an instant with an offset.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createFixedClock } from "./testing.ts";
 *
 * const clock = createFixedClock("2026-11-21T10:00:00Z");
 * assert.equal(clock.now().toString(), "2026-11-21T10:00:00Z");
 * clock.advance({ minutes: 90 });
 * assert.equal(clock.now().toString(), "2026-11-21T11:30:00Z");
 * clock.set("2027-01-01T00:00:00+01:00");
 * assert.equal(clock.now().toString(), "2026-12-31T23:00:00Z");
 * ```
 */
export function createFixedClock(instant: string | Temporal.Instant): FixedClock {
  let current = Temporal.Instant.from(instant);
  return {
    now: () => current,
    advance(duration) {
      current = current.add(duration);
    },
    set(next) {
      current = Temporal.Instant.from(next);
    },
  };
}
