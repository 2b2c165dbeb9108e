import { test } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore } from "../../../lib/store/memory_store.ts";
import type {
  KvCommitResult,
  KvEntry,
  KvKey,
  KvKeyPart,
  KvListOptions,
  KvListSelector,
  Store,
} from "../../../lib/store/store.ts";

// Each parity scenario runs against createMemoryStore() and, on Deno, against
// Deno.openKv(":memory:"), and both must produce the same concrete result. The
// expected results were confirmed against Deno 2.9.6.

/** `Deno.openKv` where the runtime has it, typed as the store port; `undefined` on Node and Bun. */
function findOpenKv(): ((path: string) => Promise<Store>) | undefined {
  const runtime: { Deno?: { openKv?: (path: string) => Promise<Store> } } = globalThis;
  return runtime.Deno?.openKv?.bind(runtime.Deno);
}

const openKv = findOpenKv();

/** How a call ended: its value, or the error it threw and whether it threw before returning. */
type Settled =
  | { value: unknown }
  | {
    thrown: "synchronously" | "asynchronously";
    name: string;
    message: string;
  };

async function settle(call: () => Promise<unknown>): Promise<Settled> {
  let promise: Promise<unknown>;
  try {
    promise = call();
  } catch (error) {
    return { thrown: "synchronously", ...describeError(error) };
  }
  try {
    return { value: await promise };
  } catch (error) {
    return { thrown: "asynchronously", ...describeError(error) };
  }
}

/** Like {@linkcode settle} for a call that returns no promise; its value is not kept. */
function settleSync(call: () => unknown): Settled | "returned" {
  try {
    call();
    return "returned";
  } catch (error) {
    return { thrown: "synchronously", ...describeError(error) };
  }
}

function describeError(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: "not an Error", message: String(error) };
}

/** A successful commit whose versionstamp varies between stores. */
function toAccepted(settled: Settled): Settled | "accepted" {
  return "value" in settled ? "accepted" : settled;
}

function rejection(name: string, message: string): Settled {
  return { thrown: "asynchronously", name, message };
}

async function collect<T>(
  iterable: AsyncIterable<KvEntry<T>>,
): Promise<KvEntry<T>[]> {
  const entries: KvEntry<T>[] = [];
  for await (const entry of iterable) {
    entries.push({
      key: entry.key,
      value: entry.value,
      versionstamp: entry.versionstamp,
    });
  }
  return entries;
}

async function listKeys(
  store: Store,
  selector: KvListSelector,
  options?: KvListOptions,
): Promise<KvKey[]> {
  const entries = await collect(store.list(selector, options));
  return entries.map((entry) => entry.key);
}

function versionstampOf(result: KvCommitResult): string {
  assert.ok(result.ok);
  return result.versionstamp;
}

/** Closes a store that the scenario may have closed already. */
function closeStore(store: Store): void {
  try {
    store.close();
  } catch (error) {
    if (!(error instanceof Error && error.name === "BadResource")) throw error;
  }
}

function createFakeClock(startMs: number): {
  now: () => number;
  advance: (durationMs: number) => void;
} {
  let nowMs = startMs;
  return {
    now: () => nowMs,
    advance: (durationMs) => {
      nowMs += durationMs;
    },
  };
}

/** One part of each kind, in Deno KV's order. */
const ORDERED_PARTS: readonly KvKeyPart[] = [
  new Uint8Array([]),
  new Uint8Array([0]),
  new Uint8Array([0, 1]),
  new Uint8Array([1]),
  new Uint8Array([1, 2]),
  new Uint8Array([255]),
  "",
  "a",
  "a\0",
  "a\0b",
  "ab",
  "\u00ff",
  // UTF-8 byte order: U+FFFF sorts before U+1F600, unlike UTF-16 code unit order.
  "\uffff",
  "\u{1f600}",
  -(2n ** 80n),
  -(2n ** 70n),
  -(2n ** 64n),
  -256n,
  -255n,
  -1n,
  0n,
  1n,
  255n,
  256n,
  2n ** 64n - 1n,
  2n ** 64n,
  2n ** 70n,
  2n ** 80n,
  -Infinity,
  -Number.MAX_VALUE,
  -1,
  -5e-324,
  -0,
  0,
  5e-324,
  0.5,
  1,
  Number.MAX_VALUE,
  Infinity,
  NaN,
  false,
  true,
];

/** A fixed shuffle, so that the order a store returns cannot be the order of the writes. */
function shuffle<T>(items: readonly T[]): T[] {
  const odd = items.filter((_, index) => index % 2 === 1);
  const even = items.filter((_, index) => index % 2 === 0);
  return [...odd.reverse(), ...even];
}

const SIX_KEYS: readonly KvKey[] = [
  ["o"],
  ["p"],
  ["p", "a"],
  ["p", "b"],
  ["p", "c"],
  ["p", "c", "x"],
  ["q"],
];

async function writeSixKeys(store: Store): Promise<void> {
  for (const key of shuffle(SIX_KEYS)) await store.set(key, key.join("/"));
}

interface Scenario {
  /** Completes "createMemoryStore() …" and "Deno.openKv() …". */
  behaviour: string;
  run: (store: Store) => Promise<unknown>;
  expected: unknown;
}

const PARITY_SCENARIOS: readonly Scenario[] = [
  {
    behaviour: "lists keys in Deno KV type order",
    run: async (store) => {
      for (const part of shuffle(ORDERED_PARTS)) await store.set([part], 1);
      return await listKeys(store, { prefix: [] });
    },
    expected: ORDERED_PARTS.map((part) => [part]),
  },
  {
    behaviour: "sorts a key before the longer keys it is a prefix of",
    run: async (store) => {
      const keys: KvKey[] = [
        ["a\0"],
        ["a", true],
        ["a", 1],
        ["a", 1n],
        ["a", "b", "c"],
        ["a", "b"],
        ["a", new Uint8Array()],
        ["a"],
      ];
      for (const key of keys) await store.set(key, 1);
      return await listKeys(store, { start: [], end: ["b"] });
    },
    expected: [
      ["a"],
      ["a", new Uint8Array()],
      ["a", "b"],
      ["a", "b", "c"],
      ["a", 1n],
      ["a", 1],
      ["a", true],
      ["a\0"],
    ],
  },
  {
    behaviour: "selects prefix, start and end ranges with limit and reverse",
    run: async (store) => {
      await writeSixKeys(store);
      return {
        prefix: await listKeys(store, { prefix: ["p"] }),
        prefixOfChild: await listKeys(store, { prefix: ["p", "c"] }),
        prefixOfLeaf: await listKeys(store, { prefix: ["p", "a"] }),
        everything: await listKeys(store, { prefix: [] }),
        prefixFrom: await listKeys(store, { prefix: ["p"], start: ["p", "b"] }),
        prefixUntil: await listKeys(store, { prefix: ["p"], end: ["p", "c"] }),
        range: await listKeys(store, { start: ["p"], end: ["q"] }),
        narrowRange: await listKeys(store, {
          start: ["p", "b"],
          end: ["p", "c"],
        }),
        emptyRange: await listKeys(store, { start: ["p"], end: ["p"] }),
        limit: await listKeys(store, { prefix: ["p"] }, { limit: 2 }),
        reverse: await listKeys(store, { prefix: ["p"] }, { reverse: true }),
        reverseLimit: await listKeys(store, { prefix: ["p"] }, {
          reverse: true,
          limit: 2,
        }),
        reverseFrom: await listKeys(
          store,
          { prefix: ["p"], start: ["p", "b"] },
          { reverse: true, limit: 1 },
        ),
        largeLimit: await listKeys(store, { prefix: ["p"] }, { limit: 5000 }),
      };
    },
    expected: {
      prefix: [["p", "a"], ["p", "b"], ["p", "c"], ["p", "c", "x"]],
      prefixOfChild: [["p", "c", "x"]],
      prefixOfLeaf: [],
      everything: SIX_KEYS,
      prefixFrom: [["p", "b"], ["p", "c"], ["p", "c", "x"]],
      prefixUntil: [["p", "a"], ["p", "b"]],
      range: [["p"], ["p", "a"], ["p", "b"], ["p", "c"], ["p", "c", "x"]],
      narrowRange: [["p", "b"]],
      emptyRange: [],
      limit: [["p", "a"], ["p", "b"]],
      reverse: [["p", "c", "x"], ["p", "c"], ["p", "b"], ["p", "a"]],
      reverseLimit: [["p", "c", "x"], ["p", "c"]],
      reverseFrom: [["p", "c", "x"]],
      largeLimit: [["p", "a"], ["p", "b"], ["p", "c"], ["p", "c", "x"]],
    },
  },
  {
    behaviour: "lists entries with their values and versionstamps",
    run: async (store) => {
      const first = await store.set(["e", 1], { n: 1 });
      const second = await store.set(["e", 2], [2]);
      const entries = await collect(store.list({ prefix: ["e"] }));
      return entries.map((entry) => ({
        key: entry.key,
        value: entry.value,
        stampedByItsCommit: entry.key[1] === 1
          ? first.ok && entry.versionstamp === first.versionstamp
          : second.ok && entry.versionstamp === second.versionstamp,
      }));
    },
    expected: [
      { key: ["e", 1], value: { n: 1 }, stampedByItsCommit: true },
      { key: ["e", 2], value: [2], stampedByItsCommit: true },
    ],
  },
  {
    behaviour: "rejects invalid list selectors and limits as Deno KV does",
    run: async (store) => {
      await writeSixKeys(store);
      // list() itself is called inside settle(), so that a synchronous throw shows as one.
      const list = (selector: KvListSelector, options?: KvListOptions) =>
        settle(() => collect(store.list(selector, options)));
      return {
        limitZero: await list({ prefix: ["p"] }, { limit: 0 }),
        limitFraction: await list({ prefix: ["p"] }, { limit: 1.5 }),
        prefixStartAndEnd: await list({
          prefix: ["p"],
          start: ["p", "a"],
          end: ["p", "c"],
        } as unknown as KvListSelector),
        startOnly: await list({ start: ["p"] } as unknown as KvListSelector),
        startAfterEnd: await list({ start: ["q"], end: ["p"] }),
        startOutsidePrefix: await list({ prefix: ["p"], start: ["q"] }),
        startIsPrefix: await list({ prefix: ["p"], start: ["p"] }),
        endOutsidePrefix: await list({ prefix: ["p"], end: ["a"] }),
        symbolPart: await list({ prefix: [Symbol("part")] }),
        prefixTooLarge: await list({ prefix: ["k", "x".repeat(2044)] }),
      };
    },
    expected: {
      limitZero: {
        thrown: "synchronously",
        name: "Error",
        message: "Limit must be a positive integer: received 0",
      },
      limitFraction: {
        thrown: "synchronously",
        name: "Error",
        message: "Limit must be a positive integer: received 1.5",
      },
      prefixStartAndEnd: {
        thrown: "synchronously",
        name: "TypeError",
        message: "Selector can not specify both 'start' and 'end' key when specifying 'prefix'",
      },
      startOnly: {
        thrown: "synchronously",
        name: "TypeError",
        message: "Selector must specify either 'prefix' or both 'start' and 'end' key",
      },
      startAfterEnd: rejection(
        "TypeError",
        "Start key is greater than end key",
      ),
      startOutsidePrefix: rejection(
        "TypeError",
        "Start key is not in the keyspace defined by prefix",
      ),
      startIsPrefix: rejection(
        "TypeError",
        "Start key is not in the keyspace defined by prefix",
      ),
      endOutsidePrefix: rejection(
        "TypeError",
        "End key is not in the keyspace defined by prefix",
      ),
      symbolPart: rejection(
        "TypeError",
        "expected string, number, bigint, ArrayBufferView, boolean",
      ),
      prefixTooLarge: rejection(
        "TypeError",
        "Key too large for read (max 2049 bytes)",
      ),
    },
  },
  {
    behaviour: "lists a snapshot and copies the selector when list() is called",
    run: async (store) => {
      await writeSixKeys(store);
      const prefix: KvKeyPart[] = ["p"];
      const iterable = store.list({ prefix });
      prefix[0] = "o";
      const keys: KvKey[] = [];
      for await (const entry of iterable) {
        keys.push(entry.key);
        if (keys.length === 1) {
          await store.set(["p", "bb"], "late");
          await store.delete(["p", "c"]);
        }
      }
      return { duringIteration: keys, after: await listKeys(store, { prefix }) };
    },
    expected: {
      duringIteration: [["p", "a"], ["p", "b"], ["p", "c"], ["p", "c", "x"]],
      after: [],
    },
  },
  {
    behaviour: "commits atomic operations only when every check holds",
    run: async (store) => {
      const first = await store.set(["k"], 1);
      const absentCheckFails = await store.atomic()
        .check({ key: ["k"], versionstamp: null })
        .set(["k"], 2)
        .set(["other"], 2)
        .commit();
      const afterFailure = {
        k: (await store.get(["k"])).value,
        other: (await store.get(["other"])).value,
      };
      const second = await store.set(["k"], 3);
      assert.ok(first.ok && second.ok);
      const staleCheckFails = await store.atomic()
        .check({ key: ["k"], versionstamp: first.versionstamp })
        .set(["k"], 4)
        .commit();
      const committed = await store.atomic()
        .check({ key: ["k"], versionstamp: second.versionstamp })
        .check({ key: ["new"], versionstamp: null })
        .set(["k"], 5)
        .set(["new"], 6)
        .delete(["missing"])
        .commit();
      assert.ok(committed.ok);
      const k = await store.get(["k"]);
      const created = await store.get(["new"]);
      // Versionstamps are hex digits compared case-insensitively; write until one has a letter.
      let lettered = versionstampOf(await store.set(["hex"], 0));
      for (let count = 1; count < 100 && !/[a-f]/.test(lettered); count++) {
        lettered = versionstampOf(await store.set(["hex"], count));
      }
      const upperCaseCheck = await store.atomic()
        .check({ key: ["hex"], versionstamp: lettered.toUpperCase() })
        .commit();
      const emptyCommit = await store.atomic().commit();
      assert.ok(upperCaseCheck.ok && emptyCommit.ok);
      return {
        absentCheckFails,
        afterFailure,
        staleCheckFails,
        committedValues: [k.value, created.value],
        oneVersionstampPerCommit: k.versionstamp === committed.versionstamp &&
          created.versionstamp === committed.versionstamp,
        versionstampsIncrease: first.versionstamp < second.versionstamp &&
          second.versionstamp < committed.versionstamp &&
          committed.versionstamp < lettered &&
          lettered < upperCaseCheck.versionstamp &&
          upperCaseCheck.versionstamp < emptyCommit.versionstamp,
        versionstampFormat: [
          first.versionstamp,
          committed.versionstamp,
        ].every((versionstamp) => /^[0-9a-f]{16}0000$/.test(versionstamp)),
      };
    },
    expected: {
      absentCheckFails: { ok: false },
      afterFailure: { k: 1, other: null },
      staleCheckFails: { ok: false },
      committedValues: [5, 6],
      oneVersionstampPerCommit: true,
      versionstampsIncrease: true,
      versionstampFormat: true,
    },
  },
  {
    behaviour: "applies the writes of one atomic operation in order",
    run: async (store) => {
      await store.atomic()
        .set(["set then delete"], 1)
        .delete(["set then delete"])
        .delete(["delete then set"])
        .set(["delete then set"], 2)
        .set(["set twice"], 3)
        .set(["set twice"], 4)
        .commit();
      return await collect(store.list({ prefix: [] })).then((entries) =>
        entries.map((entry) => [entry.key, entry.value])
      );
    },
    expected: [[["delete then set"], 2], [["set twice"], 4]],
  },
  {
    behaviour: "rejects invalid checks and keys as Deno KV does",
    run: async (store) => {
      const big = 1n << 2047n;
      return {
        getEmpty: await settle(() => store.get([])),
        setEmpty: await settle(() => store.set([], 1)),
        deleteEmpty: await settle(() => store.delete([])),
        checkEmpty: await settle(() =>
          store.atomic().check({ key: [], versionstamp: null }).commit()
        ),
        setSymbol: await settle(() => store.set([Symbol("part")], 1)),
        getObject: await settle(() => store.get([{}] as unknown as KvKeyPart[])),
        malformedVersionstamp: await settle(() =>
          store.atomic().check({ key: ["k"], versionstamp: "0001" }).commit()
        ),
        largestKey: await settle(() => store.set(["k", "x".repeat(2043)], 1))
          .then(toAccepted),
        keyTooLarge: await settle(() => store.set(["k", "x".repeat(2044)], 1)),
        keyTooLargeForRead: await settle(() => store.get(["k", "x".repeat(2044)])),
        nulsCount: await settle(() => store.set(["k", "\0".repeat(1021) + "xx"], 1)),
        bigintTooLarge: await settle(() => store.set([big], 1)),
        bigintTooLargeForRead: await settle(() => store.get([big])),
        tooManyChecks: await settle(() => {
          const operation = store.atomic();
          for (let index = 0; index < 101; index++) {
            operation.check({ key: ["c", index], versionstamp: null });
          }
          return operation.commit();
        }),
        tooManyMutations: await settle(() => {
          const operation = store.atomic();
          for (let index = 0; index < 1001; index++) {
            operation.delete(["m", index]);
          }
          return operation.commit();
        }),
        totalKeySizeTooLarge: await settle(() => {
          const operation = store.atomic();
          for (let index = 0; index < 41; index++) {
            operation.set(["t", index, "x".repeat(1990)], 1);
          }
          return operation.commit();
        }),
        totalMutationSizeTooLarge: await settle(() => {
          const operation = store.atomic();
          for (let index = 0; index < 500; index++) {
            operation.delete(["t", index, "x".repeat(2000)]);
          }
          return operation.commit();
        }),
      };
    },
    expected: {
      getEmpty: { value: { key: [], value: null, versionstamp: null } },
      setEmpty: rejection("TypeError", "key cannot be empty"),
      deleteEmpty: rejection("TypeError", "key cannot be empty"),
      checkEmpty: rejection("TypeError", "key cannot be empty"),
      setSymbol: rejection(
        "TypeError",
        "expected string, number, bigint, ArrayBufferView, boolean",
      ),
      getObject: rejection(
        "TypeError",
        "expected string, number, bigint, ArrayBufferView, boolean",
      ),
      malformedVersionstamp: rejection("TypeError", "Invalid check"),
      largestKey: "accepted",
      keyTooLarge: rejection(
        "TypeError",
        "Key too large for write (max 2048 bytes)",
      ),
      keyTooLargeForRead: rejection(
        "TypeError",
        "Key too large for read (max 2049 bytes)",
      ),
      nulsCount: rejection(
        "TypeError",
        "Key too large for write (max 2048 bytes)",
      ),
      bigintTooLarge: rejection(
        "TypeError",
        "Invalid mutation: BigUint requires more than 255 bytes to be represented",
      ),
      bigintTooLargeForRead: rejection(
        "TypeError",
        "BigUint requires more than 255 bytes to be represented",
      ),
      tooManyChecks: rejection("TypeError", "Too many checks (max 100)"),
      tooManyMutations: rejection("TypeError", "Too many mutations (max 1000)"),
      totalKeySizeTooLarge: rejection(
        "TypeError",
        "Total key size too large (max 81920 bytes)",
      ),
      totalMutationSizeTooLarge: rejection(
        "TypeError",
        "Total mutation size too large (max 819200 bytes)",
      ),
    },
  },
  {
    behaviour: "normalizes key parts as Deno KV does",
    run: async (store) => {
      const bytes = new Uint8Array([9, 1, 2, 9]);
      await store.set(["bytes", bytes.subarray(1, 3)], "view");
      bytes[1] = 7;
      // Deno KV takes any ArrayBufferView as a part; the port's type names only Uint8Array.
      const dataView = new DataView(new Uint8Array([3, 4]).buffer);
      await store.set(["bytes", dataView as unknown as Uint8Array], 1);
      await store.set(["string", "\ud800"], "lone surrogate");
      await store.set(["zero", -0], "negative");
      await store.set(["zero", 0], "positive");
      const missingKey = ["missing"];
      const presentKey = ["string", "\ufffd"];
      const [listed] = await listKeys(store, { prefix: ["bytes"] });
      const listedBytes = listed[1];
      assert.ok(listedBytes instanceof Uint8Array);
      listedBytes[0] = 8;
      return {
        keys: await listKeys(store, { prefix: [] }),
        replacementCharacter: (await store.get(presentKey)).value,
        zero: (await store.get(["zero", 0])).value,
        negativeZero: (await store.get(["zero", -0])).value,
        missReturnsCallersKey: (await store.get(missingKey)).key === missingKey,
        hitReturnsCallersKey: (await store.get(presentKey)).key === presentKey,
      };
    },
    expected: {
      keys: [
        ["bytes", new Uint8Array([1, 2])],
        ["bytes", new Uint8Array([3, 4])],
        ["string", "\ufffd"],
        ["zero", -0],
        ["zero", 0],
      ],
      replacementCharacter: "lone surrogate",
      zero: "positive",
      negativeZero: "negative",
      missReturnsCallersKey: true,
      hitReturnsCallersKey: false,
    },
  },
  {
    behaviour: "copies values on write and on read",
    run: async (store) => {
      const written = { name: "Ana", tags: ["a"] };
      await store.set(["value"], written);
      written.tags.push("changed on write");
      const read = await store.get<{ name: string; tags: string[] }>(["value"]);
      read.value?.tags.push("changed on read");
      const queued = { n: 1 };
      const operation = store.atomic().set(["queued"], queued);
      queued.n = 2;
      await operation.commit();
      const listed = await collect(store.list<{ n: number }>({
        start: ["queued"],
        end: ["queued", 0],
      }));
      assert.equal(listed.length, 1);
      listed[0].value.n = 3;
      const key = ["types"];
      const values = {
        date: new Date(0),
        map: new Map([["k", 1n]]),
        bytes: new Uint8Array([1, 2]),
        nothing: undefined,
        nested: { list: [null, true, 1.5] },
      };
      await store.set(key, values);
      return {
        value: (await store.get(["value"])).value,
        queued: (await store.get(["queued"])).value,
        types: (await store.get(key)).value,
        undefinedValue: await store.set(["undefined"], undefined).then(() =>
          store.get(["undefined"])
        ).then((entry) => [entry.value, entry.versionstamp !== null]),
      };
    },
    expected: {
      value: { name: "Ana", tags: ["a"] },
      queued: { n: 1 },
      types: {
        date: new Date(0),
        map: new Map([["k", 1n]]),
        bytes: new Uint8Array([1, 2]),
        nothing: undefined,
        nested: { list: [null, true, 1.5] },
      },
      undefinedValue: [undefined, true],
    },
  },
  {
    behaviour: "rejects a value that cannot be cloned with a TypeError",
    run: async (store) => {
      const set = await settle(() => store.set(["f"], () => 1));
      const atomicSet = await settle(() => store.atomic().set(["f"], () => 1).commit());
      // Only the error class and timing are compared: the message is the engine's.
      return [set, atomicSet].map((settled) =>
        "thrown" in settled ? [settled.thrown, settled.name] : settled
      );
    },
    expected: [["asynchronously", "TypeError"], ["synchronously", "TypeError"]],
  },
  {
    behaviour: "validates expireIn as Deno KV does",
    run: async (store) => {
      const set = (expireIn: number) => settle(() => store.set(["e"], 1, { expireIn }));
      return {
        negative: await set(-1),
        fraction: await set(1.5),
        notANumber: await set(NaN),
        infinite: await set(Infinity),
        tooLarge: await set(1e17),
        zero: await set(0).then(toAccepted),
        atomicNegative: await settle(() => store.atomic().set(["e"], 1, { expireIn: -1 }).commit()),
      };
    },
    expected: {
      negative: rejection(
        "TypeError",
        "expireIn must be a non-negative integer: received -1",
      ),
      fraction: rejection(
        "TypeError",
        "expireIn must be a non-negative integer: received 1.5",
      ),
      notANumber: rejection(
        "TypeError",
        "expireIn must be a non-negative integer: received NaN",
      ),
      infinite: rejection(
        "TypeError",
        "expireIn must be a non-negative integer: received Infinity",
      ),
      tooLarge: rejection(
        "TypeError",
        "Invalid mutation: expireIn is too large: 100000000000000000",
      ),
      zero: "accepted",
      atomicNegative: {
        thrown: "synchronously",
        name: "TypeError",
        message: "expireIn must be a non-negative integer: received -1",
      },
    },
  },
  {
    behaviour: "fails every call after close()",
    run: async (store) => {
      await store.set(["k"], 1);
      store.close();
      return {
        get: await settle(() => store.get(["k"])),
        set: await settle(() => store.set(["k"], 2)),
        delete: await settle(() => store.delete(["k"])),
        list: await settle(() => listKeys(store, { prefix: [] })),
        // Deno's AtomicOperation refuses to be awaited, so this one is not settled.
        atomic: settleSync(() => store.atomic()),
        commit: await settle(() => store.atomic().set(["k"], 3).commit()),
        closeAgain: settleSync(() => store.close()),
        keyTypeFirst: await settle(() => store.get([Symbol("part")])),
      };
    },
    expected: {
      get: rejection("BadResource", "Bad resource ID"),
      set: rejection("BadResource", "Bad resource ID"),
      delete: rejection("BadResource", "Bad resource ID"),
      list: rejection("BadResource", "Bad resource ID"),
      atomic: "returned",
      commit: rejection("BadResource", "Bad resource ID"),
      closeAgain: {
        thrown: "synchronously",
        name: "BadResource",
        message: "Bad resource ID",
      },
      keyTypeFirst: rejection(
        "TypeError",
        "expected string, number, bigint, ArrayBufferView, boolean",
      ),
    },
  },
];

for (const scenario of PARITY_SCENARIOS) {
  test(`createMemoryStore() ${scenario.behaviour}`, async () => {
    const store = createMemoryStore();
    try {
      assert.deepEqual(await scenario.run(store), scenario.expected);
    } finally {
      closeStore(store);
    }
  });

  test(
    `Deno.openKv() ${scenario.behaviour} (parity reference)`,
    { skip: openKv === undefined ? "needs Deno.openKv" : false },
    async () => {
      if (openKv === undefined) return;
      const store = await openKv(":memory:");
      try {
        assert.deepEqual(await scenario.run(store), scenario.expected);
      } finally {
        closeStore(store);
      }
    },
  );
}

test("createMemoryStore() stamps commits with versionstamps that grow by one", async () => {
  const store = createMemoryStore();
  const stamps: string[] = [];
  const record = (result: { ok: boolean; versionstamp?: string }) => {
    stamps.push(result.ok ? result.versionstamp ?? "missing" : "failed");
  };
  record(await store.set(["a"], 1));
  record(await store.atomic().set(["a"], 2).set(["b"], 2).commit());
  await store.delete(["absent"]);
  record(await store.atomic().check({ key: ["a"], versionstamp: null }).commit());
  record(await store.set(["c"], 3));
  for (let index = 0; index < 12; index++) await store.set(["d", index], index);
  record(await store.set(["e"], 5));
  assert.deepEqual(stamps, [
    "00000000000000010000",
    "00000000000000020000",
    "failed",
    "00000000000000040000",
    "00000000000000110000",
  ]);
  assert.equal((await store.get(["b"])).versionstamp, "00000000000000020000");
  store.close();
});

test("createMemoryStore() hides a key from get, list and checks once expireIn has passed", async () => {
  const clock = createFakeClock(1_700_000_000_000);
  const store = createMemoryStore({ now: clock.now });
  await store.set(["s", "expiring"], "soon", { expireIn: 1000 });
  await store.set(["s", "kept"], "always");
  clock.advance(999);
  assert.equal((await store.get(["s", "expiring"])).value, "soon");
  assert.deepEqual(await listKeys(store, { prefix: ["s"] }), [
    ["s", "expiring"],
    ["s", "kept"],
  ]);
  clock.advance(1);
  assert.deepEqual(await store.get(["s", "expiring"]), {
    key: ["s", "expiring"],
    value: null,
    versionstamp: null,
  });
  assert.deepEqual(await listKeys(store, { prefix: ["s"] }), [["s", "kept"]]);
  const claim = await store.atomic()
    .check({ key: ["s", "expiring"], versionstamp: null })
    .set(["s", "expiring"], "again")
    .commit();
  assert.equal(claim.ok, true);
  assert.equal((await store.get(["s", "expiring"])).value, "again");
  clock.advance(1_000_000);
  assert.equal((await store.get(["s", "expiring"])).value, "again");
  store.close();
});

test("createMemoryStore() expires a key written with expireIn 0 at once", async () => {
  const clock = createFakeClock(0);
  const store = createMemoryStore({ now: clock.now });
  const result = await store.set(["now"], 1, { expireIn: 0 });
  assert.equal(result.ok, true);
  assert.equal((await store.get(["now"])).versionstamp, null);
  assert.deepEqual(await listKeys(store, { prefix: [] }), []);
  store.close();
});

test("createMemoryStore() keeps a key rewritten without expireIn", async () => {
  const clock = createFakeClock(0);
  const store = createMemoryStore({ now: clock.now });
  await store.set(["k"], "expiring", { expireIn: 10 });
  await store.set(["k"], "kept");
  await store.set(["other"], "expiring", { expireIn: 10 });
  clock.advance(10);
  assert.deepEqual(
    (await collect(store.list({ prefix: [] }))).map((entry) => entry.value),
    ["kept"],
  );
  store.close();
});

test("createMemoryStore() rejects an expiry after Deno KV's latest instant", async () => {
  const clock = createFakeClock(0);
  const store = createMemoryStore({ now: clock.now });
  const latestMs = 8_210_266_876_799_999;
  assert.equal((await store.set(["k"], 1, { expireIn: latestMs })).ok, true);
  await assert.rejects(store.set(["k"], 1, { expireIn: latestMs + 1 }), {
    name: "TypeError",
    message: "Invalid mutation: expireIn is too large: 8210266876800000",
  });
  store.close();
});

test("createMemoryStore() reads the system clock by default", async () => {
  const store = createMemoryStore();
  await store.set(["k"], 1, { expireIn: 60_000 });
  await store.set(["gone"], 1, { expireIn: 0 });
  assert.equal((await store.get(["k"])).value, 1);
  assert.equal((await store.get(["gone"])).value, null);
  store.close();
});

test("createMemoryStore() keeps separate stores apart", async () => {
  const first = createMemoryStore();
  const second = createMemoryStore();
  await first.set(["k"], "first");
  assert.deepEqual(await second.get(["k"]), {
    key: ["k"],
    value: null,
    versionstamp: null,
  });
  assert.deepEqual(await second.set(["k"], "second"), {
    ok: true,
    versionstamp: "00000000000000010000",
  });
  first.close();
  assert.equal((await second.get(["k"])).value, "second");
  second.close();
});
