/**
 * Fixed-window rate limiting per client and the IETF RateLimit header fields
 * (draft-ietf-httpapi-ratelimit-headers, as the spec's Limits part formats them).
 *
 * @module
 */
import { serializeInteger, serializeList, serializeString } from "structured-headers";
import { RATE_LIMIT_POLICIES, type RateLimitPolicy } from "../contract/contract.ts";

/** One policy's state for one client after a request was counted. */
export interface PolicyState {
  /** The policy. */
  policy: RateLimitPolicy;
  /** Requests left in the window, at least 0. */
  remaining: number;
  /** Seconds until the window resets, at least 1. */
  resetSeconds: number;
  /** Whether this request went over the quota. */
  exceeded: boolean;
}

/** The outcome of counting one request against its policies. */
export interface RateLimitDecision {
  /** Each applicable policy's state, in the order given. */
  states: PolicyState[];
  /** Whether any policy was exceeded: the request must be answered 429. */
  exceeded: boolean;
}

/**
 * Counts requests per client and policy: in the process ({@linkcode createRateLimiter}, which
 * decides at once) or in a shared store (`createKvRateLimiter`, which answers with a promise).
 */
export interface RateLimiter {
  /**
   * Counts one request of `clientKey` against each policy.
   *
   * @param clientKey The client, from `readClientKey`.
   * @param policies The policies that apply to the request.
   * @returns The decision, or a promise of it when the counters live elsewhere.
   */
  consume(
    clientKey: string,
    policies: readonly RateLimitPolicy[],
  ): RateLimitDecision | Promise<RateLimitDecision>;
}

/** A {@linkcode RateLimiter} that counts in the process and so decides synchronously. */
export interface LocalRateLimiter extends RateLimiter {
  /**
   * Counts one request of `clientKey` against each policy.
   *
   * @param clientKey The client, from `readClientKey`.
   * @param policies The policies that apply to the request.
   * @returns The decision.
   */
  consume(clientKey: string, policies: readonly RateLimitPolicy[]): RateLimitDecision;
}

/** Options of {@linkcode createRateLimiter}. */
export interface RateLimiterOptions {
  /** The current time in epoch milliseconds. @default {Date.now} */
  nowMilliseconds?: () => number;
  /**
   * The most clients tracked per policy and window. When a new client arrives at the bound, the
   * client seen least recently is forgotten (it starts again from a full quota if it comes back),
   * so a flood of distinct addresses neither grows memory (each tracked client costs about
   * 100 bytes) nor hands its exhausted counters to the visitors who come after it.
   * @default {100000}
   */
  maxClients?: number;
}

interface Window {
  /** Index of the window: epoch seconds divided by the window length, floored. */
  index: number;
  /** Each tracked client's count, least recently seen first (a Map keeps insertion order). */
  counts: Map<string, number>;
  /** The client seen last, the last in `counts`' order. */
  latest?: string;
}

/**
 * Creates an in-process fixed-window limiter. Windows are aligned to the epoch (a 60 s window
 * starts at every whole minute), so every counter of a policy expires at once, when its window
 * ends, and the limiter's memory never holds more than one window of counters per policy, of at
 * most `maxClients` clients: beyond that, the least recently seen client is forgotten. A client
 * that keeps sending stays tracked however many others arrive; a flood of new addresses can
 * only push out clients that have gone quiet.
 *
 * @param options The clock and the memory bound.
 * @returns The limiter.
 */
export function createRateLimiter(options: RateLimiterOptions = {}): LocalRateLimiter {
  const now = options.nowMilliseconds ?? Date.now;
  const maxClients = options.maxClients ?? 100_000;
  const windows = new Map<string, Window>();

  function countOne(clientKey: string, policy: RateLimitPolicy, nowSeconds: number): PolicyState {
    const index = Math.floor(nowSeconds / policy.windowSeconds);
    let window = windows.get(policy.name);
    if (!window || window.index !== index) {
      window = { index, counts: new Map() };
      windows.set(policy.name, window);
    }
    const { counts } = window;
    const previous = counts.get(clientKey);
    if (previous === undefined) {
      // Full: forget the least recently seen client, the first in the Map's order.
      if (counts.size >= maxClients) counts.delete(counts.keys().next().value!);
    } else if (clientKey !== window.latest) {
      // Seen again: move it to the end of the order. The client seen last is there already
      // (consecutive requests mostly come from one address: a kept-alive connection, a proxy),
      // and a delete leaves the Map a hole to compact later.
      counts.delete(clientKey);
    }
    const count = (previous ?? 0) + 1;
    counts.set(clientKey, count);
    window.latest = clientKey;
    return toPolicyState(policy, count, nowSeconds);
  }

  return {
    consume(clientKey, policies) {
      const nowSeconds = now() / 1000;
      const states: PolicyState[] = [];
      let exceeded = false;
      for (const policy of policies) {
        const state = countOne(clientKey, policy, nowSeconds);
        states.push(state);
        if (state.exceeded) exceeded = true;
      }
      return { states, exceeded };
    },
  };
}

/**
 * The state of a policy for a client whose request is the `count`th of the current window.
 *
 * @param policy The policy.
 * @param count The requests counted in the window, this one included.
 * @param nowSeconds The current time in epoch seconds.
 * @returns Remaining quota, seconds until the window (aligned to the epoch) ends, and whether
 * the quota is exceeded.
 */
export function toPolicyState(
  policy: RateLimitPolicy,
  count: number,
  nowSeconds: number,
): PolicyState {
  const windowEnd = (Math.floor(nowSeconds / policy.windowSeconds) + 1) * policy.windowSeconds;
  return {
    policy,
    remaining: Math.max(0, policy.limit - count),
    resetSeconds: Math.max(1, Math.ceil(windowEnd - nowSeconds)),
    exceeded: count > policy.limit,
  };
}

/**
 * Serialises `RateLimit-Policy` for a set of policies, for example
 * `"write";q=10;w=60, "booking";q=5;w=300` (a Structured Fields List, RFC 9651).
 */
export function buildPolicyHeader(policies: readonly RateLimitPolicy[]): string {
  return serializeList(policies.map((policy) => [
    policy.name,
    new Map([["q", policy.limit], ["w", policy.windowSeconds]]),
  ]));
}

/** The spec's policy names as Structured Fields Strings, serialised once (read-only). */
const SERIALIZED_NAMES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.keys(RATE_LIMIT_POLICIES).map((name) => [name, serializeString(name)])),
);

/** The policy name as a Structured Fields String. */
function serializeName(name: string): string {
  return SERIALIZED_NAMES[name] ?? serializeString(name);
}

/** One policy's member of `RateLimit`, e.g. `"write";r=9;t=42`, from its serialised numbers. */
function serializeMember(name: string, remaining: string, reset: string): string {
  return `${serializeName(name)};r=${remaining};t=${reset}`;
}

/**
 * Serialises `RateLimit` for a decision, for example `"write";r=9;t=42, "booking";r=4;t=282`:
 * a Structured Fields List of each policy's name with its remaining quota `r` and the seconds
 * until reset `t`.
 */
export function buildRateLimitHeader(decision: RateLimitDecision): string {
  // Equivalent to serializeList() of [name, Map{r, t}] items; each part still goes through the
  // library's serialisers, but the name's serialisation is reused (this runs on every request).
  let header = "";
  for (const state of decision.states) {
    if (header) header += ", ";
    header += serializeMember(
      state.policy.name,
      serializeInteger(state.remaining),
      serializeInteger(state.resetSeconds),
    );
  }
  return header;
}

/**
 * Writes the rate-limit response headers of a decision into a header record (the form a
 * `Response` is cheapest built from): `RateLimit` for every policy, and the legacy
 * `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` of the policy nearest
 * exhaustion (fewest remaining; on a tie, the later reset). With `exceeded`, also `Retry-After`:
 * the latest reset among the exceeded policies, so a client never retries before a window ends.
 * `RateLimit-Policy` is left to the caller, which can cache it ({@linkcode buildPolicyHeader}).
 *
 * @param headers The header record to write to (name → value); existing names are replaced.
 * @param decision The decision of {@linkcode RateLimiter.consume}.
 */
export function setRateLimitHeaders(
  headers: Record<string, string>,
  decision: RateLimitDecision,
): void {
  const { states } = decision;
  let nearest = states[0];
  let nearestRemaining = "";
  let nearestReset = "";
  let header = "";
  let retryAfter = 0;
  for (const state of states) {
    // Each number is serialised once, for `RateLimit` (as buildRateLimitHeader writes it) and
    // the legacy field alike: this runs on every request.
    const remaining = serializeInteger(state.remaining);
    const reset = serializeInteger(state.resetSeconds);
    if (header) header += ", ";
    header += serializeMember(state.policy.name, remaining, reset);
    if (
      state === states[0] || state.remaining < nearest.remaining ||
      (state.remaining === nearest.remaining && state.resetSeconds > nearest.resetSeconds)
    ) {
      nearest = state;
      nearestRemaining = remaining;
      nearestReset = reset;
    }
    if (state.exceeded) retryAfter = Math.max(retryAfter, state.resetSeconds);
  }
  headers["RateLimit"] = header;
  headers["RateLimit-Limit"] = String(nearest.policy.limit);
  headers["RateLimit-Remaining"] = nearestRemaining;
  headers["RateLimit-Reset"] = nearestReset;
  if (retryAfter) headers["Retry-After"] = String(retryAfter);
}
