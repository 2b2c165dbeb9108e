import { test } from "node:test";
import assert from "node:assert/strict";
import { createGroupCommit } from "../../../lib/store/group_commit.ts";
import type { AtomicOperation, KvCommitResult, Store } from "../../../lib/store/store.ts";
import { createMemoryStore } from "../../../testing.ts";

/** The store, counting the commits that reach it and how many writes each carried. */
function countCommits(inner: Store): { store: Store; commits: number[] } {
  const commits: number[] = [];
  const store: Store = {
    ...inner,
    atomic(): AtomicOperation {
      const operation = inner.atomic();
      let writes = 0;
      const counted: AtomicOperation = {
        check(...checks) {
          operation.check(...checks);
          return this;
        },
        set(key, value, options) {
          writes++;
          operation.set(key, value, options);
          return this;
        },
        delete(key) {
          writes++;
          operation.delete(key);
          return this;
        },
        commit(): Promise<KvCommitResult> {
          commits.push(writes);
          return operation.commit();
        },
      };
      return counted;
    },
  };
  return { store, commits };
}

const claim = (group: ReturnType<typeof createGroupCommit>, id: string, value: unknown = id) =>
  group.atomic().check({ key: ["inquiry", id], versionstamp: null })
    .set(["inquiry", id], value).set(["outbox", id], `mail of ${id}`).commit();

test("createGroupCommit() commits alone when the store is idle, and joins what arrives meanwhile", async () => {
  const inner = createMemoryStore();
  const { store, commits } = countCommits(inner);
  const group = createGroupCommit(store);
  const results = await Promise.all(["a", "b", "c", "d"].map((id) => claim(group, id)));
  assert.deepEqual(results.map((result) => result.ok), [true, true, true, true]);
  assert.deepEqual(commits, [2, 6], "the first alone, the three that waited in one commit");
  for (const id of ["a", "b", "c", "d"]) {
    assert.equal((await inner.get(["inquiry", id])).value, id);
    assert.equal((await inner.get(["outbox", id])).value, `mail of ${id}`);
  }
  inner.close();
});

test("createGroupCommit() gives each operation its own outcome when one check fails", async () => {
  const inner = createMemoryStore();
  await inner.set(["inquiry", "taken"], "earlier");
  const { store, commits } = countCommits(inner);
  const group = createGroupCommit(store);
  const results = await Promise.all(["first", "a", "taken", "b"].map((id) => claim(group, id)));
  assert.deepEqual(results.map((result) => result.ok), [true, true, false, true]);
  // The group of three was refused whole, then tried one by one.
  assert.deepEqual(commits, [2, 6, 2, 2, 2]);
  assert.equal((await inner.get(["inquiry", "taken"])).value, "earlier");
  assert.equal((await inner.get(["outbox", "taken"])).value, null, "nothing half-written");
  assert.equal((await inner.get(["inquiry", "b"])).value, "b");
  inner.close();
});

test("createGroupCommit() never joins two operations on one key: the second commits after the first", async () => {
  const inner = createMemoryStore();
  const { store, commits } = countCommits(inner);
  const group = createGroupCommit(store);
  const results = await Promise.all(
    ["first", "same", "same", "other"].map((id, index) => claim(group, id, `${id} ${index}`)),
  );
  assert.deepEqual(results.map((result) => result.ok), [true, true, false, true]);
  assert.deepEqual(commits, [2, 4, 2], "the second 'same' waited for the next group");
  assert.equal((await inner.get(["inquiry", "same"])).value, "same 1");
  inner.close();
});

test("createGroupCommit() rejects only the operations the store refuses, and a refused one may commit again", async () => {
  const inner = createMemoryStore();
  let failNext = 0;
  const store: Store = {
    ...inner,
    atomic() {
      const operation = inner.atomic();
      const commit = operation.commit.bind(operation);
      operation.commit = () =>
        failNext-- > 0 ? Promise.reject(new TypeError("database is locked")) : commit();
      return operation;
    },
  };
  const group = createGroupCommit(store);
  failNext = 1;
  const alone = group.atomic().set(["inquiry", "x"], "x");
  await assert.rejects(alone.commit(), /database is locked/);
  assert.equal((await alone.commit()).ok, true, "committed when tried again");
  assert.equal((await inner.get(["inquiry", "x"])).value, "x");

  failNext = 0;
  const first = claim(group, "p"); // Alone, at once.
  failNext = 2; // The group of the next two, then the first of them alone.
  const [second, third] = await Promise.allSettled([claim(group, "q"), claim(group, "r")]);
  assert.equal((await first).ok, true);
  assert.equal(second.status, "rejected");
  assert.match(String(second.reason), /database is locked/);
  assert.equal(third.status === "fulfilled" && third.value.ok, true);
  assert.equal((await inner.get(["inquiry", "q"])).value, null);
  assert.equal((await inner.get(["outbox", "q"])).value, null);
  assert.equal((await inner.get(["inquiry", "r"])).value, "r");
  inner.close();
});
