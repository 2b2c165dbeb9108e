/**
 * The audit trail of the team's actions: who did what, and when. An entry is written in the same
 * atomic commit as the action it records wherever the action commits to the store (a sign-in, a
 * booking's transition, an inquiry's state, a new secret of the calendar feed, the record that
 * closes an erasure), so there is no action without its entry. Entries
 * name the team member and the record acted on (a booking's or an inquiry's id), never a
 * visitor's address: the trail outlives an erasure.
 *
 * Keys: `["team_audit", id]`, ids sorting by time, kept {@linkcode AUDIT_RETENTION_DAYS} days.
 *
 * @module
 */
import { createId } from "../store/ids.ts";
import { RETENTION_DAYS } from "../contract/contract.ts";
import type { AtomicOperation, Store } from "../store/store.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";

/** Key prefix of audit entries: `["team_audit", id]`. */
export const AUDIT_PREFIX = ["team_audit"] as const;

/** How long an audit entry is kept, in days: as long as the records it speaks of. */
export const AUDIT_RETENTION_DAYS = RETENTION_DAYS;

/** The actions the trail records. */
export const AUDIT_ACTIONS = [
  "sign-in",
  "sign-in-passkey",
  "sign-out",
  "sign-out-everywhere",
  "confirm",
  "decline",
  "cancel",
  "inquiry-answered",
  "inquiry-reopened",
  "export",
  "erase",
  "feed-renewed",
  "passkey-added",
  "passkey-removed",
  "webhook-test",
  "webhook-enabled",
] as const;

/** One of the recorded actions. */
export type AuditAction = typeof AUDIT_ACTIONS[number];

/** What an entry says, before it has an id and a time. */
export interface AuditFact {
  /** The team member who acted (their address). */
  actor: string;
  /** What they did. */
  action: AuditAction;
  /** The record acted on: a booking's or an inquiry's id; none for a sign-in or a renewal. */
  subject?: string;
  /** Counts or words about the action (e.g. records erased by kind), never personal data. */
  details?: Readonly<Record<string, number | string>>;
}

/** A stored entry of the trail. */
export interface AuditEntry extends AuditFact {
  /** A ULID: sorts by time. */
  id: string;
  /** When, ISO 8601 UTC. */
  at: string;
}

/**
 * Adds an entry to an atomic operation, so that it commits with the action it records.
 *
 * @param operation The action's operation.
 * @param now When the action happens.
 * @param fact Who did what to which record.
 * @returns The entry as it will be stored.
 */
export function addAuditEntry(
  operation: AtomicOperation,
  now: Temporal.Instant,
  fact: AuditFact,
): AuditEntry {
  const entry: AuditEntry = { id: createId(now.epochMilliseconds), at: now.toString(), ...fact };
  operation.set([...AUDIT_PREFIX, entry.id], entry, {
    expireIn: AUDIT_RETENTION_DAYS * 86_400_000,
  });
  return entry;
}

/**
 * Records an entry on its own, for an action that commits nothing of its own to the store (an
 * export), or whose commit happens elsewhere.
 *
 * @param store The store.
 * @param now When the action happened.
 * @param fact Who did what.
 * @returns The stored entry.
 * @throws Whatever the store throws once its retries are spent.
 */
export async function recordAudit(
  store: Store,
  now: Temporal.Instant,
  fact: AuditFact,
): Promise<AuditEntry> {
  const operation = store.atomic();
  const entry = addAuditEntry(operation, now, fact);
  await retry(() => operation.commit(), STORE_CONTENTION_RETRY);
  return entry;
}

/**
 * The latest entries of the trail, newest first.
 *
 * @param store The store.
 * @param limit The most entries. @default {50}
 * @returns The entries.
 */
export async function listAuditEntries(store: Store, limit = 50): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  for await (
    const entry of store.list<AuditEntry>({ prefix: AUDIT_PREFIX }, { reverse: true, limit })
  ) {
    entries.push(entry.value);
  }
  return entries;
}
