/**
 * A {@linkcode Store} that opens its backing store on first use, so that a synchronous factory
 * (such as `createHandler`) can hand out a store whose opening is asynchronous.
 *
 * @module
 */
import type {
  AtomicOperation,
  KvCommitResult,
  KvEntry,
  KvEntryMaybe,
  KvKey,
  KvListOptions,
  KvListSelector,
  KvSetOptions,
  Store,
} from "./store.ts";
import { recordOperation, replaySteps } from "./recorded_operation.ts";
import { loadOnce } from "../load_once.ts";

/**
 * Wraps a store that `open` makes on first use (and again on the next call, after a failure to
 * open). Until it is open every method waits for it;
 * `atomic()` collects its checks and writes and replays them on the opened store at `commit()`, so
 * a key or an `expireIn` that the store refuses fails at `commit()` (or at the first `next()` of
 * `list`), never earlier. Once it is open, every call goes straight to it. `close()` closes the
 * store, at once or as soon as it is open; afterwards every method rejects.
 *
 * @param open Opens the backing store; called once, and again after it failed.
 * @returns The store.
 * @throws {Error} From every method after `close()`: `"The store is closed"`; and whatever `open`
 * rejects with, from every method.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLazyStore } from "./lazy_store.ts";
 * import { createMemoryStore } from "./memory_store.ts";
 *
 * let opened = 0;
 * const store = createLazyStore(() => {
 *   opened++;
 *   return Promise.resolve(createMemoryStore());
 * });
 * assert.equal(opened, 0);
 * await store.set(["greeting"], "olá");
 * assert.equal((await store.get<string>(["greeting"])).value, "olá");
 * assert.equal(opened, 1);
 * store.close();
 * ```
 */
export function createLazyStore(open: () => Promise<Store>): Store {
  // The store once it is open and until it is closed: every call then goes straight to it.
  let opened: Store | undefined;
  let closed = false;
  const opening = loadOnce(async () => {
    const store = await open();
    if (closed) {
      // Closed while it opened: it is closed as soon as it is open.
      store.close();
      throw new Error("The store is closed");
    }
    opened = store;
    return store;
  });

  function use(): Promise<Store> {
    if (closed) return Promise.reject(new Error("The store is closed"));
    return opening();
  }

  return {
    async get<T = unknown>(key: KvKey): Promise<KvEntryMaybe<T>> {
      return await (opened ?? await use()).get<T>(key);
    },
    async set(key: KvKey, value: unknown, options?: KvSetOptions): Promise<KvCommitResult> {
      return await (opened ?? await use()).set(key, value, options);
    },
    async delete(key: KvKey): Promise<void> {
      await (opened ?? await use()).delete(key);
    },
    list<T = unknown>(
      selector: KvListSelector,
      options?: KvListOptions,
    ): AsyncIterable<KvEntry<T>> {
      if (opened) return opened.list<T>(selector, options);
      return {
        async *[Symbol.asyncIterator]() {
          yield* (await use()).list<T>(selector, options);
        },
      };
    },
    atomic(): AtomicOperation {
      if (opened) return opened.atomic();
      // Values are copied as they are set, as the store would copy them then.
      return recordOperation(
        async (steps) => await replaySteps((await use()).atomic(), steps).commit(),
        structuredClone,
      );
    },
    close(): void {
      if (closed) throw new Error("The store is closed");
      closed = true;
      // A store still opening is closed by `opening` once it is open; one that failed to open has
      // nothing to close.
      opened?.close();
      opened = undefined;
    },
  };
}
