import { test } from "node:test";
import assert from "node:assert/strict";
import {
  buildVersionHeaders,
  checkDeprecationWindow,
  DEPRECATION_SENT_PREFIX,
  type DeprecationNotice,
  formatLink,
} from "../../../lib/http/versioning.ts";
import { MIN_SUNSET_DAYS } from "../../../lib/contract/contract.ts";
import { createMemoryStore } from "../../../testing.ts";

const NOTICE: DeprecationNotice = {
  deprecatedAt: "2027-01-01T00:00:00Z",
  sunsetAt: "2027-07-01T00:00:00Z",
  migrationUrl: "https://studio.example/docs/migrate-v2",
};

/** Asserts that `notice` is refused with a RangeError whose message matches `pattern`. */
function assertRangeError(notice: DeprecationNotice, pattern: RegExp): void {
  assert.throws(() => buildVersionHeaders(notice), (error: unknown) => {
    assert.ok(error instanceof RangeError, `expected RangeError, got ${String(error)}`);
    assert.match(error.message, pattern);
    return true;
  });
}

test("buildVersionHeaders() sends only API-Version: 1 without a notice", () => {
  assert.deepEqual(buildVersionHeaders(), [["API-Version", "1"]]);
  assert.deepEqual(buildVersionHeaders(undefined), [["API-Version", "1"]]);
});

test("buildVersionHeaders() adds Deprecation, Sunset and Link with a notice, in order", () => {
  assert.deepEqual(buildVersionHeaders(NOTICE), [
    ["API-Version", "1"],
    ["Deprecation", "@1798761600"],
    ["Sunset", "Thu, 01 Jul 2027 00:00:00 GMT"],
    ["Link", '<https://studio.example/docs/migrate-v2>; rel="sunset"'],
  ]);
});

test("buildVersionHeaders() writes Deprecation as @<epoch seconds> of the instant", () => {
  const headers = new Map(buildVersionHeaders({
    ...NOTICE,
    deprecatedAt: "2027-01-01T01:00:00+01:00",
  }));
  assert.equal(headers.get("Deprecation"), "@1798761600");
  const later = new Map(buildVersionHeaders({ ...NOTICE, deprecatedAt: "2027-01-01T00:00:30Z" }));
  assert.equal(later.get("Deprecation"), "@1798761630");
});

test("buildVersionHeaders() writes Sunset as an IMF-fixdate in GMT", () => {
  const headers = new Map(buildVersionHeaders({
    ...NOTICE,
    sunsetAt: "2027-09-05T08:07:06-02:00",
  }));
  assert.equal(headers.get("Sunset"), "Sun, 05 Sep 2027 10:07:06 GMT");
});

test("buildVersionHeaders() accepts a sunset exactly 180 days after the deprecation", () => {
  assert.equal(MIN_SUNSET_DAYS, 180);
  const headers = new Map(buildVersionHeaders({ ...NOTICE, sunsetAt: "2027-06-30T00:00:00Z" }));
  assert.equal(headers.get("Sunset"), "Wed, 30 Jun 2027 00:00:00 GMT");
});

test("buildVersionHeaders() throws RangeError for a sunset less than 180 days after the deprecation", () => {
  assertRangeError(
    { ...NOTICE, sunsetAt: "2027-06-29T23:59:59Z" },
    /^Invalid sunsetAt: it must be at least 180 days after deprecatedAt, not 179$/,
  );
  assertRangeError({ ...NOTICE, sunsetAt: "2026-12-01T00:00:00Z" }, /^Invalid sunsetAt: /);
});

test("buildVersionHeaders() throws RangeError for dates that are not ISO 8601 with an offset", () => {
  for (
    const bad of [
      "2027-01-01",
      "2027-01-01T00:00:00",
      "January 1, 2027",
      "Fri, 01 Jan 2027 00:00:00 GMT",
      "2027-02-30T00:00:00Z",
      "",
    ]
  ) {
    assertRangeError({ ...NOTICE, deprecatedAt: bad }, /^Invalid deprecatedAt: /);
    assertRangeError({ ...NOTICE, sunsetAt: bad }, /^Invalid sunsetAt: /);
  }
});

test(
  "buildVersionHeaders() throws RangeError for an out-of-range offset such as +99:00",
  () => {
    assertRangeError(
      { ...NOTICE, deprecatedAt: "2027-01-01T00:00:00+99:00" },
      /^Invalid deprecatedAt: /,
    );
    assertRangeError({ ...NOTICE, sunsetAt: "2028-01-01T00:00:00+24:00" }, /^Invalid sunsetAt: /);
  },
);

test("buildVersionHeaders() throws RangeError for a relative migration URL", () => {
  assertRangeError(
    { ...NOTICE, migrationUrl: "/docs/migrate-v2" },
    /^Invalid migrationUrl: "\/docs\/migrate-v2" is not an absolute URL$/,
  );
  assertRangeError({ ...NOTICE, migrationUrl: "docs/migrate-v2" }, /^Invalid migrationUrl: /);
});

test("buildVersionHeaders() throws RangeError for a migration URL that is not http(s)", () => {
  for (const bad of ["ftp://studio.example/migrate", "mailto:studio@example.pt", "data:,x"]) {
    assertRangeError({ ...NOTICE, migrationUrl: bad }, /is not an http\(s\) URL$/);
  }
});

test("buildVersionHeaders() writes the migration URL in its normalised form", () => {
  const headers = new Map(buildVersionHeaders({
    ...NOTICE,
    migrationUrl: "HTTPS://Studio.Example",
  }));
  assert.equal(headers.get("Link"), '<https://studio.example/>; rel="sunset"');
});

test("formatLink() formats one RFC 8288 link-value", () => {
  assert.equal(
    formatLink("/api/v1/health", "latest-version"),
    '</api/v1/health>; rel="latest-version"',
  );
  assert.equal(
    formatLink("https://studio.example/docs/migrate-v2", "sunset"),
    '<https://studio.example/docs/migrate-v2>; rel="sunset"',
  );
});

test("checkDeprecationWindow() accepts an announced deprecation and keeps when it was first sent", async () => {
  const store = createMemoryStore();
  const now = Temporal.Instant.from("2026-11-22T10:00:00Z");
  assert.equal(await checkDeprecationWindow(store, NOTICE, now), "2026-11-22T10:00:00Z");
  const key = [...DEPRECATION_SENT_PREFIX, Date.parse(NOTICE.deprecatedAt)];
  assert.equal((await store.get<string>(key)).value, "2026-11-22T10:00:00Z");
  // A restart later, and a later sunset for the same deprecation, keep the first instant.
  const later = Temporal.Instant.from("2027-03-01T00:00:00Z");
  const extended = { ...NOTICE, sunsetAt: "2027-09-01T00:00:00Z" };
  assert.equal(await checkDeprecationWindow(store, extended, later), "2026-11-22T10:00:00Z");
});

test("checkDeprecationWindow() counts 180 days from the first sending when deprecatedAt is past", async () => {
  const store = createMemoryStore();
  const past: DeprecationNotice = {
    ...NOTICE,
    deprecatedAt: "2026-01-01T00:00:00Z",
    sunsetAt: "2026-07-01T00:00:00Z",
  };
  assert.doesNotThrow(() => buildVersionHeaders(past), "181 days apart");
  const now = Temporal.Instant.from("2026-11-22T10:00:00Z");
  await assert.rejects(checkDeprecationWindow(store, past, now), (error: unknown) => {
    assert.ok(error instanceof RangeError);
    assert.match(error.message, /^Invalid sunsetAt: .*first sent .* at 2026-11-22T10:00:00Z/);
    assert.match(error.message, /use 2027-05-21T10:00:00\.000Z or later/);
    return true;
  });
  const enough = { ...past, sunsetAt: "2027-05-21T10:00:00Z" };
  assert.equal(await checkDeprecationWindow(store, enough, now), "2026-11-22T10:00:00Z");
  // Restarted 100 days into the notice: still counted from the first sending.
  const restart = now.add({ hours: 24 * 100 });
  assert.equal(await checkDeprecationWindow(store, enough, restart), "2026-11-22T10:00:00Z");
});
