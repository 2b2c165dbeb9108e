import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler } from "../_fixture_studio.ts";
import { createRecordingLogger, createTestClient } from "../_support.ts";

const NEXT_MONTH = Temporal.Now.plainDateISO("Europe/Lisbon").toPlainYearMonth().add({ months: 1 });

function createClient(rateLimits?: { read?: number; write?: number }) {
  const handler = createSampleHandler({ logger: createRecordingLogger(), rateLimits });
  return { handler, client: createTestClient(handler) };
}

/** The public reads and documents: the read operations, their aliases, the documents. */
const PUBLIC_READS = [
  "/api",
  "/api/v1",
  "/api/health",
  "/api/v1/health",
  `/api/v1/booking/slots?month=${NEXT_MONTH}`,
  "/openapi.json",
  "/.well-known/api-catalog",
  "/llms.txt",
  "/en/llms.txt",
  "/llms-full.txt",
  "/md/en/services.md",
  "/mcp/server-card",
];

test("the public reads answer every origin with Access-Control-Allow-Origin: * and expose the rate-limit and version fields", async () => {
  const { client } = createClient();
  for (const path of PUBLIC_READS) {
    const response = await client.get(path, { Origin: "https://explorer.example" });
    await response.body?.cancel();
    assert.equal(response.status, 200, path);
    assert.equal(response.headers.get("Access-Control-Allow-Origin"), "*", path);
    const exposed = response.headers.get("Access-Control-Expose-Headers") ?? "";
    for (const name of ["RateLimit", "RateLimit-Policy", "API-Version", "ETag", "Retry-After"]) {
      assert.ok(exposed.split(", ").includes(name), `${path} exposes ${name}`);
    }
  }
  // A refusal of a public read is readable too: the page can tell the person to wait.
  const strict = createClient({ read: 1 }).client;
  await (await strict.get("/api/v1/health")).body?.cancel();
  const refused = await strict.get("/api/v1/health", { Origin: "https://explorer.example" });
  await refused.body?.cancel();
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("Access-Control-Allow-Origin"), "*");
});

test("POST operations and the pages grant no other origin", async () => {
  const { handler, client } = createClient();
  const pages = [await client.get("/"), await client.get("/en/services")];
  const contact = await client.post(
    "/api/v1/contact",
    JSON.stringify({ Name: "Rita", Email: "rita@example.pt", Message: "Olá" }),
    { "Content-Type": "application/json" },
  );
  for (const response of [...pages, contact]) {
    await response.body?.cancel();
    assert.equal(response.headers.get("Access-Control-Allow-Origin"), null, response.url);
  }
  const preflight = await handler(
    new Request("http://localhost:8000/api/v1/contact", {
      method: "OPTIONS",
      headers: {
        Origin: "https://evil.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
      },
    }),
  );
  await preflight.body?.cancel();
  assert.notEqual(preflight.status, 204);
  assert.equal(preflight.headers.get("Access-Control-Allow-Origin"), null);
});

test("a preflight for a public read answers 204 for a day and counts against no quota", async () => {
  const { handler, client } = createClient({ read: 1, write: 1 });
  const preflight = () =>
    handler(
      new Request(`http://localhost:8000/api/v1/booking/slots?month=${NEXT_MONTH}`, {
        method: "OPTIONS",
        headers: {
          Origin: "https://explorer.example",
          "Access-Control-Request-Method": "GET",
          "Access-Control-Request-Headers": "if-none-match, x-client",
        },
      }),
      { remoteAddr: { hostname: "203.0.113.7" } },
    );
  for (let attempt = 0; attempt < 3; attempt++) {
    const response = await preflight();
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("Access-Control-Allow-Origin"), "*");
    assert.equal(response.headers.get("Access-Control-Allow-Methods"), "GET, HEAD");
    assert.equal(response.headers.get("Access-Control-Allow-Headers"), "if-none-match, x-client");
    assert.equal(response.headers.get("Access-Control-Max-Age"), "86400");
    assert.equal(response.headers.get("RateLimit"), null, "not counted");
    assert.equal(await response.text(), "");
  }
  const read = await client.get(`/api/v1/booking/slots?month=${NEXT_MONTH}`);
  await read.body?.cancel();
  assert.equal(read.status, 200, "the quota of one read is still whole");
});

test("/openapi.json and /.well-known/api-catalog are cached like every document: ETag, 304, Cache-Control, nosniff, HEAD", async () => {
  const { client } = createClient();
  for (const path of ["/openapi.json", "/.well-known/api-catalog"]) {
    const response = await client.get(path);
    const body = await response.text();
    assert.equal(response.status, 200, path);
    const etag = response.headers.get("ETag");
    assert.match(etag ?? "", /^"[^"]+"$/, `${path}: a strong ETag`);
    assert.equal(response.headers.get("Cache-Control"), "public, max-age=3600", path);
    assert.equal(response.headers.get("X-Content-Type-Options"), "nosniff", path);
    const again = await client.get(path, { "If-None-Match": etag ?? "" });
    assert.equal(again.status, 304, path);
    assert.equal(await again.text(), "");
    assert.equal(again.headers.get("ETag"), etag);
    const head = await client.head(path);
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("Content-Length"), String(new TextEncoder().encode(body).length));
    assert.equal(await head.text(), "");
  }
});
