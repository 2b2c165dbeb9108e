import { test } from "node:test";
import assert from "node:assert/strict";
import { createLazyStore } from "../../../lib/store/lazy_store.ts";
import type { Store } from "../../../lib/store/store.ts";
import { createMemoryStore } from "../../../testing.ts";

test("createMemoryStore() gives each call a store of its own", async () => {
  const one = createMemoryStore();
  const two = createMemoryStore();
  await one.set(["key"], "one");
  assert.equal((await two.get(["key"])).value, null);
  one.close();
  two.close();
});

test("createMemoryStore() commits an atomic check-and-set once, and lists in key order", async () => {
  const store = createMemoryStore();
  const claim = (value: string) =>
    store.atomic().check({ key: ["slot", 2], versionstamp: null }).set(["slot", 2], value)
      .commit();
  const [first, second] = await Promise.all([claim("a"), claim("b")]);
  assert.deepEqual([first.ok, second.ok].sort(), [false, true]);
  await store.set(["slot", 1], "x", { expireIn: 60_000 });
  await store.set(["slot", 10], "y");
  const keys: unknown[] = [];
  for await (const entry of store.list({ prefix: ["slot"] })) keys.push(entry.key);
  assert.deepEqual(keys, [["slot", 1], ["slot", 2], ["slot", 10]]);
  const reversed: unknown[] = [];
  for await (const entry of store.list({ prefix: ["slot"] }, { reverse: true, limit: 2 })) {
    reversed.push(entry.key);
  }
  assert.deepEqual(reversed, [["slot", 10], ["slot", 2]]);
  store.close();
});

test("createMemoryStore() keeps a key written with expireIn, even beyond 2^31 ms, without a timer", async () => {
  const store = createMemoryStore();
  const ninetyDays = 90 * 86_400_000;
  await store.atomic().set(["inquiry", "01J"], { id: "01J" }, { expireIn: ninetyDays }).commit();
  await store.set(["rate_limit", "write"], 1, { expireIn: 1 });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual((await store.get(["inquiry", "01J"])).value, { id: "01J" });
  assert.equal((await store.get(["rate_limit", "write"])).value, 1, "best effort: kept");
  store.close();
});

test("createMemoryStore() copies values when they are written", async () => {
  const store = createMemoryStore();
  const value = { names: ["Ana"] };
  const operation = store.atomic().set(["person"], value);
  value.names.push("Rui");
  await operation.commit();
  assert.deepEqual((await store.get(["person"])).value, { names: ["Ana"] });
  store.close();
});

test("createLazyStore() opens the store once, on first use, and rejects every call after close()", async () => {
  let opened = 0;
  const store = createLazyStore((): Promise<Store> => {
    opened++;
    return Promise.resolve(createMemoryStore());
  });
  const operation = store.atomic();
  assert.equal(opened, 0);
  await Promise.all([store.get(["a"]), store.set(["b"], 1), operation.set(["c"], 2).commit()]);
  assert.equal(opened, 1);
  assert.equal((await store.get(["c"])).value, 2);
  store.close();
  await assert.rejects(store.get(["a"]), /The store is closed/);
  await assert.rejects(store.atomic().set(["d"], 1).commit(), /The store is closed/);
  await assert.rejects(async () => {
    for await (const _ of store.list({ prefix: [] })) break;
  }, /The store is closed/);
  assert.throws(() => store.close(), /The store is closed/);
});

test("createLazyStore() hands the failure of open to every call", async () => {
  const store = createLazyStore(() => Promise.reject(new TypeError("database is locked")));
  await assert.rejects(store.get(["a"]), /database is locked/);
  await assert.rejects(store.atomic().delete(["a"]).commit(), /database is locked/);
  store.close();
});

test("createLazyStore() opens again on the next call after open failed", async () => {
  let attempts = 0;
  const store = createLazyStore((): Promise<Store> => {
    attempts++;
    return attempts === 1
      ? Promise.reject(new TypeError("database is locked"))
      : Promise.resolve(createMemoryStore());
  });
  await assert.rejects(store.get(["a"]), /database is locked/);
  await store.set(["a"], 1);
  assert.equal((await store.get(["a"])).value, 1);
  assert.equal(attempts, 2);
  store.close();
});

test("createLazyStore() closes a store that opens after close()", async () => {
  let closed = 0;
  let finishOpening: (store: Store) => void = () => {};
  const store = createLazyStore(() => new Promise<Store>((resolve) => finishOpening = resolve));
  const reading = store.get(["a"]);
  store.close();
  const opened = createMemoryStore();
  finishOpening({
    ...opened,
    close() {
      closed++;
      opened.close();
    },
  });
  await assert.rejects(reading, /The store is closed/);
  assert.equal(closed, 1);
});
