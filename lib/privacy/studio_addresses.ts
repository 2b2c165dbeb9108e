/**
 * The studio's own addresses, kept in the store by the service: the inbox, the From address and
 * the team's members of the running service's configuration. Export and erasure refuse them, since
 * they receive every visitor's notices; the operator's CLI reads them from the store, so that its
 * refusal does not depend on the environment it runs with (a CLI given only `STUDIO_KV_PATH`
 * would otherwise take the studio's inbox for a visitor's address).
 *
 * @module
 */
import { type MailAddresses, toBareAddress } from "../mail/mail.ts";
import type { TeamSettings } from "../team/team.ts";
import type { Store } from "../store/store.ts";

/** Where the service keeps its addresses, among its settings. */
export const STUDIO_ADDRESSES_KEY = ["settings", "studio-addresses"] as const;

/**
 * The studio's own addresses as a configuration states them: the inbox and the From address
 * (whose bare addresses are taken) and the team's members.
 */
export type StudioAddresses = {
  mail: Pick<MailAddresses, "from" | "inbox">;
  team: Pick<TeamSettings, "members">;
};

/** What the store keeps: the bare addresses, lower case, and when they were recorded. */
export interface StoredStudioAddresses {
  /** The bare addresses, lower case, sorted. */
  addresses: string[];
  /** When the service recorded them, ISO 8601 with an offset. */
  recordedAt: string;
}

/**
 * Lists a configuration's own addresses: bare, lower case, sorted, each once.
 *
 * @param studio The configuration's inbox, From address and members.
 * @returns The addresses.
 */
export function listStudioAddresses(studio: StudioAddresses): string[] {
  const addresses = [
    toBareAddress(studio.mail.inbox),
    toBareAddress(studio.mail.from),
    ...studio.team.members,
  ].map((address) => address.trim().toLowerCase());
  return [...new Set(addresses)].sort();
}

/**
 * Records the running service's own addresses in the store, when they changed: the service does
 * it once after it starts. The last service started on a store states them.
 *
 * @param store The service's store.
 * @param studio Its configuration's addresses.
 * @param now The instant of the record.
 * @returns Whether the store was written (`false` when it held the same addresses).
 * @throws Whatever the store throws.
 */
export async function recordStudioAddresses(
  store: Store,
  studio: StudioAddresses,
  now: Temporal.Instant,
): Promise<boolean> {
  const addresses = listStudioAddresses(studio);
  const kept = await store.get<StoredStudioAddresses>(STUDIO_ADDRESSES_KEY);
  if (kept.value && kept.value.addresses.join("\n") === addresses.join("\n")) return false;
  const record: StoredStudioAddresses = { addresses, recordedAt: now.toString() };
  await store.set(STUDIO_ADDRESSES_KEY, record);
  return true;
}

/**
 * The studio's own addresses for an export or an erasure: the configuration's and those the
 * service recorded in the store.
 *
 * @param store The store.
 * @param studio The configuration's addresses (the CLI's own environment).
 * @returns The addresses, bare and lower case.
 * @throws Whatever the store throws.
 */
export async function readStudioAddresses(
  store: Store,
  studio: StudioAddresses,
): Promise<Set<string>> {
  const kept = await store.get<StoredStudioAddresses>(STUDIO_ADDRESSES_KEY);
  return new Set([...listStudioAddresses(studio), ...(kept.value?.addresses ?? [])]);
}
