/**
 * Settings the service keeps in its store under `["settings", …]`, each created once and then
 * shared by every instance and every restart on the same store: the link-signing secret
 * (`lib/secret.ts`) and when a deprecation notice was first sent (`lib/versioning.ts`).
 *
 * @module
 */
import type { KvKey, Store } from "./store.ts";

/** Attempts before a store error at start reaches the caller (about 3 s of backoff in all). */
const ATTEMPTS = 12;

/**
 * Reads a setting kept in the store, or stores `create()` as it if it is absent, and returns it.
 * Two instances starting at once agree: the write is an atomic "create if absent", and the loser
 * reads the winner's value. A store that is briefly busy (a KV file locked by another process
 * starting at the same moment: "database is locked") is asked again with a growing pause, since
 * reading and a create-if-absent are safe to repeat.
 *
 * @param store The store.
 * @param key The setting's key, under `["settings"]`.
 * @param create Makes the value to keep when there is none yet.
 * @returns The kept value.
 * @throws Whatever the store throws when it is still unavailable after the retries (about 3 s).
 */
export async function readOrCreateSetting<T>(
  store: Store,
  key: KvKey,
  create: () => T,
): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      const existing = await store.get<T>(key);
      if (existing.value !== null) return existing.value;
      const value = create();
      const result = await store.atomic().check({ key, versionstamp: null }).set(key, value)
        .commit();
      if (result.ok) return value;
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}
