import { test } from "node:test";
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { createSampleHandler, SAMPLE_SCHEDULE } from "../_fixture_studio.ts";
import { buildRouteTable } from "../../routes/mod.ts";
import { resolveServices } from "../../lib/resolve_services.ts";
import { STUDIO_DEFAULTS } from "../_studio_defaults.ts";
import {
  ERROR_CODES,
  ERROR_STATUS_CODES,
  IDEMPOTENCY_KEY_PATTERN,
  OPERATIONS,
} from "../../lib/contract/contract.ts";
import { createFixedClock } from "../../testing.ts";
import { API_HEADERS, buildRequest } from "../_support.ts";

interface Schema {
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  maxLength?: number;
}
interface ResponseObject {
  headers: Record<string, unknown>;
  content?: Record<string, { schema: { $ref?: string } }>;
}
interface OperationObject {
  operationId: string;
  responses: Record<string, ResponseObject>;
  parameters?: Array<{ name: string }>;
}
interface OpenApiDocument {
  openapi: string;
  info: {
    version: string;
    description: string;
    contact?: { name: string; url: string; email?: string };
  };
  servers: unknown[];
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, Schema> };
}

async function readOpenApi(): Promise<OpenApiDocument> {
  const handler = createSampleHandler({ baseUrl: "https://studio.example" });
  const response = await handler(buildRequest("/openapi.json"));
  assert.equal(response.status, 200);
  assert.equal(
    response.headers.get("Content-Type"),
    "application/vnd.oai.openapi+json;version=3.1",
  );
  assert.equal(response.headers.get("API-Version"), null, "not under /api/");
  return await response.json();
}

test("GET /openapi.json is a valid OpenAPI 3.1 document, version 1.2.0", async () => {
  const document = await readOpenApi();
  const result = await new Validator().validate({ ...document });
  assert.deepEqual(result.errors ?? [], []);
  assert.equal(result.valid, true);
  assert.equal(document.openapi, "3.1.0");
  assert.equal(document.info.version, "1.2.0");
  assert.deepEqual(document.servers, [{ url: "https://studio.example" }]);
  assert.match(
    document.info.description,
    /genuine inquiries or meetings requested by the person concerned/,
  );
  assert.match(document.info.description, /check the attendee's mailbox/);
});

test("GET /openapi.json reads alike in every tool: no jsonSchemaDialect, a type beside every const and enum, an ErrorResponse for 500 and every other status, bounded arrays, a contact", async () => {
  const document = await readOpenApi();
  assert.equal("jsonSchemaDialect" in document, false, "the 3.1 default, left implicit");
  const untyped: string[] = [];
  const unbounded: string[] = [];
  const visit = (node: unknown, path: string) => {
    if (!node || typeof node !== "object") return;
    const schema = node as Record<string, unknown>;
    if (("const" in schema || "enum" in schema) && !("type" in schema)) untyped.push(path);
    if (schema.type === "array" && !("maxItems" in schema)) unbounded.push(path);
    for (const [key, value] of Object.entries(schema)) visit(value, `${path}/${key}`);
  };
  visit(document.components, "#/components");
  visit(document.paths, "#/paths");
  assert.deepEqual(untyped, [], "const and enum carry their type");
  assert.deepEqual(unbounded, [], "arrays carry maxItems");
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const responses = (operation as { responses: Record<string, { content?: unknown }> })
        .responses;
      for (const status of ["500", "default"]) {
        assert.deepEqual(
          responses[status]?.content,
          { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } },
          `${method} ${path} ${status}`,
        );
      }
      for (
        const parameter of (operation as { parameters?: Array<Record<string, unknown>> })
          .parameters ?? []
      ) {
        const schema = parameter.schema as Record<string, unknown>;
        if (schema.type === "string" && !("pattern" in schema)) {
          assert.ok("maxLength" in schema, `${method} ${path} ${parameter.name} has maxLength`);
        }
      }
    }
  }
  assert.deepEqual(document.info.contact, { name: "The studio", url: "https://studio.example/" });
  const configured = createSampleHandler({
    baseUrl: "https://studio.example",
    inbox: "Studio <hello@studio.example>",
  });
  const withInbox: OpenApiDocument = await (await configured(buildRequest("/openapi.json")))
    .json();
  assert.equal(withInbox.info.contact?.email, "hello@studio.example");
});

test("GET /openapi.json describes every route of the table and every spec operation", async () => {
  const document = await readOpenApi();
  const { table } = buildRouteTable(resolveServices({}, STUDIO_DEFAULTS));
  // Every route under /api must be an operation the document describes: a route added to the
  // table without an operation fails here.
  const apiRoutes = table.filter((item) => item.path === "/api" || item.path.startsWith("/api/"));
  assert.ok(apiRoutes.length >= 8, `only ${apiRoutes.length} /api routes in the table`);
  for (const route of apiRoutes) {
    assert.ok(route.operation, `${route.method} ${route.path} has no operation`);
    const operation = document.paths[route.path]?.[route.method.toLowerCase()];
    assert.ok(operation, `${route.method} ${route.path} is not in the document`);
    // An alias is documented as an operation of its own (its id names the canonical one).
    assert.ok(operation.operationId.startsWith(route.operation.operationId), route.path);
  }
  // The spec's endpoints (docs: spec, Endpoints), written out here rather than read from the
  // contract the document is built from.
  const specified = [
    "get /api/v1",
    "get /api",
    "get /api/v1/health",
    "get /api/health",
    "post /api/v1/contact",
    "post /api/fuel-contact",
    "get /api/v1/booking/slots",
    "post /api/v1/booking",
  ];
  const described = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item as Record<string, unknown>)
      .filter((method) => ["get", "post", "put", "patch", "delete"].includes(method))
      .map((method) => `${method} ${path}`)
  );
  assert.deepEqual(described.toSorted(), specified.toSorted());
  for (const operation of OPERATIONS) {
    const described = document.paths[operation.path]?.[operation.method.toLowerCase()];
    assert.equal(described?.operationId, operation.operationId);
    for (const alias of operation.aliases) {
      const aliased = document.paths[alias]?.[operation.method.toLowerCase()];
      assert.ok(aliased, `alias ${alias}`);
      assert.ok(aliased.responses["200"].headers.Link, `alias ${alias} documents Link`);
    }
  }
  for (const path of ["/api/v1/contact", "/api/v1/booking", "/api/v1/booking/slots"]) {
    assert.ok(document.paths[path], `${path} is described before its issue lands`);
  }
});

test("GET /openapi.json documents every header and an ErrorResponse for every error status", async () => {
  const document = await readOpenApi();
  const errorSchema = document.components.schemas.ErrorResponse;
  assert.deepEqual(errorSchema.properties?.error.properties?.code.enum, [...ERROR_CODES]);
  assert.deepEqual(errorSchema.properties?.error.required, ["code", "message", "hint", "docs"]);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (
          const name of API_HEADERS
        ) {
          assert.ok(response.headers[name], `${path} ${status} ${name}`);
        }
        if (status === "429") assert.ok(response.headers["Retry-After"], `${path} 429 Retry-After`);
        if (Number(status) >= 400) {
          assert.equal(
            response.content?.["application/json"].schema.$ref,
            "#/components/schemas/ErrorResponse",
            `${path} ${status}`,
          );
        }
      }
      assert.ok(operation.responses["429"], `${path} documents 429`);
    }
  }
  for (const row of ERROR_STATUS_CODES) {
    assert.match(document.info.description, new RegExp(`\\| ${row.status} \\| \`${row.code}\``));
  }
  const booking = document.paths["/api/v1/booking"].post;
  assert.deepEqual(document.components.schemas.BookingResult.properties?.status.enum, [
    "accepted",
    "pending",
  ]);
  assert.ok(booking.parameters?.some((parameter) => parameter.name === "Origin"));
  assert.equal(document.components.schemas.ContactInquiry.properties?.Name.maxLength, 200);
});

test("GET /openapi.json declares the schedule's time zone, as the slot listing answers it", async () => {
  const lisbon = await readOpenApi();
  const slots = lisbon.components.schemas.BookingSlots.properties ?? {};
  assert.deepEqual(
    slots.timeZone,
    { type: "string", const: "Europe/Lisbon" },
    "the spec's zone by default",
  );

  const schedule = { ...SAMPLE_SCHEDULE, timeZone: "America/New_York" };
  const handler = createSampleHandler({ schedule });
  const response = await handler(buildRequest("/openapi.json"));
  const document: OpenApiDocument = await response.json();
  const properties = document.components.schemas.BookingSlots.properties ?? {};
  assert.deepEqual(properties.timeZone, { type: "string", const: "America/New_York" });
  const month = Temporal.Now.plainDateISO("America/New_York").toPlainYearMonth().add({ months: 1 });
  const listing = await handler(buildRequest(`/api/v1/booking/slots?month=${month}`));
  assert.equal(listing.status, 200);
  assert.equal((await listing.json()).timeZone, "America/New_York");
});

test("GET /.well-known/api-catalog is an RFC 9727 linkset pointing at the API's documents", async () => {
  const handler = createSampleHandler({ baseUrl: "https://studio.example" });
  const response = await handler(buildRequest("/.well-known/api-catalog"));
  assert.equal(response.status, 200);
  assert.equal(
    response.headers.get("Content-Type"),
    'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
  );
  assert.equal(
    response.headers.get("Link"),
    '<https://studio.example/.well-known/api-catalog>; rel="api-catalog"',
  );
  const catalog = await response.json();
  assert.equal(catalog.linkset.length, 2);
  const [context, mcp] = catalog.linkset;
  assert.equal(context.anchor, "https://studio.example/api/v1");
  assert.equal(context["service-desc"][0].href, "https://studio.example/openapi.json");
  assert.deepEqual(
    context["service-doc"].map((link: { href: string }) => link.href),
    [
      "https://studio.example/en/api-reference",
      "https://studio.example/referencia-api",
      "https://studio.example/en/agents",
    ],
  );
  assert.equal(context.status[0].href, "https://studio.example/api/v1/health");
  assert.equal(mcp.anchor, "https://studio.example/mcp");
  assert.deepEqual(mcp["service-desc"], [{
    href: "https://studio.example/mcp/server-card",
    type: "application/mcp-server-card+json",
  }]);
  assert.equal(mcp["service-doc"][0].href, "https://studio.example/en/agents");
});

test("HEAD /.well-known/api-catalog answers the Link rel=api-catalog without a body", async () => {
  const handler = createSampleHandler({ baseUrl: "https://studio.example" });
  const response = await handler(buildRequest("/.well-known/api-catalog", { method: "HEAD" }));
  assert.equal(response.status, 200);
  assert.equal(
    response.headers.get("Link"),
    '<https://studio.example/.well-known/api-catalog>; rel="api-catalog"',
  );
  assert.equal(response.body, null);
});

test("what /openapi.json declares valid, the server accepts: the examples, real months, any visible value, an Idempotency-Key's bounds", async () => {
  const handler = createSampleHandler({
    clock: createFixedClock("2026-11-26T10:00:00Z"),
    rateLimits: { read: 1000, write: 1000 },
  });
  const document = await (await handler(buildRequest("/openapi.json"))).json();
  const contact = document.paths["/api/v1/contact"].post;
  const schema = contact.requestBody.content["application/json"].schema.$ref
    ? document.components.schemas.ContactInquiry
    : contact.requestBody.content["application/json"].schema;
  // Every property's example together is a body the server takes.
  const body = Object.fromEntries(
    Object.entries(schema.properties as Record<string, { examples?: string[] }>)
      .filter(([, property]) => property.examples?.length)
      .map(([name, property]) => [name, property.examples![0]]),
  );
  const sent = await handler(buildRequest("/api/v1/contact", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  }));
  await sent.body?.cancel();
  assert.equal(sent.status, 200, JSON.stringify(body));
  // A required field's pattern asks for a character cleaning leaves; blank values fail it.
  const visible = new RegExp(schema.properties.Name.pattern, "u");
  assert.ok(visible.test("A"));
  for (const blank of [" ", "\t\n", "\u0001\u0085", "\u007f "]) assert.ok(!visible.test(blank));

  // Months: the pattern takes real months only, and every month of the window is answered.
  const month = document.paths["/api/v1/booking/slots"].get.parameters
    .find((parameter: { name: string }) => parameter.name === "month");
  const real = new RegExp(month.schema.pattern, "u");
  for (const value of ["2026-01", "2026-12", "2027-05"]) assert.ok(real.test(value), value);
  for (const value of ["2026-00", "2026-13", "0000-00", "2026-1"]) assert.ok(!real.test(value));
  for (const value of ["2026-11", "2026-12", "2027-05"]) {
    const listing = await handler(buildRequest(`/api/v1/booking/slots?month=${value}`));
    await listing.body?.cancel();
    assert.equal(listing.status, 200, value);
  }

  // Idempotency-Key: the document's bounds and pattern are the server's.
  const key = document.paths["/api/v1/booking"].post.parameters
    .find((parameter: { name: string }) => parameter.name === "Idempotency-Key").schema;
  const declared = (value: string) =>
    value.length >= key.minLength && value.length <= key.maxLength &&
    new RegExp(key.pattern, "u").test(value);
  for (const value of ["!", "~".repeat(200), "a-uuid-4f1c", "", "~".repeat(201), "a b", "é"]) {
    assert.equal(declared(value), IDEMPOTENCY_KEY_PATTERN.test(value), JSON.stringify(value));
  }
});

test("the OpenAPI document, the API index and the API reference give the booking operations the schedule's meeting length", async () => {
  const handler = createSampleHandler({
    baseUrl: "https://studio.example",
    schedule: { ...SAMPLE_SCHEDULE, meetingMinutes: 45 },
  });
  const document = await (await handler(buildRequest("/openapi.json"))).json();
  assert.equal(document.paths["/api/v1/booking"].post.summary, "Book a 45 minute conversation");
  assert.equal(
    document.paths["/api/v1/booking/slots"].get.summary,
    "Read availability for a 45 minute conversation",
  );
  assert.match(document.info.description, /bookings of a 45 minute conversation/);
  const index = await (await handler(buildRequest("/api/v1"))).json();
  assert.deepEqual(
    index.endpoints.filter((endpoint: { path: string }) => endpoint.path.includes("booking"))
      .map((endpoint: { summary: string }) => endpoint.summary),
    ["Read availability for a 45 minute conversation", "Book a 45 minute conversation"],
  );
  const page =
    await (await handler(buildRequest("/en/api-reference", { headers: { Accept: "text/html" } })))
      .text();
  assert.match(page, /Book a 45 minute conversation/);
  assert.doesNotMatch(JSON.stringify(document) + page, /\{meetingMinutes\}|30 minute/);
});
