/**
 * The one retry helper of the service, modelled on Deno std's `async/retry.ts`
 * (https://jsr.io/@std/async/doc/retry), and the one test of store contention: every store
 * operation that is repeated (opening a KV file at start, start-up settings, a booking's read and
 * commit, an inquiry's commit, a rate-limit counter) goes through {@linkcode retry}.
 *
 * @module
 */

/** Options of {@linkcode retry}, as in Deno std's `RetryOptions`, plus an injectable pause. */
export interface RetryOptions {
  /**
   * Calls of `fn` in all, the first included; must be a positive integer.
   *
   * @default {5}
   */
  maxAttempts?: number;
  /**
   * Milliseconds of backoff before the first retry; each further retry multiplies it by
   * `multiplier`, up to `maxTimeout`.
   *
   * @default {1000}
   */
  minTimeout?: number;
  /**
   * The longest backoff between two attempts, in milliseconds.
   *
   * @default {60000}
   */
  maxTimeout?: number;
  /**
   * How much the backoff grows after each retry; at least 1.
   *
   * @default {2}
   */
  multiplier?: number;
  /**
   * The share of each backoff that is random, from 0 (wait the whole backoff) to 1 (wait a random
   * time between 0 and the backoff: "full jitter").
   *
   * @default {1}
   */
  jitter?: number;
  /**
   * Whether a failure may be retried; a failure it refuses reaches the caller at once.
   *
   * @default {() => true}
   */
  isRetriable?: (error: unknown) => boolean;
  /**
   * Waits between attempts; tests pass one that records the delays instead of waiting.
   *
   * @default {a `setTimeout` promise}
   */
  sleep?: (milliseconds: number) => Promise<void>;
}

function sleepFor(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/**
 * Calls `fn` until it resolves, at most `maxAttempts` times, waiting between attempts a backoff of
 * `min(maxTimeout, minTimeout × multiplier^retry)` milliseconds (`retry` counting from 0), of
 * which the share `jitter` is random. This is Deno std's `retry`, except that once the attempts
 * are spent it throws the last failure itself rather than a `RetryError` wrapping it, so callers
 * see the store's own error.
 *
 * @typeParam T What `fn` resolves to.
 * @param fn The work to do; it must be safe to repeat after any failure `isRetriable` accepts.
 * @param options The attempts, the backoff and which failures to retry.
 * @returns What `fn` resolves to, at the first attempt that succeeds.
 * @throws {RangeError} When an option is out of range (as Deno std checks them).
 * @throws The failure of `fn` that `isRetriable` refused, at once, or the last failure once
 * `maxAttempts` attempts failed.
 *
 * @example Retrying while a KV file is locked by another process
 * ```ts
 * import assert from "node:assert/strict";
 * import { isStoreContention, retry } from "./retry.ts";
 *
 * let calls = 0;
 * const value = await retry(() => {
 *   calls++;
 *   if (calls < 3) throw new TypeError("database is locked");
 *   return Promise.resolve("read");
 * }, { maxAttempts: 3, minTimeout: 1, isRetriable: isStoreContention });
 * assert.equal(value, "read");
 * assert.equal(calls, 3);
 *
 * await assert.rejects(
 *   retry(() => Promise.reject(new Error("Permission denied")), { isRetriable: isStoreContention }),
 *   /Permission denied/,
 * );
 * ```
 */
export async function retry<T>(fn: () => Promise<T> | T, options: RetryOptions = {}): Promise<T> {
  const {
    maxAttempts = 5,
    minTimeout = 1000,
    maxTimeout = 60_000,
    multiplier = 2,
    jitter = 1,
    isRetriable = () => true,
    sleep = sleepFor,
  } = options;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`Invalid maxAttempts: "${maxAttempts}" is not a positive integer`);
  }
  if (!Number.isFinite(multiplier) || multiplier < 1) {
    throw new RangeError(`Invalid multiplier: "${multiplier}" is not a finite number >= 1`);
  }
  if (Number.isNaN(maxTimeout) || maxTimeout <= 0) {
    throw new RangeError(`Invalid maxTimeout: "${maxTimeout}" is not a positive number`);
  }
  if (Number.isNaN(minTimeout) || minTimeout < 0 || minTimeout > maxTimeout) {
    throw new RangeError(`Invalid minTimeout: "${minTimeout}" is not between 0 and maxTimeout`);
  }
  if (Number.isNaN(jitter) || jitter < 0 || jitter > 1) {
    throw new RangeError(`Invalid jitter: "${jitter}" is not between 0 and 1`);
  }
  for (let attempt = 0;; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isRetriable(error) || attempt + 1 >= maxAttempts) throw error;
      const backoff = Math.min(maxTimeout, minTimeout * multiplier ** attempt);
      await sleep((1 - jitter * Math.random()) * backoff);
    }
  }
}

/**
 * How a request asks the store again while a local KV file is locked by another process: twelve
 * attempts, after 10 ms, then doubling up to 500 ms (at most 3.13 s in all), each wait
 * between half and the whole of its backoff so that contenders spread out; only after
 * {@linkcode isStoreContention}. SQLite answers "database is locked" before it writes anything, so
 * a read and a commit are alike safe to repeat. Two processes under a burst on a loaded machine can
 * hold the file for over a second: a request waits for it rather than failing (fewer attempts over
 * a shorter time let the two-process test answer 500 now and then, on Node most).
 */
export const STORE_CONTENTION_RETRY: Readonly<RetryOptions> = Object.freeze({
  maxAttempts: 12,
  minTimeout: 10,
  maxTimeout: 500,
  multiplier: 2,
  jitter: 0.5,
  isRetriable: isStoreContention,
});

/**
 * Whether a store's failure is contention that passes: SQLite's "database is locked" or "busy"
 * (`SQLITE_BUSY`), what a local KV file answers while another process opens or writes it at the
 * same moment. SQLite answers so before it changes anything, so the failed operation, a commit
 * included, is safe to repeat.
 *
 * @param error What the store threw or rejected with.
 * @returns `true` for a locked or busy database.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isStoreContention } from "./retry.ts";
 *
 * assert.equal(isStoreContention(new TypeError("database is locked")), true);
 * assert.equal(isStoreContention(new Error("Permission denied (os error 13)")), false);
 * ```
 */
export function isStoreContention(error: unknown): boolean {
  return /database is (locked|busy)|SQLITE_BUSY/i.test(
    error instanceof Error ? error.message : String(error),
  );
}
