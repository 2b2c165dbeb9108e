/**
 * The key that signs the service's links (confirm, decline, cancel): the operator's
 * `STUDIO_SECRET`, or one generated once and kept in the store so that links outlive restarts
 * and are shared by every instance on the same store.
 *
 * @module
 */
import type { Store } from "./store.ts";

/** Where the generated secret is kept. */
export const SECRET_KEY = ["settings", "secret"] as const;

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Attempts before a store error at start reaches the caller (about 3 s of backoff in all). */
const ATTEMPTS = 12;

/**
 * Returns the signing secret: `configured` when given, else the one kept in the store, else a new
 * random one (256 bits from Web Crypto) that is stored first. Two instances starting at once agree:
 * the write is an atomic "create if absent", and the loser reads the winner's secret. A store that
 * is briefly busy (a KV file locked by another process starting at the same moment: "database is
 * locked") is asked again with a growing pause, since reading and a create-if-absent are safe to
 * repeat.
 *
 * @param store The store.
 * @param configured The operator's secret, if any.
 * @returns The secret as text (64 hexadecimal characters when generated).
 * @throws Whatever the store throws when it is still unavailable after the retries.
 */
export async function readOrCreateSecret(store: Store, configured?: string): Promise<string> {
  if (configured) return configured;
  for (let attempt = 1;; attempt++) {
    try {
      const existing = await store.get<string>(SECRET_KEY);
      if (existing.value !== null) return existing.value;
      const secret = toHex(crypto.getRandomValues(new Uint8Array(32)));
      const result = await store.atomic().check({ key: SECRET_KEY, versionstamp: null })
        .set(SECRET_KEY, secret).commit();
      if (result.ok) return secret;
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}
