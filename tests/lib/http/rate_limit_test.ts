import { test } from "node:test";
import assert from "node:assert/strict";
import { parseList } from "structured-headers";
import {
  buildPolicyHeader,
  buildRateLimitHeader,
  createRateLimiter,
  type PolicyState,
  type RateLimitDecision,
  setRateLimitHeaders,
} from "../../../lib/http/rate_limit.ts";
import type { RateLimitPolicy } from "../../../lib/contract/contract.ts";

const WRITE: RateLimitPolicy = {
  name: "write",
  limit: 10,
  windowSeconds: 60,
  appliesTo: "POST requests",
};
const BOOKING: RateLimitPolicy = {
  name: "booking",
  limit: 5,
  windowSeconds: 300,
  appliesTo: "POST /api/v1/booking",
};
const READ: RateLimitPolicy = {
  name: "read",
  limit: 120,
  windowSeconds: 60,
  appliesTo: "GET requests",
};

/** 2026-01-01T00:00:00Z: a whole minute and a whole five minutes since the epoch. */
const WINDOW_START_MILLISECONDS = Date.UTC(2026, 0, 1, 0, 0, 0);

/** A limiter whose clock reads `clock.milliseconds`, which the test moves by hand. */
function createFakeClockLimiter(maxClients?: number) {
  const clock = { milliseconds: WINDOW_START_MILLISECONDS };
  const limiter = createRateLimiter({ nowMilliseconds: () => clock.milliseconds, maxClients });
  return { clock, limiter };
}

function consumeTimes(
  limiter: ReturnType<typeof createRateLimiter>,
  clientKey: string,
  policies: readonly RateLimitPolicy[],
  times: number,
): RateLimitDecision[] {
  return Array.from({ length: times }, () => limiter.consume(clientKey, policies));
}

const RATE_LIMIT_HEADER_NAMES = [
  "RateLimit",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "Retry-After",
];

/** The headers setRateLimitHeaders() writes into an empty record, by their canonical names. */
function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {};
  setRateLimitHeaders(headers, decision);
  for (const name of Object.keys(headers)) {
    assert.ok(RATE_LIMIT_HEADER_NAMES.includes(name), `no other header is set: ${name}`);
  }
  return headers;
}

function state(
  policy: RateLimitPolicy,
  remaining: number,
  resetSeconds: number,
  exceeded = false,
): PolicyState {
  return { policy, remaining, resetSeconds, exceeded };
}

test("createRateLimiter() accepts the 10th write in a 60 s window", () => {
  const { limiter } = createFakeClockLimiter();
  const decisions = consumeTimes(limiter, "203.0.113.7", [WRITE], 10);
  assert.deepEqual(
    decisions.map((decision) => decision.exceeded),
    Array(10).fill(false),
  );
  assert.deepEqual(
    decisions.map((decision) => decision.states[0].remaining),
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
  );
});

test("createRateLimiter() rejects the 11th write in a 60 s window", () => {
  const { limiter } = createFakeClockLimiter();
  consumeTimes(limiter, "203.0.113.7", [WRITE], 10);
  const decision = limiter.consume("203.0.113.7", [WRITE]);
  assert.equal(decision.exceeded, true);
  assert.deepEqual(decision.states, [state(WRITE, 0, 60, true)]);
});

test("createRateLimiter() never reports remaining below 0", () => {
  const { limiter } = createFakeClockLimiter();
  const decisions = consumeTimes(limiter, "203.0.113.7", [WRITE], 25);
  const remaining = decisions.map((decision) => decision.states[0].remaining);
  assert.deepEqual(remaining.slice(9), Array(16).fill(0));
  assert.deepEqual(
    decisions.map((decision) => decision.exceeded),
    [...Array(10).fill(false), ...Array(15).fill(true)],
  );
});

test("createRateLimiter() reports resetSeconds as the whole seconds left in the window, rounded up", () => {
  const { clock, limiter } = createFakeClockLimiter();
  const cases: Array<[offsetMilliseconds: number, policy: RateLimitPolicy, expected: number]> = [
    [0, WRITE, 60],
    [1, WRITE, 60],
    [999, WRITE, 60],
    [1_000, WRITE, 59],
    [30_250, WRITE, 30],
    [59_000, WRITE, 1],
    [59_500, WRITE, 1],
    [59_999, WRITE, 1],
    [0, BOOKING, 300],
    [100_000, BOOKING, 200],
    [299_001, BOOKING, 1],
  ];
  for (const [offsetMilliseconds, policy, expected] of cases) {
    clock.milliseconds = WINDOW_START_MILLISECONDS + offsetMilliseconds;
    const [policyState] = limiter.consume(`client-${offsetMilliseconds}`, [policy]).states;
    assert.equal(
      policyState.resetSeconds,
      expected,
      `${policy.name} at +${offsetMilliseconds} ms should reset in ${expected} s`,
    );
    assert.ok(policyState.resetSeconds >= 1);
  }
});

test("createRateLimiter() aligns windows to the epoch, not to a client's first request", () => {
  const { clock, limiter } = createFakeClockLimiter();
  clock.milliseconds = WINDOW_START_MILLISECONDS + 50_000;
  const first = limiter.consume("203.0.113.7", [WRITE]);
  assert.deepEqual(first.states, [state(WRITE, 9, 10)]);
  clock.milliseconds = WINDOW_START_MILLISECONDS + 60_000;
  const next = limiter.consume("203.0.113.7", [WRITE]);
  assert.deepEqual(next.states, [state(WRITE, 9, 60)]);
});

test("createRateLimiter() resets the counters at the window boundary", () => {
  const { clock, limiter } = createFakeClockLimiter();
  consumeTimes(limiter, "203.0.113.7", [WRITE], 10);
  clock.milliseconds = WINDOW_START_MILLISECONDS + 59_999;
  const last = limiter.consume("203.0.113.7", [WRITE]);
  assert.equal(last.exceeded, true);
  assert.deepEqual(last.states, [state(WRITE, 0, 1, true)]);
  clock.milliseconds = WINDOW_START_MILLISECONDS + 60_000;
  const fresh = limiter.consume("203.0.113.7", [WRITE]);
  assert.equal(fresh.exceeded, false);
  assert.deepEqual(fresh.states, [state(WRITE, 9, 60)]);
});

test("createRateLimiter() keeps a 300 s booking window across five 60 s write windows", () => {
  const { clock, limiter } = createFakeClockLimiter();
  const policies = [WRITE, BOOKING];
  consumeTimes(limiter, "203.0.113.7", policies, 5);
  clock.milliseconds = WINDOW_START_MILLISECONDS + 240_000;
  const decision = limiter.consume("203.0.113.7", policies);
  assert.equal(decision.exceeded, true);
  assert.deepEqual(decision.states, [state(WRITE, 9, 60), state(BOOKING, 0, 60, true)]);
  clock.milliseconds = WINDOW_START_MILLISECONDS + 300_000;
  const fresh = limiter.consume("203.0.113.7", policies);
  assert.equal(fresh.exceeded, false);
  assert.deepEqual(fresh.states, [state(WRITE, 9, 60), state(BOOKING, 4, 300)]);
});

test("createRateLimiter() counts each client separately", () => {
  const { limiter } = createFakeClockLimiter();
  consumeTimes(limiter, "203.0.113.7", [WRITE], 11);
  const other = limiter.consume("198.51.100.9", [WRITE]);
  assert.equal(other.exceeded, false);
  assert.deepEqual(other.states, [state(WRITE, 9, 60)]);
  const again = limiter.consume("203.0.113.7", [WRITE]);
  assert.equal(again.exceeded, true);
});

test("createRateLimiter() counts one request against write 10/60 and booking 5/300 at once", () => {
  const { clock, limiter } = createFakeClockLimiter();
  clock.milliseconds = WINDOW_START_MILLISECONDS + 15_000;
  const decisions = consumeTimes(limiter, "203.0.113.7", [WRITE, BOOKING], 6);
  assert.deepEqual(decisions[4].states, [state(WRITE, 5, 45), state(BOOKING, 0, 285)]);
  assert.equal(decisions[4].exceeded, false);
  assert.deepEqual(decisions[5].states, [state(WRITE, 4, 45), state(BOOKING, 0, 285, true)]);
  assert.equal(decisions[5].exceeded, true);
  // The legacy headers follow booking, the policy nearer exhaustion.
  const headers = rateLimitHeaders(decisions[2]);
  assert.equal(headers["RateLimit-Limit"], "5");
  assert.equal(headers["RateLimit-Remaining"], "2");
  assert.equal(headers["RateLimit-Reset"], "285");
});

test("createRateLimiter() forgets the least recently seen client when a new one arrives at maxClients", () => {
  const { limiter } = createFakeClockLimiter(3);
  for (const client of ["192.0.2.1", "192.0.2.2", "192.0.2.3"]) {
    assert.deepEqual(limiter.consume(client, [WRITE]).states, [state(WRITE, 9, 60)]);
  }
  // 192.0.2.1 is seen again: 192.0.2.2 is now the least recent.
  assert.deepEqual(limiter.consume("192.0.2.1", [WRITE]).states, [state(WRITE, 8, 60)]);
  // A newcomer gets a counter of its own (not one shared with other newcomers) ...
  assert.deepEqual(limiter.consume("192.0.2.4", [WRITE]).states, [state(WRITE, 9, 60)]);
  assert.deepEqual(limiter.consume("192.0.2.5", [WRITE]).states, [state(WRITE, 9, 60)]);
  // ... and the clients seen most recently kept theirs: 192.0.2.1 still counts on ...
  assert.deepEqual(limiter.consume("192.0.2.1", [WRITE]).states, [state(WRITE, 7, 60)]);
  // ... while 192.0.2.2 and 192.0.2.3, quiet since, were forgotten.
  assert.deepEqual(limiter.consume("192.0.2.2", [WRITE]).states, [state(WRITE, 9, 60)]);
});

test("createRateLimiter() keeps the client seen last as the most recent when it is seen again", () => {
  const { limiter } = createFakeClockLimiter(3);
  for (const client of ["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.3", "192.0.2.1"]) {
    limiter.consume(client, [WRITE]);
  }
  // In order of last sight: 192.0.2.2, 192.0.2.3, 192.0.2.1. A newcomer pushes out 192.0.2.2.
  assert.deepEqual(limiter.consume("192.0.2.4", [WRITE]).states, [state(WRITE, 9, 60)]);
  assert.deepEqual(limiter.consume("192.0.2.3", [WRITE]).states, [state(WRITE, 7, 60)]);
  assert.deepEqual(limiter.consume("192.0.2.3", [WRITE]).states, [state(WRITE, 6, 60)]);
  assert.deepEqual(limiter.consume("192.0.2.1", [WRITE]).states, [state(WRITE, 7, 60)]);
  assert.deepEqual(limiter.consume("192.0.2.2", [WRITE]).states, [state(WRITE, 9, 60)]);
});

test("createRateLimiter() keeps serving new clients through a flood of distinct addresses", () => {
  const { limiter } = createFakeClockLimiter(1_000);
  // An active abuser exhausts its quota and keeps sending between the flood's requests.
  const abuser = "2001:db8:ffff::/64";
  for (let request = 0; request < 10; request++) limiter.consume(abuser, [WRITE]);
  // 20 times the table's size of addresses, each exhausting its own quota.
  for (let flood = 0; flood < 20_000; flood++) {
    const client = `2001:db8:${flood.toString(16)}::/64`;
    for (let request = 0; request < 11; request++) limiter.consume(client, [WRITE]);
    if (flood % 100 === 0) assert.ok(limiter.consume(abuser, [WRITE]).exceeded, "abuser refused");
  }
  // A first-time visitor has a full quota, and the abuser is still refused.
  assert.deepEqual(limiter.consume("192.0.2.200", [WRITE]).states, [state(WRITE, 9, 60)]);
  assert.equal(limiter.consume(abuser, [WRITE]).exceeded, true);
});

test("createRateLimiter() frees the old window's clients when a new window starts", () => {
  const { clock, limiter } = createFakeClockLimiter(3);
  for (const client of ["192.0.2.1", "192.0.2.2", "192.0.2.3"]) {
    for (let request = 0; request < 11; request++) limiter.consume(client, [WRITE]);
  }
  clock.milliseconds = WINDOW_START_MILLISECONDS + 60_000;
  for (const client of ["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"]) {
    assert.deepEqual(limiter.consume(client, [WRITE]).states, [state(WRITE, 9, 60)], client);
  }
});

test("buildPolicyHeader() serialises write 10/60 and booking 5/300 as a Structured Fields List", () => {
  assert.equal(buildPolicyHeader([WRITE, BOOKING]), `"write";q=10;w=60, "booking";q=5;w=300`);
  assert.equal(buildPolicyHeader([READ]), `"read";q=120;w=60`);
});

test("setRateLimitHeaders() reports a single policy without Retry-After when not exceeded", () => {
  const headers = rateLimitHeaders({ states: [state(WRITE, 7, 42)], exceeded: false });
  assert.deepEqual(headers, {
    "RateLimit": `"write";r=7;t=42`,
    "RateLimit-Limit": "10",
    "RateLimit-Remaining": "7",
    "RateLimit-Reset": "42",
  });
});

test("setRateLimitHeaders() gives the legacy headers of the policy with the fewest remaining", () => {
  for (
    const states of [
      [state(WRITE, 6, 45), state(BOOKING, 2, 285)],
      [state(BOOKING, 2, 285), state(WRITE, 6, 45)],
    ]
  ) {
    const headers = rateLimitHeaders({ states, exceeded: false });
    assert.equal(headers["RateLimit-Limit"], "5");
    assert.equal(headers["RateLimit-Remaining"], "2");
    assert.equal(headers["RateLimit-Reset"], "285");
  }
  const writeNearer = rateLimitHeaders({
    states: [state(WRITE, 1, 45), state(BOOKING, 3, 285)],
    exceeded: false,
  });
  assert.equal(writeNearer["RateLimit-Limit"], "10");
  assert.equal(writeNearer["RateLimit-Remaining"], "1");
  assert.equal(writeNearer["RateLimit-Reset"], "45");
});

test("setRateLimitHeaders() breaks a tie in remaining with the later reset", () => {
  for (
    const states of [
      [state(WRITE, 2, 45), state(BOOKING, 2, 285)],
      [state(BOOKING, 2, 285), state(WRITE, 2, 45)],
    ]
  ) {
    const headers = rateLimitHeaders({ states, exceeded: false });
    assert.equal(headers["RateLimit-Limit"], "5");
    assert.equal(headers["RateLimit-Remaining"], "2");
    assert.equal(headers["RateLimit-Reset"], "285");
  }
  const writeLater = rateLimitHeaders({
    states: [state(BOOKING, 0, 20, true), state(WRITE, 0, 50, true)],
    exceeded: true,
  });
  assert.equal(writeLater["RateLimit-Limit"], "10");
  assert.equal(writeLater["RateLimit-Reset"], "50");
});

test("setRateLimitHeaders() omits Retry-After unless the decision is exceeded", () => {
  const { limiter } = createFakeClockLimiter();
  const decisions = consumeTimes(limiter, "203.0.113.7", [WRITE, BOOKING], 5);
  for (const decision of decisions) {
    assert.equal("Retry-After" in rateLimitHeaders(decision), false);
  }
});

test("setRateLimitHeaders() sets Retry-After to the reset of the exceeded policy", () => {
  const { clock, limiter } = createFakeClockLimiter();
  clock.milliseconds = WINDOW_START_MILLISECONDS + 15_500;
  consumeTimes(limiter, "203.0.113.7", [WRITE], 10);
  const headers = rateLimitHeaders(limiter.consume("203.0.113.7", [WRITE]));
  assert.equal(headers["Retry-After"], "45");
  assert.equal(headers["RateLimit-Remaining"], "0");
});

test("setRateLimitHeaders() sets Retry-After to the latest reset among exceeded policies only", () => {
  const onlyBooking = rateLimitHeaders({
    states: [state(WRITE, 4, 45), state(BOOKING, 0, 285, true)],
    exceeded: true,
  });
  assert.equal(onlyBooking["Retry-After"], "285");
  const onlyWrite = rateLimitHeaders({
    states: [state(WRITE, 0, 45, true), state(BOOKING, 3, 285)],
    exceeded: true,
  });
  assert.equal(onlyWrite["Retry-After"], "45");
  const both = rateLimitHeaders({
    states: [state(BOOKING, 0, 120, true), state(WRITE, 0, 45, true), state(READ, 10, 200)],
    exceeded: true,
  });
  assert.equal(both["Retry-After"], "120");
});

test("buildRateLimitHeader() writes r and t per policy that parse back as a Structured Fields List", () => {
  const { clock, limiter } = createFakeClockLimiter();
  clock.milliseconds = WINDOW_START_MILLISECONDS + 100_250;
  consumeTimes(limiter, "203.0.113.7", [WRITE, BOOKING], 5);
  const decision = limiter.consume("203.0.113.7", [WRITE, BOOKING]);
  assert.equal(buildRateLimitHeader(decision), `"write";r=4;t=20, "booking";r=0;t=200`);
  const headers = rateLimitHeaders(decision);
  assert.equal(headers["RateLimit"], buildRateLimitHeader(decision));
  const parsed = parseList(headers["RateLimit"]);
  assert.equal(parsed.length, 2);
  const [write, booking] = parsed;
  assert.equal(write[0], "write");
  assert.deepEqual([...write[1]], [["r", 4], ["t", 20]]);
  assert.equal(booking[0], "booking");
  assert.deepEqual([...booking[1]], [["r", 0], ["t", 200]]);
  assert.equal(headers["Retry-After"], "200");
});

test("buildRateLimitHeader() serialises one policy and an empty decision", () => {
  assert.equal(
    buildRateLimitHeader({ states: [state(READ, 119, 60)], exceeded: false }),
    `"read";r=119;t=60`,
  );
  assert.equal(buildRateLimitHeader({ states: [], exceeded: false }), "");
});
