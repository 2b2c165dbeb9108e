/**
 * The team's passkeys as stored, apart from the WebAuthn library (`passkeys.ts`), so that the
 * desk lists them without loading it.
 *
 * @module
 */
import type { Store } from "../store/store.ts";

/** Key prefix of passkeys: `["team_passkey", credential id]`. */
export const PASSKEY_PREFIX = ["team_passkey"] as const;

/**
 * The longest credential id accepted, in base64url characters: that of 1,024 bytes, above
 * WebAuthn's 1,023, and well within a store key's 2 KiB.
 */
export const MAX_CREDENTIAL_ID_CHARACTERS = 1366;

/**
 * Whether a text can be a credential id: base64url (no padding) of at most
 * {@linkcode MAX_CREDENTIAL_ID_CHARACTERS} characters. Anything else is refused before it reaches
 * the store, whose keys it would not fit.
 *
 * @param text The id as posted.
 * @returns Whether it has a credential id's shape.
 */
export function isCredentialId(text: string): boolean {
  return text.length <= MAX_CREDENTIAL_ID_CHARACTERS && /^[A-Za-z0-9_-]+$/.test(text);
}

/** A member's passkey as stored. */
export interface PasskeyRecord {
  /** The credential's id, base64url. */
  id: string;
  /** The member it signs in. */
  email: string;
  /** The credential's public key (COSE), base64url. */
  publicKey: string;
  /** The authenticator's signature counter at the last use (0 for authenticators without one). */
  counter: number;
  /** How the browser can reach the authenticator (`internal`, `usb`, `hybrid` …). */
  transports?: string[];
  /** Whether the passkey is synced between devices (`multiDevice`) or bound to one. */
  deviceType: "singleDevice" | "multiDevice";
  /** When it was registered, ISO 8601 UTC. */
  createdAt: string;
  /** When it last signed in, ISO 8601 UTC. */
  lastUsedAt?: string;
}

/**
 * The passkeys of a member, oldest first.
 *
 * @param store The store.
 * @param email The member's address.
 * @throws Whatever the store throws.
 */
export async function listPasskeys(store: Store, email: string): Promise<PasskeyRecord[]> {
  const found: PasskeyRecord[] = [];
  for await (const entry of store.list<PasskeyRecord>({ prefix: PASSKEY_PREFIX })) {
    if (entry.value.email === email) found.push(entry.value);
  }
  return found.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
