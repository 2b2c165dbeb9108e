/**
 * The in-memory store: `@deno/kv`'s in-memory Deno KV, pure JavaScript that runs the same on
 * Deno, Node and Bun, behind the {@linkcode Store} port. It is `createHandler`'s default store
 * (test grade: the data is lost on exit) and the store of the tests.
 *
 * @module
 */
import { createLazyStore } from "./lazy_store.ts";
import { loadOnce } from "../load_once.ts";
import type { AtomicCheck, AtomicOperation, KvKey, Store } from "./store.ts";

/**
 * Creates an empty in-memory store with Deno KV's semantics (keys, ordering, versionstamps,
 * atomic checks), opened on first use ({@linkcode createLazyStore}). Each call makes a store of
 * its own. Values are copied with `structuredClone`, so no V8 serialiser is needed on any
 * runtime.
 *
 * Keys written with `expireIn` are kept until the store is closed, which Deno KV's best-effort
 * expiry allows ("deleted at some point after"): `@deno/kv` expires in-memory keys with a timer,
 * which keeps a Node process from exiting until the key expires, and spins every millisecond for
 * an expiry beyond 2³¹ − 1 ms (24.8 days; the service keeps records for 90).
 *
 * @returns The store.
 * @throws {TypeError} From its methods, with `@deno/kv`'s messages, for a key or an option that
 * Deno KV refuses.
 *
 * @example Check-and-set
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoryStore } from "./memory_store.ts";
 *
 * const store = createMemoryStore();
 * const first = await store.atomic()
 *   .check({ key: ["slot", "2025-06-02T10:00"], versionstamp: null })
 *   .set(["slot", "2025-06-02T10:00"], { inquiry: "01J" })
 *   .commit();
 * assert.equal(first.ok, true);
 *
 * const second = await store.atomic()
 *   .check({ key: ["slot", "2025-06-02T10:00"], versionstamp: null })
 *   .set(["slot", "2025-06-02T10:00"], { inquiry: "01K" })
 *   .commit();
 * assert.deepEqual(second, { ok: false });
 * store.close();
 * ```
 */
export function createMemoryStore(): Store {
  // Loaded when first used: a handler given its own store never loads @deno/kv.
  const loadKv = loadOnce(() => import("@deno/kv"));
  return createLazyStore(async () => {
    const { makeInMemoryService } = await loadKv();
    const kv = await makeInMemoryService().openKv();
    // @deno/kv types an entry's value as `T | null` where the port narrows it by `versionstamp`;
    // the objects are the same at run time.
    return withoutExpiry(kv as unknown as Store);
  });
}

/** The store, with `expireIn` left out of every write (see {@linkcode createMemoryStore}). */
function withoutExpiry(kv: Store): Store {
  return {
    get: (key) => kv.get(key),
    set: (key, value) => kv.set(key, value),
    delete: (key) => kv.delete(key),
    list: (selector, options) => kv.list(selector, options),
    atomic(): AtomicOperation {
      const operation = kv.atomic();
      return {
        check(...checks: AtomicCheck[]) {
          operation.check(...checks);
          return this;
        },
        set(key: KvKey, value: unknown) {
          operation.set(key, value);
          return this;
        },
        delete(key: KvKey) {
          operation.delete(key);
          return this;
        },
        commit: () => operation.commit(),
      };
    },
    close: () => kv.close(),
  };
}
