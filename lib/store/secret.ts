/**
 * The key that signs the service's links (confirm, decline, cancel, reschedule): the operator's
 * `STUDIO_SECRET`, or one generated once and kept in the store so that links outlive restarts
 * and are shared by every instance on the same store.
 *
 * @module
 */
import type { Store } from "./store.ts";
import { readOrCreateSetting } from "./settings.ts";
import { toHex } from "./digest.ts";

/** Where the generated secret is kept. */
export const SECRET_KEY = ["settings", "secret"] as const;

/**
 * Returns the signing secret: `configured` when given, else the one kept in the store, else a new
 * random one (256 bits from Web Crypto) that is stored first ({@linkcode readOrCreateSetting}:
 * instances starting at once agree, and a briefly locked store is asked again).
 *
 * @param store The store.
 * @param configured The operator's secret, if any.
 * @returns The secret as text (64 hexadecimal characters when generated).
 * @throws Whatever the store throws when it is still unavailable after the retries.
 */
export async function readOrCreateSecret(store: Store, configured?: string): Promise<string> {
  if (configured) return configured;
  return await readOrCreateSetting(
    store,
    SECRET_KEY,
    () => toHex(crypto.getRandomValues(new Uint8Array(32))),
  );
}
