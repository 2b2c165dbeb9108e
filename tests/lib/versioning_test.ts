import { test } from "node:test";
import assert from "node:assert/strict";
import {
  buildVersionHeaders,
  type DeprecationNotice,
  formatLink,
  MIN_SUNSET_DAYS,
} from "../../lib/versioning.ts";

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
