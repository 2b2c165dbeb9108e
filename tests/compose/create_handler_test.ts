import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler } from "../_fixture_studio.ts";
import { INTERNAL_ERROR_MESSAGE } from "../../lib/contract/api_error.ts";
import { buildRequest, createRecordingLogger, fromAddress, readError } from "../_support.ts";
import { createFixedClock } from "../../testing.ts";

test("createHandler() answers 404 not-found naming /api/v1 for unknown paths under /api/", async () => {
  const handler = createSampleHandler();
  for (const path of ["/api/v2", "/api/v1/nope", "/api/v1/health/extra", "/api/", "/api/x/../y"]) {
    const response = await handler(buildRequest(path), fromAddress("198.51.100.1"));
    assert.equal(response.status, path === "/api/" ? 200 : 404, path);
    if (response.status === 404) {
      const body = await readError(response, "not-found");
      assert.match(body.error.hint, /\/api\/v1/);
    } else {
      await response.body?.cancel();
    }
  }
});

test("createHandler() hands over an answer ready at once in its promise's response", async () => {
  const handler = createSampleHandler();
  const ready = handler(buildRequest("/api/v1/health"), fromAddress("198.51.100.1"));
  assert.ok(ready.response, "health answers synchronously");
  assert.equal(ready.response.status, 200);
  assert.equal(await ready, ready.response);
  await ready.response.body?.cancel();
  // A body to read: the answer comes later, in the promise alone.
  const later = handler(
    buildRequest("/api/v1/contact", {
      method: "POST",
      body: "{}",
      headers: { "Content-Type": "application/json" },
    }),
    fromAddress("198.51.100.1"),
  );
  assert.equal(later.response, undefined);
  const response = await later;
  assert.equal(response.status, 400);
  await readError(response, "validation-failed");
});

test("createHandler() answers 405 with Allow for a known path and a wrong method", async () => {
  const handler = createSampleHandler();
  for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
    const response = await handler(buildRequest("/api/v1/health", { method }));
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.get("Allow"), "GET, HEAD");
    const body = await readError(response, "not-found");
    assert.match(body.error.message, new RegExp(method));
  }
});

test("createHandler() counts unknown-path requests against the read and write quotas", async () => {
  const handler = createSampleHandler({ clock: createFixedClock("2026-11-21T10:00:00Z") });
  const get = await handler(buildRequest("/api/nope"), fromAddress("198.51.100.2"));
  assert.equal(get.headers.get("RateLimit-Policy"), '"read";q=120;w=60');
  assert.equal(get.headers.get("RateLimit-Remaining"), "119");
  await get.body?.cancel();
  const post = await handler(
    buildRequest("/api/nope", { method: "POST" }),
    fromAddress("198.51.100.2"),
  );
  assert.equal(post.headers.get("RateLimit-Policy"), '"write";q=10;w=60');
  assert.equal(post.headers.get("RateLimit-Remaining"), "9");
  await post.body?.cancel();
});

test("createHandler() answers the 121st read in a window 429 rate-limited with Retry-After", async () => {
  const clock = createFixedClock("2026-11-21T10:00:15Z");
  const handler = createSampleHandler({ clock });
  const client = fromAddress("192.0.2.10");
  for (let index = 0; index < 120; index++) {
    const response = await handler(buildRequest("/api/v1/health"), client);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("RateLimit-Remaining"), String(119 - index));
    await response.body?.cancel();
  }
  const limited = await handler(buildRequest("/api/v1/health"), client);
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("Retry-After"), "45");
  assert.equal(limited.headers.get("RateLimit-Reset"), "45");
  assert.equal(limited.headers.get("RateLimit-Remaining"), "0");
  assert.equal(limited.headers.get("RateLimit"), '"read";r=0;t=45');
  await readError(limited, "rate-limited");

  const other = await handler(buildRequest("/api/v1/health"), fromAddress("192.0.2.11"));
  assert.equal(other.status, 200, "another client has its own quota");
  await other.body?.cancel();

  clock.advance({ seconds: 45 });
  const next = await handler(buildRequest("/api/v1/health"), client);
  assert.equal(next.status, 200, "the quota is back when the window ends");
  assert.equal(next.headers.get("RateLimit-Remaining"), "119");
  await next.body?.cancel();
});

test("createHandler() ignores forwarding headers unless trustProxy names one", async () => {
  const handler = createSampleHandler({ rateLimits: { read: 2 } });
  const statuses: number[] = [];
  for (const forwarded of ["1.1.1.1", "2.2.2.2", "3.3.3.3"]) {
    const response = await handler(
      buildRequest("/api/v1/health", {
        headers: {
          "X-Forwarded-For": forwarded,
          "X-Real-IP": forwarded,
          "CF-Connecting-IP": forwarded,
        },
      }),
      fromAddress("192.0.2.20"),
    );
    statuses.push(response.status);
    await response.body?.cancel();
  }
  assert.deepEqual(statuses, [200, 200, 429]);
});

test("createHandler() counts the rightmost X-Forwarded-For address when it is trusted", async () => {
  const handler = createSampleHandler({ rateLimits: { read: 1 }, trustProxy: "x-forwarded-for" });
  const statuses: number[] = [];
  for (const forwarded of ["9.9.9.9, 1.1.1.1", "9.9.9.9, 2.2.2.2", "8.8.8.8, 2.2.2.2"]) {
    const response = await handler(
      buildRequest("/api/v1/health", { headers: { "X-Forwarded-For": forwarded } }),
      fromAddress("10.0.0.1"),
    );
    statuses.push(response.status);
    await response.body?.cancel();
  }
  assert.deepEqual(statuses, [200, 200, 429]);
});

test("createHandler() counts IPv6 clients per /64", async () => {
  const handler = createSampleHandler({ rateLimits: { read: 1 } });
  const first = await handler(buildRequest("/api/v1/health"), fromAddress("2001:db8:1:2::1"));
  assert.equal(first.status, 200);
  await first.body?.cancel();
  const sameNetwork = await handler(
    buildRequest("/api/v1/health"),
    fromAddress("2001:db8:1:2:ffff:ffff:ffff:ffff"),
  );
  assert.equal(sameNetwork.status, 429);
  await sameNetwork.body?.cancel();
  const otherNetwork = await handler(
    buildRequest("/api/v1/health"),
    fromAddress("2001:db8:1:3::1"),
  );
  assert.equal(otherNetwork.status, 200);
  await otherNetwork.body?.cancel();
});

test("createHandler() answers 500 internal-error with a fixed message and logs the detail", async () => {
  const logger = createRecordingLogger();
  const handler = createSampleHandler({
    logger,
    clock: {
      now: () => {
        throw new Error("secret detail: clock exploded");
      },
    },
  });
  const response = await handler(buildRequest("/api/v1/health"), fromAddress("192.0.2.30"));
  assert.equal(response.status, 500);
  const text = await response.text();
  assert.doesNotMatch(text, /secret detail/);
  const body = JSON.parse(text);
  assert.equal(body.error.code, "internal-error");
  assert.equal(body.error.message, INTERNAL_ERROR_MESSAGE);
  assert.equal(response.headers.get("API-Version"), "1");
  assert.equal(logger.records.length, 1);
  assert.equal(logger.records[0].level, "error");
  assert.match(String(logger.records[0].fields?.error), /secret detail/);
});

test("createHandler() answers a failure before routing as a 500 ErrorResponse with API-Version", async () => {
  const logger = createRecordingLogger();
  const handler = createSampleHandler({ logger });
  const info = {
    get remoteAddr(): never {
      throw new Error("secret detail: no address");
    },
  };
  const response = await handler(buildRequest("/api/v1/health"), info);
  assert.equal(response.status, 500);
  assert.equal(response.headers.get("Content-Type"), "application/json");
  assert.equal(response.headers.get("API-Version"), "1");
  const text = await response.text();
  assert.doesNotMatch(text, /secret detail/);
  assert.equal(JSON.parse(text).error.code, "internal-error");
  assert.deepEqual(logger.records.map((record) => record.message), [
    "Unexpected failure outside the route handlers",
  ]);
  assert.match(String(logger.records[0].fields?.error), /secret detail/);
});

test("createHandler() survives absurd query strings and 8 KiB headers", async () => {
  const handler = createSampleHandler();
  const query = "?" +
    Array.from({ length: 2000 }, (_, index) => `a${index}=%ff%00%zz&a=1`).join("&");
  const expected = [
    ["/api/v1/health", 200],
    ["/api/v1", 200],
    ["/api/nope", 404],
    ["/en/agents", 200],
    ["/nope", 404],
  ] as const;
  for (const [path, status] of expected) {
    const response = await handler(
      buildRequest(path + query, {
        headers: { "X-Filler": "x".repeat(8192), Cookie: "c=" + "y".repeat(8192) },
      }),
      fromAddress("192.0.2.40"),
    );
    assert.equal(response.status, status, path);
    await response.body?.cancel();
  }
});

test("createHandler() sends the deprecation notice on every /api/ response", async () => {
  const handler = createSampleHandler({
    deprecation: {
      deprecatedAt: "2027-01-01T00:00:00Z",
      sunsetAt: "2027-07-01T00:00:00Z",
      migrationUrl: "https://studio.example/en/agents#v2",
    },
  });
  for (const path of ["/api/v1/health", "/api/health", "/api/nope"]) {
    const response = await handler(buildRequest(path));
    assert.equal(response.headers.get("Deprecation"), "@1798761600", path);
    assert.equal(response.headers.get("Sunset"), "Thu, 01 Jul 2027 00:00:00 GMT");
    assert.match(
      response.headers.get("Link") ?? "",
      /<https:\/\/studio\.example\/en\/agents#v2>; rel="sunset"/,
    );
    await response.body?.cancel();
  }
  const alias = await handler(buildRequest("/api/health"));
  assert.equal(
    alias.headers.get("Link"),
    '<https://studio.example/en/agents#v2>; rel="sunset", </api/v1/health>; rel="latest-version"',
  );
  await alias.body?.cancel();
});

test("createHandler() rejects invalid options with a message naming them", () => {
  assert.throws(() => createSampleHandler({ baseUrl: "not a url" }), /baseUrl/);
  assert.throws(() => createSampleHandler({ baseUrl: "ftp://studio.example" }), /baseUrl/);
  assert.throws(() => createSampleHandler({ rateLimits: { write: 0 } }), /rateLimits\.write/);
  assert.throws(
    () =>
      createSampleHandler({
        deprecation: {
          deprecatedAt: "2027-01-01T00:00:00Z",
          sunsetAt: "2027-02-01T00:00:00Z",
          migrationUrl: "https://studio.example/notes",
        },
      }),
    /180 days/,
  );
});

test("createHandler() answers non-API unknown paths without the API envelope", async () => {
  const handler = createSampleHandler();
  const response = await handler(buildRequest("/no-such-page"));
  assert.equal(response.status, 404);
  assert.equal(response.headers.get("API-Version"), null);
  assert.equal(response.headers.get("RateLimit"), null);
  await response.body?.cancel();
});
