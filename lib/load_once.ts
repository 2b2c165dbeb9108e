/**
 * Loading on first use, for a short start-up: a dependency that only some requests need (a library
 * of Node's compatibility layer, a CommonJS package, the Markdown renderer) is imported by the
 * first request that needs it, not while the service starts. On Deno the first `node:` module or
 * CommonJS package is a noticeable part of start-up on its own, which every cold isolate would
 * pay.
 *
 * @module
 */

/**
 * Wraps a loader so that it runs once: every call returns the same promise, and a failed load is
 * tried again on the next call.
 *
 * @param load Loads the value, e.g. `() => import("node:zlib")`.
 * @returns A function that resolves to the loaded value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadOnce } from "./load_once.ts";
 *
 * let loads = 0;
 * const loadAnswer = loadOnce(() => Promise.resolve(++loads * 42));
 * assert.equal(await loadAnswer(), 42);
 * assert.equal(await loadAnswer(), 42);
 * assert.equal(loads, 1);
 * ```
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
}

/**
 * Wraps a synchronous builder so that it runs on the first call only: a document prepared for a
 * route (its JSON, its entity tag) is built by the first request for it, not at start-up.
 *
 * @param make Builds the value.
 * @returns A function that returns the value, built once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { once } from "./load_once.ts";
 *
 * let builds = 0;
 * const document = once(() => ({ build: ++builds }));
 * assert.equal(document(), document());
 * assert.equal(builds, 1);
 * ```
 */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
