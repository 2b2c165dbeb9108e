import { test } from "node:test";
import assert from "node:assert/strict";
import { isStoreContention, retry, STORE_CONTENTION_RETRY } from "../../../lib/store/retry.ts";

/** A `sleep` that waits for nothing and records each delay asked for, in milliseconds. */
function createRecordingSleep(): {
  sleep: (milliseconds: number) => Promise<void>;
  delays: number[];
} {
  const delays: number[] = [];
  return {
    delays,
    sleep: (milliseconds) => {
      delays.push(milliseconds);
      return Promise.resolve();
    },
  };
}

/** A function that fails `failures` times with `error`, then resolves `"done"`. */
function createFlaky(failures: number, error: unknown = new TypeError("database is locked")) {
  const state = { calls: 0 };
  const fn = () => {
    state.calls++;
    return state.calls <= failures ? Promise.reject(error) : Promise.resolve("done");
  };
  return { fn, state };
}

test("retry() resolves at the first attempt that succeeds, after as many attempts as it took", async () => {
  const { sleep, delays } = createRecordingSleep();
  const { fn, state } = createFlaky(3);
  assert.equal(await retry(fn, { maxAttempts: 5, sleep }), "done");
  assert.equal(state.calls, 4);
  assert.equal(delays.length, 3);
});

test("retry() makes maxAttempts attempts and then throws the last failure itself", async () => {
  const { sleep, delays } = createRecordingSleep();
  let calls = 0;
  const fn = () => Promise.reject(new TypeError(`database is locked (${++calls})`));
  await assert.rejects(retry(fn, { maxAttempts: 4, sleep }), (error: unknown) => {
    assert.ok(error instanceof TypeError);
    assert.equal(error.message, "database is locked (4)");
    return true;
  });
  assert.equal(calls, 4);
  assert.equal(delays.length, 3, "no pause after the last attempt");
});

test("retry() throws a failure that isRetriable refuses at once", async () => {
  const { sleep, delays } = createRecordingSleep();
  const { fn, state } = createFlaky(3, new Error("Permission denied (os error 13)"));
  await assert.rejects(
    retry(fn, { maxAttempts: 10, sleep, isRetriable: isStoreContention }),
    /Permission denied/,
  );
  assert.equal(state.calls, 1);
  assert.deepEqual(delays, []);
});

test("retry() without jitter waits minTimeout × multiplier^retry, capped at maxTimeout", async () => {
  const { sleep, delays } = createRecordingSleep();
  const { fn } = createFlaky(6);
  await retry(fn, {
    maxAttempts: 7,
    minTimeout: 10,
    multiplier: 3,
    maxTimeout: 200,
    jitter: 0,
    sleep,
  });
  assert.deepEqual(delays, [10, 30, 90, 200, 200, 200]);
});

test("retry() with full jitter waits between 0 and each backoff", async () => {
  const { sleep, delays } = createRecordingSleep();
  const { fn } = createFlaky(15);
  await retry(fn, { maxAttempts: 16, minTimeout: 2, multiplier: 2, maxTimeout: 50, sleep });
  assert.equal(delays.length, 15);
  delays.forEach((delay, index) => {
    const backoff = Math.min(50, 2 * 2 ** index);
    assert.ok(delay >= 0 && delay <= backoff, `retry ${index}: ${delay} ms of ${backoff}`);
  });
});

test("retry() with half jitter waits between half of each backoff and all of it", async () => {
  const { sleep, delays } = createRecordingSleep();
  const { fn } = createFlaky(5);
  await retry(fn, { maxAttempts: 6, minTimeout: 100, multiplier: 1, jitter: 0.5, sleep });
  for (const delay of delays) assert.ok(delay >= 50 && delay <= 100, `${delay} ms`);
});

test("retry() refuses options out of range before calling fn", async () => {
  let calls = 0;
  const fn = () => Promise.resolve(++calls);
  for (
    const options of [
      { maxAttempts: 0 },
      { maxAttempts: 1.5 },
      { multiplier: 0.5 },
      { maxTimeout: 0 },
      { minTimeout: -1 },
      { minTimeout: 100, maxTimeout: 50 },
      { jitter: 1.5 },
    ]
  ) {
    await assert.rejects(retry(fn, options), RangeError, JSON.stringify(options));
  }
  assert.equal(calls, 0);
});

test("retry() waits for real with setTimeout by default", async () => {
  const { fn, state } = createFlaky(2);
  const started = performance.now();
  assert.equal(await retry(fn, { minTimeout: 20, jitter: 0 }), "done");
  assert.equal(state.calls, 3);
  // 20 ms then 40 ms; timers may fire a little early on some runtimes.
  assert.ok(performance.now() - started >= 55);
});

test("isStoreContention() recognises SQLite's locked and busy answers and nothing else", () => {
  for (
    const error of [
      new TypeError("database is locked"),
      new Error("database is locked: /var/lib/studio/data.kv"),
      new Error("Database Is Busy"),
      new Error("SQLITE_BUSY: cannot commit"),
      "database is locked",
    ]
  ) {
    assert.equal(isStoreContention(error), true, String(error));
  }
  for (
    const error of [
      new Error("Permission denied (os error 13)"),
      new Error("Bad resource ID"),
      new Error("The store is closed"),
      undefined,
    ]
  ) {
    assert.equal(isStoreContention(error), false, String(error));
  }
});

test("STORE_CONTENTION_RETRY makes twelve attempts over at most 3.13 s, each wait half to all of a doubling backoff, for a locked store only", async () => {
  const { sleep, delays } = createRecordingSleep();
  const locked = createFlaky(Infinity);
  await assert.rejects(
    retry(locked.fn, { ...STORE_CONTENTION_RETRY, sleep }),
    /database is locked/,
  );
  assert.equal(locked.state.calls, 12);
  const backoffs = [10, 20, 40, 80, 160, 320, 500, 500, 500, 500, 500];
  assert.equal(delays.length, backoffs.length);
  for (const [index, delay] of delays.entries()) {
    assert.ok(
      delay >= backoffs[index] / 2 && delay <= backoffs[index],
      `${delay} of ${backoffs[index]}`,
    );
  }
  assert.ok(delays.reduce((sum, delay) => sum + delay, 0) <= 3130);
  const failing = createFlaky(Infinity, new Error("Quota exceeded"));
  await assert.rejects(retry(failing.fn, { ...STORE_CONTENTION_RETRY, sleep }), /Quota/);
  assert.equal(failing.state.calls, 1);
});
