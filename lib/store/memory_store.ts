/**
 * An in-memory {@linkcode Store}: the service's default store and the store of its tests.
 *
 * It follows Deno KV's semantics for the subset the service uses, checked against
 * `Deno.openKv(":memory:")` on Deno 2.9.6: keys are encoded to the same bytes as Deno KV encodes
 * them (FoundationDB's tuple layer) and ordered by those bytes, so parts order by type — bytes,
 * strings, bigints, numbers, booleans — then by value; versionstamps have Deno KV's format; and the
 * same inputs are rejected with the same errors, in the same place (synchronously or not).
 *
 * @module
 */

import type {
  AtomicCheck,
  AtomicOperation,
  KvCommitResult,
  KvEntry,
  KvEntryMaybe,
  KvKey,
  KvKeyPart,
  KvListOptions,
  KvListSelector,
  KvSetOptions,
  Store,
} from "./store.ts";

/** Options of {@linkcode createMemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * The clock that decides when keys written with `expireIn` expire: returns the current time in
   * milliseconds since the Unix epoch. Tests pass a fake clock to expire keys without waiting.
   *
   * @default {Date.now}
   */
  now?: () => number;
}

/** Deno KV's limits: the defaults of `denokv`, which Deno 2.9.6 enforces. */
const LIMITS = {
  maxWriteKeyBytes: 2048,
  // A read of one key scans [key, key + 0x00), whose end is one byte longer than the key.
  maxReadKeyBytes: 2049,
  maxChecks: 100,
  maxMutations: 1000,
  maxTotalKeyBytes: 81_920,
  maxTotalMutationBytes: 819_200,
  maxBigintBytes: 255,
  // The latest instant Deno KV can store an expiry for: +262142-12-31T23:59:59.999Z.
  maxExpiresAtMs: 8_210_266_876_799_999,
} as const;

const KEY_PART_TYPE_MESSAGE = "expected string, number, bigint, ArrayBufferView, boolean";
const BIGINT_TOO_LARGE_MESSAGE = "BigUint requires more than 255 bytes to be represented";

/** FoundationDB tuple-layer type codes, as Deno KV uses them. */
const TYPE_CODE = {
  bytes: 0x01,
  string: 0x02,
  integerZero: 0x14,
  negativeIntegerLong: 0x0b,
  positiveIntegerLong: 0x1d,
  double: 0x21,
  false: 0x26,
  true: 0x27,
} as const;

/** Where a key is used; Deno KV words some encoding errors differently for each. */
type KeyUse = "read" | "check" | "mutation";

/** A key in both forms: the bytes that order it and the parts handed back to callers. */
interface EncodedKey {
  bytes: Uint8Array;
  /** The parts as Deno KV gives them back: byte views as `Uint8Array`, strings well-formed. */
  parts: readonly KvKeyPart[];
}

/** One stored key. Never mutated after it is created, so list snapshots can share it. */
interface StoredEntry {
  bytes: Uint8Array;
  key: readonly KvKeyPart[];
  /** A private copy of the value, cloned again on every read. */
  value: unknown;
  versionstamp: string;
  /** When the key expires, in milliseconds since the Unix epoch; `undefined` for never. */
  expiresAtMs: number | undefined;
}

interface PendingCheck {
  key: KvKey;
  versionstamp: string | null | undefined;
}

type PendingMutation =
  | { type: "set"; key: KvKey; value: unknown; expireIn: number | undefined }
  | { type: "delete"; key: KvKey };

type CommitFunction = (
  checks: readonly PendingCheck[],
  mutations: readonly PendingMutation[],
) => Promise<KvCommitResult>;

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/**
 * Creates an in-memory {@linkcode Store} with Deno KV's semantics, in portable JavaScript that runs
 * on Deno, Node and Bun.
 *
 * - Keys order by type (`Uint8Array` < `string` < `bigint` < `number` < `boolean`), then by value:
 *   bytes and strings by their (UTF-8) bytes, numbers numerically with `-0` before `0` and `NaN`
 *   last, `false` before `true`; a key sorts before the longer keys it is a prefix of. Any
 *   `ArrayBufferView` part is stored as a `Uint8Array` of its bytes, and lone surrogates in strings
 *   become U+FFFD, as in Deno KV.
 * - Every commit, including `set` and `delete`, gets a versionstamp one greater than the last one,
 *   in Deno KV's 20-hex-digit format: the first is `"00000000000000010000"`.
 * - A key written with `expireIn` disappears from reads, lists and checks as soon as the clock
 *   reaches its expiry (Deno KV only promises to delete it at some point after that), and expired
 *   keys are dropped, so memory stays bounded by the live keys.
 * - Values are copied with `structuredClone` when written and again when read.
 * - `list` reads a snapshot of the range taken at the first `next()`.
 * - Deno KV's limits on key sizes, checks and mutations per commit and total key size per commit
 *   apply. Its value size limits (64 KiB per value, 800 KiB per commit) do not, because they
 *   measure V8's serialization format, which portable JavaScript cannot compute.
 * - After `close()`, every operation rejects (and a second `close()` throws) with Deno KV's
 *   `BadResource` error, "Bad resource ID".
 *
 * @param options The clock; see {@linkcode MemoryStoreOptions}.
 * @returns An empty store.
 * @throws {TypeError} From its methods, with Deno KV's messages: for an empty key in a write
 * (`"key cannot be empty"`), a key part of another type, a key or commit over Deno KV's limits, an
 * invalid `expireIn`, a malformed check versionstamp or a value `structuredClone` cannot copy.
 * @throws {Error} From `list`, synchronously, when `limit` is not a positive integer.
 *
 * @example Check-and-set
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoryStore } from "./memory_store.ts";
 *
 * const store = createMemoryStore();
 * const first = await store.atomic()
 *   .check({ key: ["slot", "2025-06-02T10:00"], versionstamp: null })
 *   .set(["slot", "2025-06-02T10:00"], { inquiry: "01J" })
 *   .commit();
 * assert.deepEqual(first, { ok: true, versionstamp: "00000000000000010000" });
 *
 * const second = await store.atomic()
 *   .check({ key: ["slot", "2025-06-02T10:00"], versionstamp: null })
 *   .set(["slot", "2025-06-02T10:00"], { inquiry: "01K" })
 *   .commit();
 * assert.deepEqual(second, { ok: false });
 * store.close();
 * ```
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  const now = options.now ?? Date.now;
  /** Sorted by `bytes`. */
  let entries: StoredEntry[] = [];
  let version = 0;
  let closed = false;
  /** No key expires before this instant; it may be early, never late. */
  let nextExpiryMs = Number.POSITIVE_INFINITY;

  function assertOpen(): void {
    if (closed) throw createClosedError();
  }

  function dropExpired(): void {
    const nowMs = now();
    if (nowMs < nextExpiryMs) return;
    nextExpiryMs = Number.POSITIVE_INFINITY;
    entries = entries.filter((entry) => {
      if (entry.expiresAtMs === undefined) return true;
      if (entry.expiresAtMs <= nowMs) return false;
      nextExpiryMs = Math.min(nextExpiryMs, entry.expiresAtMs);
      return true;
    });
  }

  /** The index of the first entry whose key is not less than `bytes`. */
  function lowerBound(bytes: Uint8Array): number {
    let low = 0;
    let high = entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareBytes(entries[middle].bytes, bytes) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  function find(bytes: Uint8Array): StoredEntry | undefined {
    const entry = entries[lowerBound(bytes)];
    return entry !== undefined && compareBytes(entry.bytes, bytes) === 0 ? entry : undefined;
  }

  function put(entry: StoredEntry): void {
    const index = lowerBound(entry.bytes);
    const existing = entries[index];
    const replaces = existing !== undefined &&
      compareBytes(existing.bytes, entry.bytes) === 0;
    entries.splice(index, replaces ? 1 : 0, entry);
    if (entry.expiresAtMs !== undefined) {
      nextExpiryMs = Math.min(nextExpiryMs, entry.expiresAtMs);
    }
  }

  function remove(bytes: Uint8Array): void {
    const index = lowerBound(bytes);
    const existing = entries[index];
    if (existing !== undefined && compareBytes(existing.bytes, bytes) === 0) {
      entries.splice(index, 1);
    }
  }

  // deno-lint-ignore require-await -- errors must reject, as Deno KV's do, not throw
  const commit: CommitFunction = async (checks, mutations) => {
    // Deno KV rejects keys of the wrong type before it looks at the database, and everything else
    // after; the order of the checks below follows it.
    const checkKeys = checks.map((check) => encodeKey(check.key, "check"));
    const mutationKeys = mutations.map((mutation) => encodeKey(mutation.key, "mutation"));
    assertOpen();
    if (checks.length > LIMITS.maxChecks) {
      throw new TypeError(`Too many checks (max ${LIMITS.maxChecks})`);
    }
    if (mutations.length > LIMITS.maxMutations) {
      throw new TypeError(`Too many mutations (max ${LIMITS.maxMutations})`);
    }
    const expectedVersionstamps = checks.map((check) => toExpectedVersionstamp(check));
    const nowMs = now();
    const expiresAtMs = mutations.map((mutation) =>
      mutation.type === "set" ? toExpiresAtMs(mutation.expireIn, nowMs) : undefined
    );

    let totalMutationBytes = 0;
    let totalKeyBytes = 0;
    for (const key of [...checkKeys, ...mutationKeys]) {
      totalMutationBytes += assertWritableKey(key.bytes);
    }
    mutations.forEach((mutation, index) => {
      if (mutation.type !== "set") return;
      // The value's share of the mutation size is unknown here; see createMemoryStore's JSDoc.
      totalMutationBytes += mutationKeys[index].bytes.length;
      totalKeyBytes += mutationKeys[index].bytes.length;
    });
    if (totalMutationBytes > LIMITS.maxTotalMutationBytes) {
      throw new TypeError(
        `Total mutation size too large (max ${LIMITS.maxTotalMutationBytes} bytes)`,
      );
    }
    if (totalKeyBytes > LIMITS.maxTotalKeyBytes) {
      throw new TypeError(
        `Total key size too large (max ${LIMITS.maxTotalKeyBytes} bytes)`,
      );
    }

    dropExpired();
    const checksPass = checkKeys.every((key, index) =>
      (find(key.bytes)?.versionstamp ?? null) === expectedVersionstamps[index]
    );
    if (!checksPass) return { ok: false };

    version += 1;
    const versionstamp = toVersionstamp(version);
    mutations.forEach((mutation, index) => {
      const key = mutationKeys[index];
      if (mutation.type === "delete") {
        remove(key.bytes);
        return;
      }
      put({
        bytes: key.bytes,
        key: key.parts,
        value: mutation.value,
        versionstamp,
        expiresAtMs: expiresAtMs[index],
      });
    });
    return { ok: true, versionstamp };
  };

  async function* iterate<T>(
    selector: Selector<KvKey>,
    limit: number | undefined,
    reverse: boolean,
  ): AsyncGenerator<KvEntry<T>> {
    const encoded = encodeSelector(selector);
    assertOpen();
    const range = toByteRange(encoded);
    dropExpired();
    const snapshot = compareBytes(range.start, range.end) < 0
      ? entries.slice(lowerBound(range.start), lowerBound(range.end))
      : [];
    if (reverse) snapshot.reverse();
    for (const entry of snapshot.slice(0, limit)) {
      yield toEntry<T>(entry);
    }
  }

  return {
    // deno-lint-ignore require-await -- errors must reject, as Deno KV's do, not throw
    async get<T = unknown>(key: KvKey): Promise<KvEntryMaybe<T>> {
      const { bytes } = encodeKey(key, "read");
      assertOpen();
      if (bytes.length + 1 > LIMITS.maxReadKeyBytes) {
        throw createKeyTooLargeForReadError();
      }
      dropExpired();
      const entry = find(bytes);
      // Deno KV hands back the caller's own key when there is no entry.
      return entry === undefined ? { key, value: null, versionstamp: null } : toEntry<T>(entry);
    },

    async set(
      key: KvKey,
      value: unknown,
      options?: KvSetOptions,
    ): Promise<KvCommitResult> {
      return await new MemoryAtomicOperation(commit).set(key, value, options)
        .commit();
    },

    async delete(key: KvKey): Promise<void> {
      await new MemoryAtomicOperation(commit).delete(key).commit();
    },

    list<T = unknown>(
      selector: KvListSelector,
      options: KvListOptions = {},
    ): AsyncIterable<KvEntry<T>> {
      const { limit, reverse = false } = options;
      if (limit !== undefined && (!Number.isInteger(limit) || limit <= 0)) {
        throw new Error(`Limit must be a positive integer: received ${limit}`);
      }
      return iterate<T>(toSelector(selector), limit, reverse);
    },

    atomic(): AtomicOperation {
      return new MemoryAtomicOperation(commit);
    },

    close(): void {
      assertOpen();
      closed = true;
      entries = [];
    },
  };
}

/** An {@linkcode AtomicOperation} that collects checks and writes and hands them to its store. */
class MemoryAtomicOperation implements AtomicOperation {
  readonly #commit: CommitFunction;
  readonly #checks: PendingCheck[] = [];
  readonly #mutations: PendingMutation[] = [];

  constructor(commit: CommitFunction) {
    this.#commit = commit;
  }

  check(...checks: AtomicCheck[]): this {
    for (const check of checks) {
      this.#checks.push({ key: check.key, versionstamp: check.versionstamp });
    }
    return this;
  }

  set(key: KvKey, value: unknown, options?: KvSetOptions): this {
    // Deno KV validates `expireIn` and serializes the value here, not at commit.
    const expireIn = options?.expireIn;
    if (
      expireIn !== undefined && (!Number.isInteger(expireIn) || expireIn < 0)
    ) {
      throw new TypeError(
        `expireIn must be a non-negative integer: received ${expireIn}`,
      );
    }
    this.#mutations.push({
      type: "set",
      key,
      value: cloneValue(value),
      expireIn,
    });
    return this;
  }

  delete(key: KvKey): this {
    this.#mutations.push({ type: "delete", key });
    return this;
  }

  commit(): Promise<KvCommitResult> {
    return this.#commit([...this.#checks], [...this.#mutations]);
  }
}

/**
 * A list selector in one of the shapes Deno KV accepts, with keys of type `K`: first the caller's
 * key arrays (copied, as Deno KV copies them when `list` is called), then their encodings.
 */
type Selector<K> =
  | { prefix: K; start?: K; end?: K }
  | { prefix?: undefined; start: K; end: K };

function toSelector(selector: KvListSelector): Selector<KvKey> {
  const fields: { prefix?: KvKey; start?: KvKey; end?: KvKey } = selector;
  const prefix = fields.prefix?.slice();
  const start = fields.start?.slice();
  const end = fields.end?.slice();
  if (prefix !== undefined) {
    if (start !== undefined && end !== undefined) {
      throw new TypeError(
        "Selector can not specify both 'start' and 'end' key when specifying 'prefix'",
      );
    }
    return { prefix, start, end };
  }
  if (start === undefined || end === undefined) {
    throw new TypeError(
      "Selector must specify either 'prefix' or both 'start' and 'end' key",
    );
  }
  return { start, end };
}

function encodeSelector(selector: Selector<KvKey>): Selector<Uint8Array> {
  const encode = (key: KvKey): Uint8Array => encodeKey(key, "read").bytes;
  if (selector.prefix === undefined) {
    return { start: encode(selector.start), end: encode(selector.end) };
  }
  return {
    prefix: encode(selector.prefix),
    start: selector.start && encode(selector.start),
    end: selector.end && encode(selector.end),
  };
}

/**
 * The half-open byte range a selector covers. A prefix alone covers [prefix + 0x00, prefix + 0xff),
 * which holds every longer key that starts with the prefix and not the prefix itself.
 */
function toByteRange(
  selector: Selector<Uint8Array>,
): { start: Uint8Array; end: Uint8Array } {
  const { prefix, start, end } = selector;
  if (prefix === undefined) {
    if (compareBytes(selector.start, selector.end) > 0) {
      throw new TypeError("Start key is greater than end key");
    }
    return assertReadableRange({ start: selector.start, end: selector.end });
  }
  if (start !== undefined && !isStrictPrefix(prefix, start)) {
    throw new TypeError("Start key is not in the keyspace defined by prefix");
  }
  if (end !== undefined && !isStrictPrefix(prefix, end)) {
    throw new TypeError("End key is not in the keyspace defined by prefix");
  }
  return assertReadableRange({
    start: start ?? concatBytes(prefix, 0x00),
    end: end ?? concatBytes(prefix, 0xff),
  });
}

function assertReadableRange<R extends { start: Uint8Array; end: Uint8Array }>(
  range: R,
): R {
  if (
    range.start.length > LIMITS.maxReadKeyBytes ||
    range.end.length > LIMITS.maxReadKeyBytes
  ) {
    throw createKeyTooLargeForReadError();
  }
  return range;
}

/** Checks a key that a commit writes or checks; returns its size in bytes. */
function assertWritableKey(bytes: Uint8Array): number {
  if (bytes.length === 0) throw new TypeError("key cannot be empty");
  if (bytes.length > LIMITS.maxWriteKeyBytes) {
    throw new TypeError(
      `Key too large for write (max ${LIMITS.maxWriteKeyBytes} bytes)`,
    );
  }
  return bytes.length;
}

function toExpectedVersionstamp(check: PendingCheck): string | null {
  const { versionstamp } = check;
  if (versionstamp === null || versionstamp === undefined) return null;
  if (
    typeof versionstamp !== "string" || !/^[0-9a-f]{20}$/i.test(versionstamp)
  ) {
    throw new TypeError("Invalid check");
  }
  return versionstamp.toLowerCase();
}

function toExpiresAtMs(
  expireIn: number | undefined,
  nowMs: number,
): number | undefined {
  if (expireIn === undefined) return undefined;
  if (nowMs + expireIn > LIMITS.maxExpiresAtMs) {
    throw new TypeError(`Invalid mutation: expireIn is too large: ${expireIn}`);
  }
  return nowMs + expireIn;
}

/** Deno KV's format: a 64-bit commit version and a 16-bit index within the commit, in hex. */
function toVersionstamp(version: number): string {
  return `${version.toString(16).padStart(16, "0")}0000`;
}

function toEntry<T>(entry: StoredEntry): KvEntry<T> {
  return {
    key: entry.key.map((part) => part instanceof Uint8Array ? part.slice() : part),
    // The caller names the type of the values it stored, as with Deno KV.
    value: cloneValue(entry.value) as T,
    versionstamp: entry.versionstamp,
  };
}

/** Copies a value as Deno KV's serializer would, failing with the TypeError Deno KV fails with. */
function cloneValue(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch (error) {
    if (error instanceof DOMException && error.name === "DataCloneError") {
      throw new TypeError(error.message, { cause: error });
    }
    throw error;
  }
}

function createClosedError(): Error {
  const error = new Error("Bad resource ID");
  // The name of the error Deno KV throws once it is closed (`Deno.errors.BadResource`).
  error.name = "BadResource";
  return error;
}

function createKeyTooLargeForReadError(): TypeError {
  return new TypeError(
    `Key too large for read (max ${LIMITS.maxReadKeyBytes} bytes)`,
  );
}

/**
 * Encodes a key as Deno KV does (FoundationDB's tuple layer), so that comparing the bytes orders
 * keys exactly as Deno KV orders them.
 */
function encodeKey(key: KvKey, use: KeyUse): EncodedKey {
  const bytes: number[] = [];
  const parts: KvKeyPart[] = [];
  for (const part of key) {
    if (typeof part === "string") {
      const utf8 = textEncoder.encode(part);
      bytes.push(TYPE_CODE.string);
      pushEscaped(bytes, utf8);
      bytes.push(0x00);
      parts.push(textDecoder.decode(utf8));
    } else if (typeof part === "number") {
      bytes.push(TYPE_CODE.double);
      pushDouble(bytes, part);
      parts.push(part);
    } else if (typeof part === "bigint") {
      pushBigint(bytes, part, use);
      parts.push(part);
    } else if (typeof part === "boolean") {
      bytes.push(part ? TYPE_CODE.true : TYPE_CODE.false);
      parts.push(part);
    } else if (ArrayBuffer.isView(part)) {
      const view = new Uint8Array(part.buffer, part.byteOffset, part.byteLength)
        .slice();
      bytes.push(TYPE_CODE.bytes);
      pushEscaped(bytes, view);
      bytes.push(0x00);
      parts.push(view);
    } else {
      throw new TypeError(KEY_PART_TYPE_MESSAGE);
    }
  }
  return { bytes: Uint8Array.from(bytes), parts };
}

/** Appends bytes with each 0x00 escaped as 0x00 0xff, so that 0x00 can end a part. */
function pushEscaped(output: number[], bytes: Uint8Array): void {
  for (const byte of bytes) {
    output.push(byte);
    if (byte === 0x00) output.push(0xff);
  }
}

/** Appends an IEEE 754 double, its bits flipped so that bytes order as the numbers do. */
function pushDouble(output: number[], value: number): void {
  const view = new DataView(new ArrayBuffer(8));
  if (Number.isNaN(value)) view.setBigUint64(0, 0x7ff8000000000000n);
  else view.setFloat64(0, value);
  const negative = (view.getUint8(0) & 0x80) !== 0;
  for (let index = 0; index < 8; index++) {
    const byte = view.getUint8(index);
    output.push(negative ? byte ^ 0xff : index === 0 ? byte ^ 0x80 : byte);
  }
}

/** Appends an integer: the type code carries the sign and length, negatives are one's complement. */
function pushBigint(output: number[], value: bigint, use: KeyUse): void {
  if (value === 0n) {
    output.push(TYPE_CODE.integerZero);
    return;
  }
  const negative = value < 0n;
  const magnitude: number[] = [];
  for (let rest = negative ? -value : value; rest > 0n; rest >>= 8n) {
    magnitude.unshift(Number(rest & 0xffn));
  }
  const length = magnitude.length;
  if (length > LIMITS.maxBigintBytes) {
    throw new TypeError(
      use === "check"
        ? "Invalid check"
        : use === "mutation"
        ? `Invalid mutation: ${BIGINT_TOO_LARGE_MESSAGE}`
        : BIGINT_TOO_LARGE_MESSAGE,
    );
  }
  const body = negative ? magnitude.map((byte) => byte ^ 0xff) : magnitude;
  if (length <= 8) {
    output.push(TYPE_CODE.integerZero + (negative ? -length : length), ...body);
  } else if (negative) {
    output.push(TYPE_CODE.negativeIntegerLong, length ^ 0xff, ...body);
  } else {
    output.push(TYPE_CODE.positiveIntegerLong, length, ...body);
  }
}

function compareBytes(left: Uint8Array, right: Uint8Array): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    if (left[index] !== right[index]) return left[index] - right[index];
  }
  return left.length - right.length;
}

function isStrictPrefix(prefix: Uint8Array, bytes: Uint8Array): boolean {
  return bytes.length > prefix.length &&
    prefix.every((byte, index) => bytes[index] === byte);
}

function concatBytes(bytes: Uint8Array, last: number): Uint8Array {
  const result = new Uint8Array(bytes.length + 1);
  result.set(bytes);
  result[bytes.length] = last;
  return result;
}
