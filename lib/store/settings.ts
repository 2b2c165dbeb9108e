/**
 * Store work at start: opening a KV file that another process may hold locked for a moment, and the
 * settings the service keeps under `["settings", …]`, each created once and then shared by every
 * instance and every restart on the same store: the link-signing secret (`lib/store/secret.ts`) and
 * when a deprecation notice was first sent (`lib/http/versioning.ts`).
 *
 * @module
 */
import type { KvKey, Store } from "./store.ts";

/** Attempts before a store error at start reaches the caller (about 3 s of backoff in all). */
const ATTEMPTS = 12;

/**
 * Whether a store's error is SQLite's "database is locked" (or busy): what a local KV file
 * answers while another process opens or writes it at the same moment.
 */
export function isStoreLocked(error: unknown): boolean {
  return /database is (locked|busy)|SQLITE_BUSY/i.test(
    error instanceof Error ? error.message : String(error),
  );
}

/**
 * Runs store work of a start again, with a growing pause, while it fails: a KV file is briefly
 * locked ("database is locked") while another process starts on it at the same moment.
 *
 * @param operation Work that is safe to repeat, such as opening the store or a create-if-absent.
 * @param retryable Which failures to retry. @default {every failure}
 * @returns What `operation` resolves to.
 * @throws The last failure, once `retryable` refuses it or after 12 attempts (about 3 s).
 */
export async function retryAtStart<T>(
  operation: () => Promise<T>,
  retryable: (error: unknown) => boolean = () => true,
): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt >= ATTEMPTS || !retryable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/**
 * Reads a setting kept in the store, or stores `create()` as it if it is absent, and returns it.
 * Two instances starting at once agree: the write is an atomic "create if absent", and the loser
 * reads the winner's value. A store that is briefly busy (a KV file locked by another process
 * starting at the same moment: "database is locked") is asked again ({@linkcode retryAtStart}),
 * since reading and a create-if-absent are safe to repeat.
 *
 * @param store The store.
 * @param key The setting's key, under `["settings"]`.
 * @param create Makes the value to keep when there is none yet.
 * @returns The kept value.
 * @throws Whatever the store throws when it is still unavailable after the retries (about 3 s).
 */
export function readOrCreateSetting<T>(store: Store, key: KvKey, create: () => T): Promise<T> {
  return retryAtStart(async () => {
    for (;;) {
      const existing = await store.get<T>(key);
      if (existing.value !== null) return existing.value;
      const value = create();
      const result = await store.atomic().check({ key, versionstamp: null }).set(key, value)
        .commit();
      if (result.ok) return value;
    }
  });
}
