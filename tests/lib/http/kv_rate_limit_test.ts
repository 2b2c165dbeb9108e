import { test } from "node:test";
import assert from "node:assert/strict";
import { createKvRateLimiter, RATE_LIMIT_PREFIX } from "../../../lib/http/kv_rate_limit.ts";
import { createRateLimiter, type RateLimitDecision } from "../../../lib/http/rate_limit.ts";
import type { RateLimitPolicy } from "../../../lib/contract/contract.ts";
import type { KvSetOptions, Store } from "../../../lib/store/store.ts";
import { createSampleHandler } from "../../_fixture_studio.ts";
import { createRecordingLogger } from "../../_support.ts";
import { openKvFile, RUNTIME } from "../../_kv.ts";
import { createMemoryStore } from "../../../testing.ts";

const WRITE: RateLimitPolicy = { name: "write", limit: 10, windowSeconds: 60, appliesTo: "POST" };
const BOOKING: RateLimitPolicy = {
  name: "booking",
  limit: 5,
  windowSeconds: 300,
  appliesTo: "POST /api/v1/booking",
};

/** 2026-01-01T00:00:00Z plus 15 s: a whole minute and five minutes since the epoch, then some. */
const START_MILLISECONDS = Date.UTC(2026, 0, 1, 0, 0, 15);

function createClock(milliseconds = START_MILLISECONDS) {
  const clock = { milliseconds, now: () => clock.milliseconds };
  return clock;
}

async function consumeTimes(
  limiter: { consume: (key: string, policies: RateLimitPolicy[]) => unknown },
  clientKey: string,
  policies: RateLimitPolicy[],
  times: number,
): Promise<RateLimitDecision[]> {
  const decisions: RateLimitDecision[] = [];
  for (let index = 0; index < times; index++) {
    decisions.push(await (limiter.consume(clientKey, policies) as Promise<RateLimitDecision>));
  }
  return decisions;
}

test("createKvRateLimiter() counts one client together across limiters on one store", async () => {
  const clock = createClock();
  const store = createMemoryStore();
  const first = createKvRateLimiter({ store, nowMilliseconds: clock.now });
  const second = createKvRateLimiter({ store, nowMilliseconds: clock.now });
  const early = await consumeTimes(first, "203.0.113.7", [WRITE], 6);
  const late = await consumeTimes(second, "203.0.113.7", [WRITE], 4);
  assert.deepEqual(
    [...early, ...late].map((decision) => decision.states[0].remaining),
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
  );
  assert.ok([...early, ...late].every((decision) => !decision.exceeded));
  const refused = await first.consume("203.0.113.7", [WRITE]);
  assert.equal(refused.exceeded, true);
  assert.equal(refused.states[0].remaining, 0);
  assert.equal(refused.states[0].resetSeconds, 45);
  const other = await second.consume("198.51.100.9", [WRITE]);
  assert.equal(other.exceeded, false, "another client has its own counter");
});

test("createKvRateLimiter() decides as createRateLimiter() does, window by window", async () => {
  const clock = createClock();
  const store = createMemoryStore();
  const shared = createKvRateLimiter({ store, nowMilliseconds: clock.now });
  const local = createRateLimiter({ nowMilliseconds: clock.now });
  for (let step = 0; step < 40; step++) {
    clock.milliseconds += 7_000;
    const policies = step % 3 ? [WRITE] : [WRITE, BOOKING];
    assert.deepEqual(
      await shared.consume("203.0.113.7", policies),
      local.consume("203.0.113.7", policies),
      `step ${step}`,
    );
  }
});

test("createKvRateLimiter() writes each counter to expire a second after its window ends", async () => {
  const clock = createClock();
  const inner = createMemoryStore();
  const writes: Array<{ key: readonly unknown[]; value: unknown; options?: KvSetOptions }> = [];
  const store: Store = {
    ...inner,
    get: (key) => inner.get(key),
    atomic() {
      const operation = inner.atomic();
      const set = operation.set.bind(operation);
      operation.set = (key, value, options) => {
        writes.push({ key, value, options });
        return set(key, value, options);
      };
      return operation;
    },
  };
  const limiter = createKvRateLimiter({ store, nowMilliseconds: clock.now });
  await limiter.consume("203.0.113.7", [WRITE, BOOKING]);
  assert.deepEqual(writes, [
    {
      key: [...RATE_LIMIT_PREFIX, "write", Math.floor(START_MILLISECONDS / 60_000), "203.0.113.7"],
      value: 1,
      options: { expireIn: 45_000 + 1000 },
    },
    {
      key: [
        ...RATE_LIMIT_PREFIX,
        "booking",
        Math.floor(START_MILLISECONDS / 300_000),
        "203.0.113.7",
      ],
      value: 1,
      options: { expireIn: 285_000 + 1000 },
    },
  ]);
  clock.milliseconds += 46_000;
  const fresh = await limiter.consume("203.0.113.7", [WRITE]);
  assert.equal(fresh.states[0].remaining, 9, "a new window starts from zero");
});

test("createKvRateLimiter() refuses an exhausted client without writing", async () => {
  const clock = createClock();
  const inner = createMemoryStore();
  let commits = 0;
  const store: Store = {
    ...inner,
    get: (key) => inner.get(key),
    atomic() {
      const operation = inner.atomic();
      const commit = operation.commit.bind(operation);
      operation.commit = () => {
        commits++;
        return commit();
      };
      return operation;
    },
  };
  const limiter = createKvRateLimiter({ store, nowMilliseconds: clock.now });
  await consumeTimes(limiter, "203.0.113.7", [WRITE], 10);
  assert.equal(commits, 10);
  const refused = await consumeTimes(limiter, "203.0.113.7", [WRITE], 5);
  assert.ok(refused.every((decision) => decision.exceeded));
  assert.equal(commits, 10, "refusals only read");
});

/** A store whose reads fail with `error` while `failing.now` is true. */
function createFailingStore(error: Error) {
  const inner = createMemoryStore();
  const failing = { now: true };
  const store: Store = {
    ...inner,
    get: (key) => failing.now ? Promise.reject(error) : inner.get(key),
  };
  return { store, failing, close: () => inner.close() };
}

test("createKvRateLimiter() counts in the process and warns once a minute when the store fails", async () => {
  const clock = createClock();
  const { store, close } = createFailingStore(new Error("disk I/O error"));
  const logger = createRecordingLogger();
  const limiter = createKvRateLimiter({ store, nowMilliseconds: clock.now, logger });
  const decisions = await consumeTimes(limiter, "203.0.113.7", [WRITE], 11);
  assert.deepEqual(
    decisions.map((decision) => decision.exceeded),
    [...Array(10).fill(false), true],
    "the limit still holds, in this process",
  );
  assert.deepEqual(logger.records, [{
    level: "warn",
    message: "Rate-limit store failed; counting in this process",
    fields: { error: "disk I/O error" },
  }]);
  clock.milliseconds += 61_000;
  await limiter.consume("203.0.113.7", [WRITE]);
  assert.equal(logger.records.length, 2);
  close();
});

test("createKvRateLimiter() resumes from this instance's count when the store fails mid-window", async () => {
  const clock = createClock();
  const { store, failing, close } = createFailingStore(new Error("disk I/O error"));
  failing.now = false;
  const limiter = createKvRateLimiter({ store, nowMilliseconds: clock.now });
  const before = await consumeTimes(limiter, "203.0.113.7", [WRITE], 6);
  assert.equal(before.at(-1)?.states[0].remaining, 4);
  failing.now = true;
  const after = await consumeTimes(limiter, "203.0.113.7", [WRITE], 5);
  assert.deepEqual(
    after.map((decision) => decision.exceeded),
    [false, false, false, false, true],
    "4 more, not a fresh quota of 10",
  );
  close();
});

test("createKvRateLimiter() retries a locked file and counts once the lock clears", async () => {
  const clock = createClock();
  const { store, failing, close } = createFailingStore(new Error("database is locked"));
  const logger = createRecordingLogger();
  const limiter = createKvRateLimiter({ store, nowMilliseconds: clock.now, logger });
  setTimeout(() => failing.now = false, 20);
  const decision = await limiter.consume("203.0.113.7", [WRITE]);
  assert.equal(decision.exceeded, false);
  assert.equal(decision.states[0].remaining, 9);
  assert.deepEqual(logger.records, [], "no fallback, no warning");
  // The count reached the store: a second limiter on it sees it.
  const other = createKvRateLimiter({ store, nowMilliseconds: clock.now });
  assert.equal((await other.consume("203.0.113.7", [WRITE])).states[0].remaining, 8);
  close();
});

test("createKvRateLimiter() refuses, rather than counting apart, a request whose own counter stays contended", async () => {
  const clock = createClock();
  const inner = createMemoryStore();
  // Every commit finds the counter changed meanwhile, as when the client's requests race.
  const store: Store = {
    ...inner,
    get: (key) => inner.get(key),
    atomic() {
      const operation = inner.atomic();
      operation.commit = () => Promise.resolve({ ok: false });
      return operation;
    },
  };
  const logger = createRecordingLogger();
  const limiter = createKvRateLimiter({
    store,
    nowMilliseconds: clock.now,
    logger,
    maxAttempts: 3,
  });
  const decision = await limiter.consume("203.0.113.7", [WRITE, BOOKING]);
  assert.equal(decision.exceeded, true);
  assert.deepEqual(
    decision.states.map((state) => [state.policy.name, state.remaining, state.resetSeconds]),
    [["write", 0, 45], ["booking", 0, 285]],
  );
  assert.deepEqual(logger.records, [{
    level: "warn",
    message: "Rate-limit counters stayed contended; refusing the request",
    fields: undefined,
  }]);
  inner.close();
});

test("createKvRateLimiter() counts in the process, rather than refusing, while the file stays locked", async () => {
  const clock = createClock();
  const { store, close } = createFailingStore(new Error("database is locked"));
  const logger = createRecordingLogger();
  const limiter = createKvRateLimiter({
    store,
    nowMilliseconds: clock.now,
    logger,
    maxAttempts: 3,
  });
  // Another process's load locks the file: a client within its quota is still served, and the
  // quota still holds, in this process.
  const decisions = await consumeTimes(limiter, "203.0.113.7", [WRITE], 11);
  assert.deepEqual(
    decisions.map((decision) => decision.exceeded),
    [...Array(10).fill(false), true],
  );
  assert.deepEqual(logger.records, [{
    level: "warn",
    message: "Rate-limit store failed; counting in this process",
    fields: { error: "database is locked" },
  }]);
  close();
});

test("createKvRateLimiter() admits exactly the limit to simultaneous requests of four instances on one KV", async () => {
  const store = await openKvFile(":memory:");
  try {
    const clock = createClock();
    const limiters = Array.from(
      { length: 4 },
      () => createKvRateLimiter({ store, nowMilliseconds: clock.now, maxAttempts: 1000 }),
    );
    const policy: RateLimitPolicy = { ...WRITE, limit: 25 };
    const decisions = await Promise.all(
      Array.from({ length: 40 }, (_, index) => limiters[index % 4].consume("client", [policy])),
    );
    assert.equal(decisions.filter((decision) => !decision.exceeded).length, 25);
    assert.deepEqual(
      decisions.filter((decision) => !decision.exceeded)
        .map((decision) => decision.states[0].remaining).sort((a, b) => a - b),
      Array.from({ length: 25 }, (_, index) => index),
      "each admitted request saw its own count",
    );
  } finally {
    store.close();
  }
});

test(`createHandler() with a KV rate limiter answers 429 once instances on one store used the quota together (${RUNTIME})`, async () => {
  const store = createMemoryStore();
  const handlers = [1, 2].map(() =>
    createSampleHandler({
      store,
      rateLimits: { read: 3 },
      rateLimiter: createKvRateLimiter({ store }),
      logger: createRecordingLogger(),
    })
  );
  const info = { remoteAddr: { hostname: "203.0.113.7" } };
  const statuses: number[] = [];
  for (const handler of [...handlers, ...handlers]) {
    const response = await handler(new Request("http://localhost:8000/api/v1/health"), info);
    await response.body?.cancel();
    statuses.push(response.status);
  }
  assert.deepEqual(statuses, [200, 200, 200, 429]);
  const missing = await handlers[0](new Request("http://localhost:8000/api/v1/nowhere"), info);
  assert.equal(missing.status, 429, "the 404 fallback counts through the same limiter");
  assert.equal(missing.headers.get("RateLimit-Remaining"), "0");
  await missing.body?.cancel();
});
