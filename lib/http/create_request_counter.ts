/**
 * The counting stage of the pipeline: a request is counted against its route's rate-limit
 * policies before it is answered (spec, Limits), and the decision is kept in its context for
 * the response's `RateLimit` fields.
 *
 * @module
 */
import { ApiError } from "../contract/api_error.ts";
import type { PolicyName, RateLimitPolicy } from "../contract/contract.ts";
import { buildPolicyHeader, type RateLimitDecision, type RateLimiter } from "./rate_limit.ts";
import type { RequestContext } from "./route.ts";

/** A set of policies with its `RateLimit-Policy` value, serialised once. */
export interface Quota {
  /** The operator's policies, in the order the request is counted against them. */
  policies: readonly RateLimitPolicy[];
  /** Their `RateLimit-Policy` field value. */
  policyHeader: string;
}

/** Counts requests against quotas. */
export interface RequestCounter {
  /** The quota of the named policies, with the operator's limits. */
  toQuota(names: readonly PolicyName[]): Quota;
  /**
   * Counts the request against a quota and records the decision and the quota's
   * `RateLimit-Policy` in `context`. The in-process limiter decides synchronously, and the hot
   * path then awaits nothing; a shared limiter answers with a promise.
   */
  count(quota: Quota, context: RequestContext): RateLimitDecision | Promise<RateLimitDecision>;
}

/**
 * Creates the counter of a handler.
 *
 * @param rateLimiter The limiter that keeps the counters.
 * @param policies The policies with the operator's quotas, by name.
 */
export function createRequestCounter(
  rateLimiter: RateLimiter,
  policies: Readonly<Record<PolicyName, RateLimitPolicy>>,
): RequestCounter {
  return {
    toQuota(names) {
      const chosen = names.map((name) => policies[name]);
      return { policies: chosen, policyHeader: buildPolicyHeader(chosen) };
    },
    count(quota, context) {
      context.rateLimitPolicy = quota.policyHeader;
      const decision = rateLimiter.consume(context.clientKey, quota.policies);
      if (decision instanceof Promise) {
        return decision.then((settled) => (context.rateLimit = settled));
      }
      context.rateLimit = decision;
      return decision;
    },
  };
}

/**
 * Seconds until a refused request may be retried: the latest reset among the exhausted
 * policies, at least 1 (the value of `Retry-After`).
 *
 * @param decision A decision with `exceeded` set.
 */
export function toRetryAfterSeconds(decision: RateLimitDecision): number {
  let seconds = 1;
  for (const state of decision.states) {
    if (state.exceeded && state.resetSeconds > seconds) seconds = state.resetSeconds;
  }
  return seconds;
}

/**
 * The API's refusal of a request over its quota: 429 `rate-limited` (spec, Limits). The
 * response's `Retry-After` and `RateLimit` fields come from the decision in the context.
 */
export function toRateLimitedError(): ApiError {
  return new ApiError("rate-limited", {
    status: 429,
    message: "Too many requests from this client",
    hint: "Wait the number of seconds in Retry-After, then retry",
  });
}
