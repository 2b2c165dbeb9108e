import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler } from "../_fixture_studio.ts";
import { buildRouteTable } from "../../routes/mod.ts";
import { resolveServices } from "../../lib/resolve_services.ts";
import { STUDIO_DEFAULTS } from "../_studio_defaults.ts";
import { OPERATIONS } from "../../lib/contract/contract.ts";
import { buildRequest, fromAddress } from "../_support.ts";

test("GET /api/v1 answers the ApiIndex generated from the route table", async () => {
  const handler = createSampleHandler({
    baseUrl: "https://studio.example",
    rateLimits: { write: 30 },
  });
  const response = await handler(buildRequest("/api/v1"), fromAddress("203.0.113.1"));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "application/json");
  assert.equal(response.headers.get("API-Version"), "1");
  assert.equal(response.headers.get("Link"), null);
  const index = await response.json();
  assert.equal(index.name, "Studio Website Public API");
  assert.equal(index.version, "1");
  assert.equal(index.basePath, "/api/v1");
  assert.equal(index.openapi, "https://studio.example/openapi.json");
  assert.equal(index.docs, "https://studio.example/en/api-reference");
  assert.equal(index.llms, "https://studio.example/llms.txt");
  assert.equal(index.authentication, "none");
  assert.deepEqual(index.rateLimit, {
    read: { name: "read", limit: 120, windowSeconds: 60 },
    write: { name: "write", limit: 30, windowSeconds: 60 },
    booking: { name: "booking", limit: 5, windowSeconds: 300 },
  });
  assert.equal(index.versioning.header, "API-Version");
  assert.equal(index.versioning.deprecated, false);
  assert.equal(index.versioning.aliases["/api/health"], "/api/v1/health");
  assert.equal(index.versioning.aliases["/api"], "/api/v1");

  const { table } = buildRouteTable(resolveServices({}, STUDIO_DEFAULTS));
  const routed = new Set(
    table.filter((route) => route.operation).map((route) => route.operation?.operationId),
  );
  assert.deepEqual(
    index.endpoints.map((endpoint: { operationId: string }) => endpoint.operationId),
    [...routed],
  );
  for (const endpoint of index.endpoints) {
    assert.deepEqual(Object.keys(endpoint).sort(), ["method", "operationId", "path", "summary"]);
    const route = table.find((item) => item.operation?.operationId === endpoint.operationId);
    assert.equal(endpoint.path, route?.operation?.path);
    assert.equal(endpoint.method, route?.method);
  }
});

test("GET /api/v1 lists only operations that answer, and unlisted ones answer 404", async () => {
  const handler = createSampleHandler({ rateLimits: { read: 1000, write: 1000 } });
  const response = await handler(buildRequest("/api"));
  assert.equal(response.headers.get("Link"), '</api/v1>; rel="latest-version"');
  const index = await response.json();
  const listed = new Set(
    index.endpoints.map((endpoint: { operationId: string }) => endpoint.operationId),
  );
  for (const operation of OPERATIONS) {
    const answer = await handler(buildRequest(operation.path, { method: operation.method }));
    await answer.body?.cancel();
    if (listed.has(operation.operationId)) {
      assert.notEqual(answer.status, 404, operation.operationId);
    } else {
      assert.equal(answer.status, 404, operation.operationId);
    }
  }
});
