/**
 * Store work at start: opening a KV file that another process may hold locked for a moment, and the
 * settings the service keeps under `["settings", …]`, each created once and then shared by every
 * instance and every restart on the same store: the link-signing secret (`lib/store/secret.ts`) and
 * when a deprecation notice was first sent (`lib/http/versioning.ts`).
 *
 * @module
 */
import type { KvKey, Store } from "./store.ts";
import { isStoreContention, retry, type RetryOptions } from "./retry.ts";

/**
 * How store work at start is asked again while a KV file is locked by another process starting at
 * the same moment: 12 attempts, the pauses growing from 50 ms by half each time up to 500 ms, half
 * of each random so that the processes spread out (about 1.8 to 3.5 s in all).
 */
export const START_RETRY: RetryOptions = {
  maxAttempts: 12,
  minTimeout: 50,
  maxTimeout: 500,
  multiplier: 1.5,
  jitter: 0.5,
  isRetriable: isStoreContention,
};

/**
 * Reads a setting kept in the store, or stores `create()` as it if it is absent, and returns it.
 * Two instances starting at once agree: the write is an atomic "create if absent", and the loser
 * reads the winner's value. A store that is briefly busy (a KV file locked by another process
 * starting at the same moment: "database is locked") is asked again ({@linkcode START_RETRY}),
 * since reading and a create-if-absent are safe to repeat.
 *
 * @param store The store.
 * @param key The setting's key, under `["settings"]`.
 * @param create Makes the value to keep when there is none yet.
 * @returns The kept value.
 * @throws Whatever the store throws at once when it is not contention, or when it is still locked
 * after the retries (about 3 s).
 */
export function readOrCreateSetting<T>(store: Store, key: KvKey, create: () => T): Promise<T> {
  return retry(async () => {
    for (;;) {
      const existing = await store.get<T>(key);
      if (existing.value !== null) return existing.value;
      const value = create();
      const result = await store.atomic().check({ key, versionstamp: null }).set(key, value)
        .commit();
      if (result.ok) return value;
    }
  }, START_RETRY);
}
