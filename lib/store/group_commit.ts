/**
 * Group commit: atomic operations on disjoint keys that are committed while the store is busy
 * with an earlier commit are joined into one commit of the store. A commit's own CPU cost (a
 * transaction, a write to the file and its sync, two thread hand-offs on a local Deno KV file)
 * is then paid once for the group instead of once per operation, and nothing
 * waits that would not have waited anyway: an operation committed while the store is idle is
 * committed at once, alone.
 *
 * @module
 */
import type { AtomicOperation, KvCommitResult, KvKey, Store } from "./store.ts";
import { type RecordedStep, recordOperation, replaySteps } from "./recorded_operation.ts";

/** Commits atomic operations together; see {@linkcode createGroupCommit}. */
export interface GroupCommit {
  /**
   * Starts an atomic operation whose `commit()` may be joined with others'. Its checks and
   * writes are recorded, so `commit()` may be called again (e.g. by `retry`).
   */
  atomic(): AtomicOperation;
}

/** Options of {@linkcode createGroupCommit}. */
export interface GroupCommitOptions {
  /**
   * The most operations in one commit of the store. Deno KV takes at most 100 checks, 1000
   * writes and 800 KiB of values in one commit; a group it refuses is committed one operation at
   * a time, so the bound only keeps that rare. @default {16}
   */
  maxOperations?: number;
}

interface Pending {
  steps: readonly RecordedStep[];
  /** Every key the operation checks or writes, as text (see {@linkcode toKeyText}). */
  keys: readonly string[];
  resolve(result: KvCommitResult): void;
  reject(error: unknown): void;
}

/**
 * A key as text, equal for equal keys. Different keys may share a text (`-0` and `0`), which
 * only keeps two operations from one group.
 */
function toKeyText(key: KvKey): string {
  let text = "";
  for (const part of key) {
    if (typeof part === "string") text += `s${JSON.stringify(part)}`;
    else if (typeof part === "number") text += `n${part}`;
    else if (typeof part === "bigint") text += `b${part}`;
    else if (typeof part === "boolean") text += `t${part}`;
    else if (part instanceof Uint8Array) text += `u${part.join(".")}`;
    else text += `?${String(part)}`;
    text += ",";
  }
  return text;
}

/**
 * Creates a group commit over a store. While a commit of the store is under way, operations
 * committed through the group commit queue; when it ends, the queued ones are committed as one
 * atomic operation of the store (up to `maxOperations`; an operation sharing a key with one
 * already in the group waits for the next).
 *
 * Each operation keeps its own guarantees: it is written whole or not at all, and only if its
 * checks hold. A group of operations on disjoint keys holds exactly when each of its operations
 * holds, so a group is all-or-nothing; when the store refuses a group (a check failed, or it is
 * too large), its operations are committed one by one, each with its own outcome. A commit
 * resolves only once the store has committed the operation, as with the store itself.
 *
 * @param store The store to commit to.
 * @param options The largest group.
 * @returns The group commit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createGroupCommit } from "./group_commit.ts";
 * import { createMemoryStore } from "./memory_store.ts";
 *
 * const store = createMemoryStore();
 * const group = createGroupCommit(store);
 * const results = await Promise.all(["a", "b", "c"].map((id) =>
 *   group.atomic().check({ key: ["inquiry", id], versionstamp: null })
 *     .set(["inquiry", id], { id }).commit()
 * ));
 * assert.deepEqual(results.map((result) => result.ok), [true, true, true]);
 * assert.deepEqual((await store.get(["inquiry", "b"])).value, { id: "b" });
 * store.close();
 * ```
 */
export function createGroupCommit(store: Store, options: GroupCommitOptions = {}): GroupCommit {
  const maxOperations = options.maxOperations ?? 16;
  let queue: Pending[] = [];
  let busy = false;

  async function commitAlone(pending: Pending): Promise<void> {
    try {
      pending.resolve(await replaySteps(store.atomic(), pending.steps).commit());
    } catch (error) {
      pending.reject(error);
    }
  }

  /** Takes the next group off the queue: in order, skipping operations whose keys collide. */
  function takeGroup(): Pending[] {
    const group: Pending[] = [];
    const rest: Pending[] = [];
    const taken = new Set<string>();
    for (const pending of queue) {
      if (
        group.length >= maxOperations || pending.keys.some((key) => taken.has(key))
      ) {
        rest.push(pending);
        continue;
      }
      for (const key of pending.keys) taken.add(key);
      group.push(pending);
    }
    queue = rest;
    return group;
  }

  async function commitGroup(group: Pending[]): Promise<void> {
    if (group.length === 1) return await commitAlone(group[0]);
    let result: KvCommitResult | undefined;
    try {
      const operation = store.atomic();
      for (const pending of group) replaySteps(operation, pending.steps);
      result = await operation.commit();
    } catch {
      // Refused whole (too large, or the store failed): each operation on its own, so that
      // each meets its own outcome.
    }
    if (result?.ok) {
      for (const pending of group) pending.resolve(result);
      return;
    }
    // A check failed somewhere: find out which, one operation at a time.
    for (const pending of group) await commitAlone(pending);
  }

  async function drain(): Promise<void> {
    busy = true;
    try {
      while (queue.length) await commitGroup(takeGroup());
    } finally {
      busy = false;
    }
  }

  function enqueue(steps: readonly RecordedStep[]): Promise<KvCommitResult> {
    const keys = steps.map((step) => toKeyText(step.kind === "check" ? step.check.key : step.key));
    return new Promise((resolve, reject) => {
      queue.push({ steps, keys, resolve, reject });
      if (!busy) void drain();
    });
  }

  return { atomic: () => recordOperation(enqueue) };
}
