/**
 * The storage port of the service: the subset of the Deno KV API that the service uses.
 *
 * `Deno.Kv` (a local SQLite file, Deno Deploy's managed KV or a KV Connect URL) satisfies this
 * interface as it is, and so does the `@deno/kv` package on Node and Bun, whose in-memory KV is the
 * default store and the store of tests (`createMemoryStore` in `memory_store.ts`). Keys, ordering, versionstamps and atomic checks follow
 * Deno KV's semantics (https://docs.deno.com/deploy/kv/manual/).
 *
 * @module
 */

/** One part of a key. Parts order by type first — bytes, strings, bigints, numbers, booleans — then by value; `symbol` appears only for type compatibility with `Deno.KvKeyPart` and is rejected. */
export type KvKeyPart = Uint8Array | string | number | bigint | boolean | symbol;

/** A key: an ordered list of parts, for example `["inquiry", "01J…"]`. */
export type KvKey = readonly KvKeyPart[];

/** A stored entry: key, value and the versionstamp of the commit that wrote it. */
export interface KvEntry<T> {
  /** The entry's key. */
  key: KvKey;
  /** The value, as the commit stored it (structured-clone semantics, as in Deno KV). */
  value: T;
  /** Opaque, monotonically increasing identifier of the commit that wrote the entry. */
  versionstamp: string;
}

/** The result of a read: an entry, or `value: null` and `versionstamp: null` where no key exists. */
export type KvEntryMaybe<T> = KvEntry<T> | {
  key: KvKey;
  value: null;
  versionstamp: null;
};

/** The condition of an atomic check: the key's current versionstamp, `null` for "absent". */
export interface AtomicCheck {
  /** The key to check. */
  key: KvKey;
  /** The versionstamp the key must still have, or `null` when it must not exist. */
  versionstamp: string | null;
}

/** The outcome of a commit: `ok: false` when a check failed and nothing was written. */
export type KvCommitResult = { ok: true; versionstamp: string } | { ok: false };

/** Selects a range of keys for {@linkcode Store.list}. */
export type KvListSelector =
  | { prefix: KvKey }
  | { prefix: KvKey; start: KvKey }
  | { prefix: KvKey; end: KvKey }
  | { start: KvKey; end: KvKey };

/** Options of {@linkcode Store.list}. */
export interface KvListOptions {
  /** The most entries to return. */
  limit?: number;
  /** Newest (largest key) first. @default {false} */
  reverse?: boolean;
}

/** Options of a write. */
export interface KvSetOptions {
  /** Milliseconds after which the key may be deleted (best effort, as in Deno KV). */
  expireIn?: number;
}

/** A set of checks and writes that commit together or not at all. */
export interface AtomicOperation {
  /** Adds checks; the commit fails with `ok: false` when any key's versionstamp differs. */
  check(...checks: AtomicCheck[]): this;
  /** Writes a value. */
  set(key: KvKey, value: unknown, options?: KvSetOptions): this;
  /** Deletes a key. */
  delete(key: KvKey): this;
  /** Applies every check and write atomically. */
  commit(): Promise<KvCommitResult>;
}

/**
 * The key-value store the service keeps its data in.
 *
 * Values are structured-clonable (plain objects, arrays, strings, numbers, booleans, `null`,
 * `Uint8Array`, `Date`, `bigint`). Every method may reject when the backing store is unavailable;
 * callers answer such failures with the spec's `no-backend` error.
 */
export interface Store {
  /** Reads one key. */
  get<T = unknown>(key: KvKey): Promise<KvEntryMaybe<T>>;
  /** Writes one key unconditionally. */
  set(key: KvKey, value: unknown, options?: KvSetOptions): Promise<KvCommitResult>;
  /** Deletes one key; deleting an absent key is not an error. */
  delete(key: KvKey): Promise<void>;
  /** Lists the entries of a key range in key order (or reverse key order). */
  list<T = unknown>(selector: KvListSelector, options?: KvListOptions): AsyncIterable<KvEntry<T>>;
  /** Starts an atomic operation. */
  atomic(): AtomicOperation;
  /** Releases the store; later calls fail. */
  close(): void;
}
