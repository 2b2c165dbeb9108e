/**
 * A {@linkcode Store} that opens its backing store on first use, so that a synchronous factory
 * (such as `createHandler`) can hand out a store whose opening is asynchronous.
 *
 * @module
 */
import type {
  AtomicCheck,
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

/**
 * Wraps a store that `open` makes on first use. Until it is open every method waits for it;
 * `atomic()` collects its checks and writes and replays them on the opened store at `commit()`, so
 * a key or an `expireIn` that the store refuses fails at `commit()` (or at the first `next()` of
 * `list`), never earlier. Once it is open, every call goes straight to it. `close()` closes the store once it is open; afterwards every method rejects.
 *
 * @param open Opens the backing store; called at most once.
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
  let opening: Promise<Store> | undefined;
  // Once open, every call goes straight to the store: no deferred operation, no copy.
  let opened: Store | undefined;
  let closed = false;

  function use(): Promise<Store> {
    if (closed) return Promise.reject(new Error("The store is closed"));
    opening ??= open().then((store) => opened = store);
    return opening;
  }

  return {
    async get<T = unknown>(key: KvKey): Promise<KvEntryMaybe<T>> {
      if (opened && !closed) return await opened.get<T>(key);
      return await (await use()).get<T>(key);
    },
    async set(key: KvKey, value: unknown, options?: KvSetOptions): Promise<KvCommitResult> {
      if (opened && !closed) return await opened.set(key, value, options);
      return await (await use()).set(key, value, options);
    },
    async delete(key: KvKey): Promise<void> {
      if (opened && !closed) return await opened.delete(key);
      await (await use()).delete(key);
    },
    list<T = unknown>(
      selector: KvListSelector,
      options?: KvListOptions,
    ): AsyncIterable<KvEntry<T>> {
      if (opened && !closed) return opened.list<T>(selector, options);
      return {
        async *[Symbol.asyncIterator]() {
          yield* (await use()).list<T>(selector, options);
        },
      };
    },
    atomic(): AtomicOperation {
      if (opened && !closed) return opened.atomic();
      return new DeferredAtomicOperation(use);
    },
    close(): void {
      if (closed) throw new Error("The store is closed");
      closed = true;
      // A store still opening is closed as soon as it is open; one that failed to open has
      // nothing to close.
      opening?.then((store) => store.close(), () => {});
    },
  };
}

type Step =
  | { kind: "check"; checks: AtomicCheck[] }
  | { kind: "set"; key: KvKey; value: unknown; options?: KvSetOptions }
  | { kind: "delete"; key: KvKey };

/** Collects an atomic operation's steps until the store is open, then replays them. */
class DeferredAtomicOperation implements AtomicOperation {
  readonly #use: () => Promise<Store>;
  readonly #steps: Step[] = [];

  constructor(use: () => Promise<Store>) {
    this.#use = use;
  }

  check(...checks: AtomicCheck[]): this {
    this.#steps.push({ kind: "check", checks });
    return this;
  }

  set(key: KvKey, value: unknown, options?: KvSetOptions): this {
    // Stored as it is now, as the store would copy it now.
    this.#steps.push({ kind: "set", key, value: structuredClone(value), options });
    return this;
  }

  delete(key: KvKey): this {
    this.#steps.push({ kind: "delete", key });
    return this;
  }

  async commit(): Promise<KvCommitResult> {
    const operation = (await this.#use()).atomic();
    for (const step of this.#steps) {
      if (step.kind === "check") operation.check(...step.checks);
      else if (step.kind === "set") operation.set(step.key, step.value, step.options);
      else operation.delete(step.key);
    }
    return await operation.commit();
  }
}
