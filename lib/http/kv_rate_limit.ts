/**
 * Fixed-window rate limiting with the counters in the store, so that every instance on one store
 * (several processes on one `denokv` server, or Deno Deploy's regions on its KV) counts a client
 * together. Windows and headers are those of the in-process limiter (`createRateLimiter`).
 *
 * Each counter is a number at `["rate_limit", policy, window, client]`, written with an atomic
 * check of the versionstamp it was read at (retried when another instance wrote meanwhile, or
 * when SQLite reports the file locked by another process) and an expiry at the end of its window. A check-and-set rather than Deno KV's `sum`: `sum` needs
 * the non-standard `Deno.KvU64`, and `@deno/kv` drops `expireIn` on `sum`, which would leave
 * every window's counters behind for good.
 *
 * @module
 */
import type { RateLimitPolicy } from "../contract/contract.ts";
import {
  createRateLimiter,
  type LocalRateLimiter,
  type RateLimitDecision,
  type RateLimiter,
  toPolicyState,
} from "./rate_limit.ts";
import type { Logger } from "../ports.ts";
import type { KvEntryMaybe, KvKey, Store } from "../store/store.ts";
import { isStoreContention, retry, type RetryOptions } from "../store/retry.ts";

/** Key prefix of the counters: `["rate_limit", policyName, windowIndex, clientKey]`. */
export const RATE_LIMIT_PREFIX = ["rate_limit"] as const;

/** Another instance wrote a counter between this request's read and its commit. */
class CounterContendedError extends Error {
  constructor() {
    super("Rate-limit counter changed meanwhile");
    this.name = "CounterContendedError";
  }
}

/** Options of {@linkcode createKvRateLimiter}. */
export interface KvRateLimiterOptions {
  /** The store the counters live in; every instance that shares it shares the counts. */
  store: Store;
  /** The current time in epoch milliseconds. @default {Date.now} */
  nowMilliseconds?: () => number;
  /** Where to report that the store failed and counting fell back to the process. */
  logger?: Logger;
  /**
   * Commits tried per request before refusing it; between attempts a request waits a random
   * delay that doubles each time, up to 50 ms. @default {16}
   */
  maxAttempts?: number;
  /**
   * Counts every request in the process too, and decides when the store fails.
   * @default {createRateLimiter({ nowMilliseconds })}
   */
  fallback?: LocalRateLimiter;
}

/** Whether a failed count may be tried again: another writer won, or the file was locked. */
function isContended(error: unknown): boolean {
  return error instanceof CounterContendedError || isStoreContention(error);
}

/**
 * Counts once at `nowMilliseconds`: the decision, or {@linkcode CounterContendedError} when a
 * check failed.
 */
async function countOnce(
  store: Store,
  nowMilliseconds: number,
  clientKey: string,
  policies: readonly RateLimitPolicy[],
): Promise<RateLimitDecision> {
  const nowSeconds = nowMilliseconds / 1000;
  const keys: KvKey[] = policies.map((policy) => [
    ...RATE_LIMIT_PREFIX,
    policy.name,
    Math.floor(nowSeconds / policy.windowSeconds),
    clientKey,
  ]);
  const entries: KvEntryMaybe<number>[] = await Promise.all(
    keys.map((key) => store.get<number>(key)),
  );
  const counts = entries.map((entry) => entry.value ?? 0);
  const states = policies.map((policy, index) =>
    toPolicyState(policy, counts[index] + 1, nowSeconds)
  );
  const decision = { states, exceeded: states.some((state) => state.exceeded) };
  // A counter already at its limit stays exhausted whatever is added: only the others are
  // written, and a request refused by every policy writes nothing.
  const growing = policies.flatMap((policy, index) => counts[index] < policy.limit ? [index] : []);
  if (!growing.length) return decision;
  const operation = store.atomic();
  for (const index of growing) {
    const { windowSeconds } = policies[index];
    const windowEndMilliseconds = (Math.floor(nowSeconds / windowSeconds) + 1) *
      windowSeconds * 1000;
    operation.check(entries[index]).set(keys[index], counts[index] + 1, {
      // A second past the window's end, so a clock slightly behind never reads it as empty.
      expireIn: Math.max(1, windowEndMilliseconds - nowMilliseconds) + 1000,
    });
  }
  if ((await operation.commit()).ok) return decision;
  throw new CounterContendedError();
}

/** Refuses a request whose counters stayed contended: every policy exhausted till its reset. */
function refuse(policies: readonly RateLimitPolicy[], nowMilliseconds: number): RateLimitDecision {
  const nowSeconds = nowMilliseconds / 1000;
  const states = policies.map((policy) => toPolicyState(policy, policy.limit + 1, nowSeconds));
  return { states, exceeded: true };
}

/** A warning that reaches the logger at most once a minute, however often it is given. */
function createMinuteWarning(
  logger: Logger | undefined,
  now: () => number,
): (message: string, error?: unknown) => void {
  let lastWarningMilliseconds = -Infinity;
  return (message, error) => {
    const nowMilliseconds = now();
    if (nowMilliseconds - lastWarningMilliseconds < 60_000) return;
    lastWarningMilliseconds = nowMilliseconds;
    logger?.warn(
      message,
      error === undefined ? undefined : {
        error: error instanceof Error ? error.message : String(error),
      },
    );
  };
}

/**
 * Creates a rate limiter whose counters live in the store, shared across instances.
 *
 * Decisions are those of the in-process limiter. A counter already at its limit is not written
 * again, so a flood of refused requests costs one read per policy each. No outcome lets more
 * through than the quota on this instance:
 *
 * - contention (another writer won, or the file is locked) is retried with backoff; when other
 *   writers win `maxAttempts` times in a row, the request is refused (429 with `Retry-After`):
 *   only a client whose own counter is that contended, i.e. one sending many requests at once,
 *   meets this;
 * - when the store fails, or its file stays locked by another process past the retries (a lock
 *   says nothing of this client, which must not be refused for another process's load), the
 *   request is decided by the `fallback` limiter, which counts every
 *   request of this instance all along, so it resumes from what this instance already let through
 *   in the window rather than from a full quota; the failure is logged, at most once a minute.
 *
 * @param options The store, clock, logger and retry bound.
 * @returns The limiter; its `consume` returns a promise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createKvRateLimiter } from "./kv_rate_limit.ts";
 * import { createMemoryStore } from "../store/memory_store.ts";
 *
 * const store = createMemoryStore();
 * const limiter = createKvRateLimiter({ store });
 * const write = { name: "write", limit: 10, windowSeconds: 60, appliesTo: "POST" } as const;
 * const decision = await limiter.consume("203.0.113.7", [write]);
 * assert.equal(decision.states[0].remaining, 9);
 * store.close();
 * ```
 */
export function createKvRateLimiter(options: KvRateLimiterOptions): RateLimiter {
  const { store } = options;
  const now = options.nowMilliseconds ?? Date.now;
  const fallback = options.fallback ?? createRateLimiter({ nowMilliseconds: now });
  const warn = createMinuteWarning(options.logger, now);
  // Another writer won meanwhile: back off (2 ms, doubling up to 50 ms, all of it random) so
  // that contenders spread out. A failing store is not asked again.
  const contentionRetry: RetryOptions = {
    maxAttempts: options.maxAttempts ?? 16,
    minTimeout: 2,
    maxTimeout: 50,
    multiplier: 2,
    jitter: 1,
    isRetriable: isContended,
  };

  async function count(
    clientKey: string,
    policies: readonly RateLimitPolicy[],
  ): Promise<RateLimitDecision> {
    let raced = false;
    try {
      return await retry(async () => {
        try {
          return await countOnce(store, now(), clientKey, policies);
        } catch (error) {
          if (error instanceof CounterContendedError) raced = true;
          throw error;
        }
      }, contentionRetry);
    } catch (error) {
      // The client's own counters changed under it: its requests race each other, a burst,
      // which is refused rather than counted apart. A file that only stayed locked says nothing
      // of the client: like a failing store, it is left to this process's count (below), so that
      // another process's load never refuses a client within its quota.
      if (!raced || !isContended(error)) throw error;
      warn("Rate-limit counters stayed contended; refusing the request");
      return refuse(policies, now());
    }
  }

  return {
    async consume(clientKey, policies) {
      // Counted here too, every time: should the store fail, this instance's counts are current.
      const local = fallback.consume(clientKey, policies);
      try {
        return await count(clientKey, policies);
      } catch (error) {
        warn("Rate-limit store failed; counting in this process", error);
        return local;
      }
    },
  };
}
