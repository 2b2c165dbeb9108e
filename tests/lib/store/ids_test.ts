import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeTime, encodeTime, isValid, ulid } from "ulid";
import { createId } from "../../../lib/store/ids.ts";

test("createId() makes ULIDs that the ulid package reads back, time included", () => {
  for (const time of [0, 1, 1_795_641_058_674, Date.UTC(2026, 10, 25, 12), 2 ** 48 - 1]) {
    const id = createId(time);
    assert.ok(isValid(id), id);
    assert.equal(decodeTime(id), time);
    assert.equal(id.slice(0, 10), encodeTime(time, 10));
  }
});

test("createId() orders by time like the ulid package, and draws fresh random characters", () => {
  const now = Date.UTC(2026, 10, 25);
  const ids = Array.from({ length: 1000 }, () => createId(now));
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(createId(now) < createId(now + 1));
  assert.ok(createId(now + 1) > ulid(now), "same order as the package's ids");
  // Each of the 32 characters turns up in the random part: the 80 bits are not biased.
  const seen = new Set<string>();
  for (const id of ids) for (const character of id.slice(10)) seen.add(character);
  assert.equal(seen.size, 32);
});

test("createId() refuses a time a ULID cannot hold", () => {
  for (const time of [-1, 0.5, 2 ** 48, Number.NaN]) {
    assert.throws(() => createId(time), RangeError);
  }
});
