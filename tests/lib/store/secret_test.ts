import { test } from "node:test";
import assert from "node:assert/strict";
import { readOrCreateSecret, SECRET_KEY } from "../../../lib/store/secret.ts";
import type { Store } from "../../../lib/store/store.ts";
import { createMemoryStore } from "../../../testing.ts";

/** A memory store whose first `failures` reads throw as a KV file locked by another process does. */
function createLockedStore(failures: number): { store: Store; calls: () => number } {
  const store = createMemoryStore();
  let calls = 0;
  const get: Store["get"] = (key) => {
    calls++;
    if (calls <= failures) return Promise.reject(new TypeError("database is locked"));
    return store.get(key);
  };
  return { store: { ...store, get }, calls: () => calls };
}

test("readOrCreateSecret() retries a store that is briefly locked by another process starting", async () => {
  // Found by the e2e run of two main.ts processes starting at once on one KV file: one of them
  // exited with "database is locked" while creating the secret.
  const { store, calls } = createLockedStore(3);
  const secret = await readOrCreateSecret(store);
  assert.match(secret, /^[0-9a-f]{64}$/);
  assert.equal(calls(), 4);
  assert.equal((await store.get<string>(SECRET_KEY)).value, secret);
});

test("readOrCreateSecret() gives up on a store that stays locked", async () => {
  const { store } = createLockedStore(Infinity);
  await assert.rejects(readOrCreateSecret(store), /database is locked/);
});
