import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler } from "../_fixture_studio.ts";
import { API_HEADERS, buildRequest, fromAddress } from "../_support.ts";
import { createFixedClock } from "../../testing.ts";

test("GET /api/v1/health answers the HealthResponse with the clock's time in UTC", async () => {
  const handler = createSampleHandler({ clock: createFixedClock("2026-11-21T10:15:30.250+01:00") });
  const response = await handler(buildRequest("/api/v1/health"), fromAddress("203.0.113.7"));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "application/json");
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.equal(response.headers.get("Link"), null);
  for (const name of API_HEADERS) assert.ok(response.headers.has(name), name);
  assert.equal(response.headers.get("API-Version"), "1");
  assert.equal(response.headers.get("RateLimit-Policy"), '"read";q=120;w=60');
  assert.deepEqual(await response.json(), {
    status: "ok",
    service: "studio-website",
    version: "1",
    time: "2026-11-21T09:15:30.250Z",
  });
});

test("GET /api/v1/health answers each millisecond's time, the same text within one", async () => {
  const clock = createFixedClock("2026-11-21T09:15:30.250Z");
  const handler = createSampleHandler({ clock });
  const first = await handler(buildRequest("/api/v1/health"), fromAddress("203.0.113.7"));
  const second = await handler(buildRequest("/api/health"), fromAddress("203.0.113.7"));
  clock.advance({ milliseconds: 1 });
  const third = await handler(buildRequest("/api/v1/health"), fromAddress("203.0.113.7"));
  assert.deepEqual([first.status, second.status, third.status], [200, 200, 200]);
  assert.equal((await first.json()).time, "2026-11-21T09:15:30.250Z");
  assert.equal((await second.json()).time, "2026-11-21T09:15:30.250Z");
  assert.equal((await third.json()).time, "2026-11-21T09:15:30.251Z");
});

test("GET /api/health is the alias of v1 health with Link rel=latest-version", async () => {
  const handler = createSampleHandler({ clock: createFixedClock("2026-11-21T10:00:00Z") });
  const response = await handler(buildRequest("/api/health"), fromAddress("203.0.113.7"));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Link"), '</api/v1/health>; rel="latest-version"');
  assert.equal(response.headers.get("API-Version"), "1");
  const body = await response.json();
  assert.equal(body.status, "ok");
  assert.equal(body.service, "studio-website");
});

test("POST /api/health answers 405 with Allow and the alias's Link rel=latest-version", async () => {
  const handler = createSampleHandler();
  const response = await handler(
    buildRequest("/api/health", { method: "POST" }),
    fromAddress("203.0.113.7"),
  );
  assert.equal(response.status, 405);
  assert.equal(response.headers.get("Allow"), "GET, HEAD");
  assert.equal(response.headers.get("Link"), '</api/v1/health>; rel="latest-version"');
  assert.equal((await response.json()).error.code, "not-found");
  const v1 = await handler(buildRequest("/api/v1/health", { method: "POST" }));
  assert.equal(v1.status, 405);
  assert.equal(v1.headers.get("Link"), null, "no alias, no latest-version link");
  await v1.body?.cancel();
});

test("HEAD /api/v1/health answers the GET headers without a body", async () => {
  const handler = createSampleHandler();
  const response = await handler(buildRequest("/api/v1/health", { method: "HEAD" }));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "application/json");
  assert.equal(response.headers.get("RateLimit-Remaining"), "119");
  assert.equal(response.body, null);
});

test("a method an /api/ path does not take (405) costs a read, not the write quota", async () => {
  const handler = createSampleHandler({ rateLimits: { write: 2 } });
  for (const method of ["DELETE", "PATCH", "PUT", "OPTIONS"]) {
    const response = await handler(
      new Request("http://localhost/api/v1/health", { method }),
      fromAddress("198.51.100.7"),
    );
    await response.body?.cancel();
    assert.equal(response.status, 405, method);
    assert.match(response.headers.get("RateLimit-Policy") ?? "", /^"read"/, method);
  }
  const inquiry = await handler(
    new Request("http://localhost/api/v1/contact", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ Name: "Rita", Email: "rita@example.pt", Message: "Hello there" }),
    }),
    fromAddress("198.51.100.7"),
  );
  await inquiry.body?.cancel();
  assert.equal(inquiry.status, 200, "the write quota is whole after four 405s");
});
