/**
 * Random and malformed requests for every endpoint (fast-check arbitraries) — the API, the site,
 * the forms and the MCP endpoint (JSON-RPC messages as clients send them and odd ones: methods,
 * params, ids, batches, nesting, encodings, headers) — and the checks every answer must pass: an
 * answer within 30 s, no 5xx but a documented 503, an ErrorResponse with the API's headers for
 * every failure under `/api/`, a JSON-RPC answer (or a bare 202) for every request to `/mcp`.
 * Used by tests/e2e/fuzz_test.ts (a fixed seed in CI) and scripts/fuzz.ts (a large run on
 * demand). Internal to tests/.
 *
 * @module
 */
import fc from "fast-check";
import { METHODS as NODE_METHODS } from "node:http";
import { connect } from "node:net";
import { RUNTIME } from "../_kv.ts";
import type { OpenApiContract } from "./_contract.ts";
import { CORPUS, pageOf } from "./_studio.ts";

/** A request sent through `fetch`. */
export interface FetchCase {
  kind: "fetch";
  method: string;
  /** Path and query, possibly with percent-encoded bytes that are not UTF-8. */
  target: string;
  headers: Record<string, string>;
  body?: Uint8Array<ArrayBuffer>;
}

/** Bytes written to a socket as they are: invalid UTF-8 in the request line, odd methods. */
export interface RawCase {
  kind: "raw";
  bytes: Uint8Array;
}

/** One fuzz case. */
export type FuzzCase = FetchCase | RawCase;

const encoder = new TextEncoder();

const API_PATHS = [
  "/api",
  "/api/v1",
  "/api/health",
  "/api/v1/health",
  "/api/v1/contact",
  "/api/fuel-contact",
  "/api/v1/booking",
  "/api/v1/booking/slots",
];
/** The studio's contact pages, Portuguese and English. */
const CONTACT_PATHS = [pageOf("contact", "pt").path, pageOf("contact", "en").path];
/** The first page of the Portuguese navigation. */
const FIRST_NAV_ID = CORPUS.languages.pt.nav[0];
const SITE_PATHS = [
  pageOf("home", "pt").path,
  pageOf("home", "en").path,
  ...CONTACT_PATHS,
  pageOf("booking", "pt").path,
  pageOf("booking", "en").path,
  pageOf(FIRST_NAV_ID, "pt").path,
  "/md/",
  `/md${pageOf(FIRST_NAV_ID, "en").path}`,
  `/md${pageOf(FIRST_NAV_ID, "pt").path}.md`,
  "/llms.txt",
  "/llms-full.txt",
  "/sitemap.xml",
  "/robots.txt",
  "/openapi.json",
  "/.well-known/api-catalog",
  "/booking/confirm/01J000000000000000000000000/abc",
  "/booking/reschedule?id=01J00000000000000000000000&seq=0&sig=abc",
  "/booking/reschedule?id=01J00000000000000000000000&seq=99999999999999999999&sig=",
  "/booking/reschedule?seq=-1&month=2026-13",
];
const FIELDS = [
  "Name",
  "Email",
  "Message",
  "Category",
  "utm_source",
  "gclid",
  "start",
  "name",
  "email",
  "company",
  "topic",
  "locale",
  "website",
  "__proto__",
  "constructor",
];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=XyZ",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  "text/plain",
  "application/xml",
  "application/octet-stream",
  "text/csv; charset=utf-16",
  "",
  "application/json, text/plain",
  "*/*",
  "application/JSON",
];
const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND", "FOO"];

/** Text that stresses validators: empty, huge, control characters, lone surrogates, HTML. */
const oddText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\r\nBcc: x@example.com",
    "\ud800",
    "\udfff\ud800",
    "<script>alert(1)</script>",
    "a@b",
    "ana@example.pt",
    "2026-12-02T10:00:00Z",
    "2026-12-02T10:00:00+99:00",
    "+275760-09-13T00:00:00Z",
    "pt",
    "en",
    "../../etc/passwd",
    "%00",
    "NaN",
    "-0",
    "1e309",
  ),
  fc.tuple(fc.constantFrom("x", "é", "😀", "\u0000", " "), fc.constantFrom(201, 321, 5001, 70_000))
    .map(([unit, count]) => unit.repeat(count)),
);

/** Any JSON value, including huge, deep and odd ones. */
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  oddText,
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(oddText, { maxLength: 3 }),
  fc.dictionary(oddText, oddText, { maxKeys: 3 }),
);

/** An object with the API's field names (and others) mapped to odd values. */
const fieldObject = fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), oddText), jsonValue, {
  maxKeys: 9,
});

/** Field pairs for forms, with repeated names. */
const fieldPairs = fc.array(fc.tuple(fc.constantFrom(...FIELDS), oddText), { maxLength: 12 });

function toMultipart(pairs: Array<[string, string]>, boundary: string): Uint8Array<ArrayBuffer> {
  const parts = pairs.map(([name, value]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
  );
  return encoder.encode(`${parts.join("")}--${boundary}--\r\n`);
}

/** Bodies of every kind: JSON of any shape, forms with repeated fields, bytes that are not UTF-8. */
const body: fc.Arbitrary<Uint8Array<ArrayBuffer> | undefined> = fc.oneof(
  fc.constant(undefined),
  fieldObject.map((value) => encoder.encode(JSON.stringify(value))),
  jsonValue.map((value) => encoder.encode(JSON.stringify(value) ?? "")),
  fc.constantFrom(1_000, 10_000, 100_000).map((depth) =>
    encoder.encode("[".repeat(depth) + "]".repeat(depth))
  ),
  fc.constantFrom(1_000, 10_000).map((depth) =>
    encoder.encode('{"a":'.repeat(depth) + "1" + "}".repeat(depth))
  ),
  fieldPairs.map((pairs) => encoder.encode(new URLSearchParams(pairs).toString())),
  fieldPairs.map((pairs) => toMultipart(pairs, "XyZ")),
  fc.uint8Array({ maxLength: 300 }),
  fc.uint8Array({ minLength: 1, maxLength: 40 }).map((bytes) =>
    Uint8Array.from([...encoder.encode('{"Name":"'), ...bytes.map((b) => b | 0x80), 34, 125])
  ),
  fc.constantFrom(33_000, 70_000, 1_100_000).map((size) => new Uint8Array(size).fill(0x61)),
  fc.constantFrom('{"a":1,"a":2}', "{", '"\\ud800"', "\ufeff{}", "null", "[]", "1", "%", "a=%ZZ")
    .map((text) => encoder.encode(text)),
);

/** A path and query: known ones, random ones under /api/, /md/ and the site, odd encodings. */
const target: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...API_PATHS, ...SITE_PATHS),
  fc.tuple(fc.constantFrom("/api/", "/api/v1/", "/md/", "/", "/en/"), fc.webSegment())
    .map(([prefix, segment]) => prefix + segment),
  fc.tuple(
    fc.constantFrom("/api/v1/", "/md/", "/"),
    fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 12 }),
  ).map(([prefix, bytes]) =>
    prefix + bytes.map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join("")
  ),
  fc.constantFrom(
    "/api/v1/booking/slots?month=",
    "/api/v1/booking/slots?month=2026-13",
    "/api/v1/booking/slots?month=0000-01",
    "/api/v1/booking/slots?month=%FF",
    "/api/v1/booking/slots?month=2026-01&month=2026-02",
    "/api/v1/booking/slots?month[]=1",
    "/md/..%2f..%2fetc%2fpasswd",
    "/md/%2e%2e/%2e%2e/README.md",
    "/api//v1//health",
    "/API/V1/HEALTH",
    "/api/v1/health/",
    "/api/v1/health?" + "a=1&".repeat(2000),
    "/md/" + "a/".repeat(500),
  ),
  fc.tuple(fc.constantFrom(...API_PATHS), fc.webQueryParameters()).map(([path, query]) =>
    `${path}?${query}`
  ),
);

/** Header values, from plausible to absurd. */
const headers: fc.Arbitrary<Record<string, string>> = fc.record({
  "Content-Type": fc.constantFrom(...CONTENT_TYPES),
  Accept: fc.constantFrom(
    "*/*",
    "text/markdown",
    "text/markdown;q=0.1, text/html",
    "application/json",
    "text/markdown;q=abc",
    ";;;,,,",
    "x".repeat(4000),
  ),
  "Accept-Language": fc.constantFrom("pt", "en", "*", "zz-ZZ;q=2", ""),
  Origin: fc.constantFrom("null", "https://evil.example", "https://studio.example", "%%%"),
  "X-Forwarded-For": fc.oneof(
    fc.ipV4(),
    fc.ipV6(),
    fc.constantFrom("", "garbage", "1.2.3.4, 5.6.7.8", "999.1.1.1", "::ffff:1.2.3.4"),
  ),
  "Idempotency-Key": fc.string({ maxLength: 300 }).filter((key) => /^[\x20-\x7e]*$/.test(key)),
  "If-None-Match": fc.constantFrom("*", '"abc"', 'W/"x"', ""),
  Cookie: fc.constantFrom("first_touch=%7B%22utm_source%22%3A1%7D", "first_touch=%%%", "a=b"),
}, { requiredKeys: [] });

/** The methods of MCP's revisions, and some that no revision has. */
const MCP_METHODS = [
  "initialize",
  "notifications/initialized",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "resources/subscribe",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "server/discover",
  "subscriptions/listen",
  "notifications/cancelled",
  "notifications/progress",
  "tasks/get",
  "sampling/createMessage",
  "rpc.discover",
  "__proto__",
  "",
];
const MCP_TOOLS = ["list_available_slots", "book_call", "send_inquiry", "get_studio_info"];
const MCP_REVISIONS = [
  "2026-07-28",
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
  "2099-01-01",
  "",
  "latest",
];

/** A `_meta` envelope of the 2026-07-28 revision, from well formed to absurd. */
const mcpEnvelope: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({
    "io.modelcontextprotocol/protocolVersion": fc.oneof(
      fc.constantFrom(...MCP_REVISIONS),
      jsonValue,
    ),
    "io.modelcontextprotocol/clientInfo": fc.oneof(
      fc.record({ name: oddText, version: oddText }),
      jsonValue,
    ),
    "io.modelcontextprotocol/clientCapabilities": fc.oneof(
      fc.constant({}),
      fc.dictionary(fc.constantFrom("sampling", "elicitation", "roots", "x"), jsonValue),
      jsonValue,
    ),
  }, { requiredKeys: [] }),
  jsonValue,
);

/** The arguments of a tool: its fields (and others) with odd values, or not an object at all. */
const mcpArguments: fc.Arbitrary<unknown> = fc.oneof(
  fieldObject,
  fc.record({
    month: fc.oneof(fc.constantFrom("2026-12", "2027-01", "2020-01", "2026-13"), oddText),
  }),
  jsonValue,
);

/** The params of a JSON-RPC request: the usual members with odd values, or any JSON. */
const mcpParams: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      name: fc.oneof(fc.constantFrom(...MCP_TOOLS, "book_a_conversation"), oddText),
      arguments: mcpArguments,
      protocolVersion: fc.constantFrom(...MCP_REVISIONS),
      capabilities: fc.oneof(fc.constant({}), jsonValue),
      clientInfo: fc.oneof(fc.record({ name: oddText, version: oddText }), jsonValue),
      uri: fc.oneof(fc.webUrl(), oddText),
      cursor: oddText,
      level: fc.constantFrom("debug", "info", "emergency", "loud"),
      requestId: fc.oneof(fc.integer(), oddText),
      _meta: mcpEnvelope,
    }, { requiredKeys: [] }),
  },
  { weight: 1, arbitrary: jsonValue },
  { weight: 1, arbitrary: fc.constantFrom(undefined, null, [], {}, [1, 2]) },
);

/** A JSON-RPC id: the valid kinds and the invalid ones. */
const mcpId: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, -1, 1.5, 2 ** 53, 1e309, null, true, "", "1", [], {}),
  oddText,
);

/** A message with every member possibly missing or odd. */
const mcpOddMessage: fc.Arbitrary<Record<string, unknown>> = fc.record({
  jsonrpc: fc.oneof(
    { weight: 8, arbitrary: fc.constant("2.0") },
    { weight: 1, arbitrary: fc.constantFrom("1.0", 2, null, "") },
  ),
  id: mcpId,
  method: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...MCP_METHODS) },
    { weight: 1, arbitrary: oddText },
    { weight: 1, arbitrary: jsonValue },
  ),
  params: mcpParams,
  result: jsonValue,
  error: fc.oneof(fc.record({ code: fc.integer(), message: oddText }), jsonValue),
}, { requiredKeys: ["jsonrpc", "method"] });

/** The envelope of a 2026-07-28 client, well formed. */
const MCP_ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A tool call as a client makes it: a tool's name and arguments that may or may not be valid. */
const mcpToolCall: fc.Arbitrary<Record<string, unknown>> = fc.record({
  name: fc.constantFrom(...MCP_TOOLS),
  arguments: fc.oneof(
    fc.constant({}),
    fc.constantFrom("2026-12", "2027-01", "2027-05", "2020-01", "2026-13", "").map((month) => ({
      month,
    })),
    fc.record({
      name: oddText,
      email: fc.oneof(fc.emailAddress(), oddText),
      message: oddText,
      start: fc.constantFrom("2026-12-02T10:00:00Z", "2026-12-02T10:00:00+00:00", "x"),
      topic: oddText,
      locale: fc.constantFrom("en", "pt", "fr"),
    }, { requiredKeys: [] }),
    mcpArguments,
  ),
});

/** A JSON-RPC request or notification as the SDK's clients send them, in either revision. */
const mcpClientMessage: fc.Arbitrary<Record<string, unknown>> = fc.tuple(
  fc.oneof(fc.nat(), fc.string({ maxLength: 12 })),
  fc.constantFrom(...MCP_METHODS.slice(0, 18)),
  fc.oneof(
    mcpToolCall,
    fc.record({
      protocolVersion: fc.constantFrom(...MCP_REVISIONS),
      capabilities: fc.constant({}),
      clientInfo: fc.constant({ name: "fuzz", version: "1.0.0" }),
    }),
    fc.record({ uri: fc.constantFrom("https://studio.example/en/llms.txt", "x:") }),
    fc.record({ name: fc.constantFrom("book_a_conversation", "x") }),
    fc.constant({}),
  ),
  fc.boolean(),
  fc.nat(4).map((draw) => draw === 0),
).map(([id, method, params, modern, notification]) => ({
  jsonrpc: "2.0",
  ...(notification ? {} : { id }),
  method,
  params: modern ? { ...params, _meta: MCP_ENVELOPE } : params,
}));

/** One JSON-RPC message: mostly as clients send them, else with every member odd. */
const mcpMessage: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { weight: 3, arbitrary: mcpClientMessage },
  { weight: 2, arbitrary: mcpOddMessage },
);

/** Text that is the JSON of a value nested `depth` times inside a message's params. */
function toNested(message: Record<string, unknown>, depth: number, open: string, close: string) {
  const inner = open.repeat(depth) + close.repeat(depth);
  return JSON.stringify({ ...message, params: "@" }).replace('"@"', inner);
}

/** The body of a POST to /mcp: a message, a batch, deep nesting, odd encodings. */
const mcpBody: fc.Arbitrary<Uint8Array<ArrayBuffer>> = fc.oneof(
  { weight: 6, arbitrary: mcpMessage.map((message) => encoder.encode(JSON.stringify(message))) },
  {
    weight: 2,
    arbitrary: fc.array(mcpMessage, { maxLength: 5 })
      .map((batch) => encoder.encode(JSON.stringify(batch))),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(mcpMessage, fc.constantFrom(0, 1, 100, 101, 500))
      .map(([message, count]) => encoder.encode(JSON.stringify(Array(count).fill(message)))),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(mcpMessage, fc.constantFrom(10, 1_000, 5_000))
      .map(([message, depth]) =>
        encoder.encode(
          depth % 2 ? toNested(message, depth, "[", "]") : toNested(message, depth, '{"a":', "1}"),
        )
      ),
  },
  {
    weight: 1,
    arbitrary: mcpMessage.map((message) => {
      const bytes = encoder.encode(JSON.stringify(message));
      // Invalid UTF-8 in the middle of the JSON text.
      const middle = bytes.length >> 1;
      return Uint8Array.from([...bytes.slice(0, middle), 0xc3, 0x28, ...bytes.slice(middle)]);
    }),
  },
  {
    weight: 1,
    arbitrary: mcpMessage.map((message) => {
      // UTF-16 (little endian, with its byte-order mark), as a client with the wrong charset sends.
      const text = JSON.stringify(message);
      const bytes = new Uint8Array(2 + text.length * 2);
      bytes.set([0xff, 0xfe]);
      for (let index = 0; index < text.length; index++) {
        bytes[2 + index * 2] = text.charCodeAt(index) & 0xff;
        bytes[3 + index * 2] = text.charCodeAt(index) >> 8;
      }
      return bytes;
    }),
  },
  { weight: 1, arbitrary: body.map((bytes) => bytes ?? new Uint8Array(0)) },
);

/** Headers of a POST to /mcp: the transport's own (media types, revision, method, session). */
const mcpOddHeaders: fc.Arbitrary<Record<string, string>> = fc.record({
  "Content-Type": fc.constantFrom(
    "application/json",
    "application/json; charset=utf-8",
    "application/json; charset=latin1",
    "application/json; charset=utf-16",
    "application/json;charset=UTF-8",
    "application/JSON",
    "text/plain",
    "application/x-www-form-urlencoded",
    "",
  ),
  Accept: fc.constantFrom(
    "application/json, text/event-stream",
    "text/event-stream, application/json",
    "application/json",
    "text/event-stream",
    "*/*",
    "",
    "x".repeat(4000),
  ),
  "MCP-Protocol-Version": fc.oneof(fc.constantFrom(...MCP_REVISIONS), oddText),
  "MCP-Method": fc.oneof(fc.constantFrom(...MCP_METHODS), oddText),
  "MCP-Name": fc.oneof(fc.constantFrom(...MCP_TOOLS), oddText),
  "Mcp-Session-Id": fc.constantFrom("abc", "", "00000000-0000-0000-0000-000000000000"),
  "Last-Event-ID": fc.constantFrom("1", "abc"),
  Origin: fc.constantFrom("null", "https://evil.example", "https://studio.example", "%%%"),
  "X-Forwarded-For": fc.oneof(fc.ipV4(), fc.constantFrom("", "garbage")),
}, { requiredKeys: [] }).map((fields) => {
  // fetch refuses header values with control characters or outside Latin-1, and a server
  // refuses a head of tens of kilobytes before the service sees it: leave those out.
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (/^[\x20-\x7e]*$/.test(value) && value.length <= 4000) headers[name] = value;
  }
  return headers;
});

/**
 * A POST to /mcp as the SDK's clients send it: one message (or a few), with the headers of its
 * revision that match it (the 2026-07-28 revision's `MCP-Method` and `MCP-Name`).
 */
const mcpClientCase: fc.Arbitrary<FetchCase> = fc.tuple(
  fc.oneof(
    { weight: 4, arbitrary: mcpClientMessage.map((message) => [message]) },
    { weight: 1, arbitrary: fc.array(mcpClientMessage, { minLength: 1, maxLength: 3 }) },
  ),
  fc.constantFrom(...MCP_REVISIONS.slice(1, 4)),
  fc.constantFrom("application/json", "application/json; charset=utf-8"),
).map(([messages, revision, contentType]) => {
  const [first] = messages;
  const params = first.params as { name?: unknown; _meta?: unknown };
  const modern = params._meta !== undefined;
  const headers: Record<string, string> = {
    "Content-Type": contentType,
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": modern ? "2026-07-28" : revision,
  };
  if (modern) headers["MCP-Method"] = String(first.method);
  if (modern && typeof params.name === "string") headers["MCP-Name"] = params.name;
  const body = messages.length === 1 ? first : messages;
  return {
    kind: "fetch" as const,
    method: "POST",
    target: "/mcp",
    headers,
    body: encoder.encode(JSON.stringify(body)),
  };
});

/** Requests to the MCP endpoint: odd headers and bodies, some other methods and paths. */
const mcpOddCase: fc.Arbitrary<FetchCase> = fc.record({
  kind: fc.constant("fetch" as const),
  method: fc.oneof(
    { weight: 8, arbitrary: fc.constant("POST") },
    { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
  ),
  target: fc.constantFrom("/mcp", "/mcp", "/mcp", "/mcp/", "/mcp?x=1", "/MCP"),
  headers: mcpOddHeaders,
  body: mcpBody,
});

/** Requests to the MCP endpoint: mostly as clients send them, so that most reach the tools. */
const mcpCase: fc.Arbitrary<FetchCase> = fc.oneof(
  { weight: 3, arbitrary: mcpClientCase },
  { weight: 2, arbitrary: mcpOddCase },
);

/** A request line with bytes that are not UTF-8, odd methods, odd header bytes. */
const rawCase: fc.Arbitrary<RawCase> = fc.record({
  method: fc.constantFrom("GET", "POST", "BREW", "get", "PRI", "M-SEARCH"),
  prefix: fc.constantFrom("/api/v1/", "/md/", "/", "/api/fuel-contact", "/mcp"),
  pathBytes: fc.uint8Array({ maxLength: 20 }).map((bytes) =>
    bytes.map((b) => b <= 0x20 || b === 0x7f ? 0x80 | b : b)
  ),
  headerBytes: fc.uint8Array({ maxLength: 20 }).map((bytes) =>
    bytes.map((b) => b < 0x20 || b === 0x7f ? 0x80 | b : b)
  ),
  body: fc.uint8Array({ maxLength: 64 }),
}).map(({ method, prefix, pathBytes, headerBytes, body }) => {
  const head = encoder.encode(`${method} ${prefix}`);
  const middle = encoder.encode(" HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Odd: ");
  const tail = encoder.encode(
    `\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
      "Connection: close\r\n\r\n",
  );
  return {
    kind: "raw" as const,
    bytes: Uint8Array.from([...head, ...pathBytes, ...middle, ...headerBytes, ...tail, ...body]),
  };
});

/** Every kind of case: mostly fetch requests to the API and the site, MCP, some raw bytes. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  { weight: 3, arbitrary: mcpCase },
  {
    weight: 9,
    arbitrary: fc.record({
      kind: fc.constant("fetch" as const),
      // Mostly POST to the write operations, where bodies matter; every method and path besides.
      method: fc.oneof(
        { weight: 3, arbitrary: fc.constant("POST") },
        { weight: 2, arbitrary: fc.constantFrom(...METHODS) },
      ),
      target: fc.oneof(
        {
          weight: 2,
          arbitrary: fc.constantFrom("/api/v1/contact", "/api/fuel-contact", "/api/v1/booking"),
        },
        { weight: 1, arbitrary: fc.constantFrom(...CONTACT_PATHS) },
        { weight: 3, arbitrary: target },
      ),
      headers,
      body,
    }),
  },
  { weight: 1, arbitrary: rawCase },
);

/** A short, printable description of a case, for failure messages. */
export function describeCase(value: FuzzCase): string {
  if (value.kind === "raw") {
    return `raw ${JSON.stringify(new TextDecoder().decode(value.bytes.slice(0, 200)))}`;
  }
  const size = value.body?.length ?? 0;
  const preview = value.body ? new TextDecoder().decode(value.body.slice(0, 120)) : "";
  const headers = Object.fromEntries(
    Object.entries(value.headers).map(([name, text]) => [
      name,
      text.length > 100 ? `${text.slice(0, 100)}… (${text.length} characters)` : text,
    ]),
  );
  return `${value.method} ${value.target.slice(0, 200)} ${JSON.stringify(headers)} ` +
    `body ${size} bytes ${JSON.stringify(preview)}`;
}

/** What an answer broke: empty when it passed. */
export type Problems = string[];

/** How long one case may take, answer included: a case not answered by then is a hang. */
const CASE_TIMEOUT_MILLISECONDS = 30_000;

/** Whether a fetch failed because its time ran out. */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}

/** Whether a value is one JSON-RPC response: `jsonrpc` 2.0, an `id`, a `result` or an `error`. */
function isJsonRpcResponse(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== "2.0" || !("id" in message)) return false;
  if ("result" in message) {
    return typeof message.result === "object" && message.result !== null && !("error" in message);
  }
  const error = message.error as { code?: unknown; message?: unknown } | undefined;
  return typeof error?.code === "number" && typeof error.message === "string";
}

/**
 * What an answer of the MCP endpoint breaks: every answer with a body is JSON-RPC — one response,
 * or for a batch an array of them — in `application/json` (or its event stream), a 202 has no
 * body, and no answer is a 5xx (the endpoint documents none but its 503 while the server stops).
 */
function checkMcpAnswer(value: FetchCase, response: Response, bytes: Uint8Array): Problems {
  const { status } = response;
  if (value.method === "HEAD" || (status === 202 && bytes.length === 0)) return [];
  if (status === 202) return [`202 with a body of ${bytes.length} bytes`];
  // Node's HTTP parser answers a method it does not know before the service sees it.
  if (RUNTIME === "node" && !NODE_METHODS.includes(value.method)) return [];
  const type = response.headers.get("Content-Type") ?? "";
  // Bun's `Response.json` adds `;charset=utf-8`, which the SDK's own answers keep there.
  const mediaType = type.split(";")[0].trim().toLowerCase();
  let text = new TextDecoder().decode(bytes);
  if (mediaType === "text/event-stream") {
    text = /^data: (.*)$/m.exec(text)?.[1] ?? "";
  } else if (mediaType !== "application/json") {
    return [`MCP answer ${status} in ${JSON.stringify(type)}: ${text.slice(0, 200)}`];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [`MCP answer ${status} is not JSON: ${text.slice(0, 200)}`];
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  if (!messages.length || !messages.every(isJsonRpcResponse)) {
    return [`MCP answer ${status} is not JSON-RPC: ${text.slice(0, 300)}`];
  }
  return [];
}

/** Operations documented to answer 503 (a calendar or provider down, an uncertain outcome). */
const MAY_ANSWER_503 = ["/api/v1/booking", "/api/v1/booking/slots"];

/**
 * Sends one case to `origin` and checks the answer.
 *
 * @param origin `http://127.0.0.1:<port>`
 * @param contract The compiled OpenAPI document (for the ErrorResponse schema and the headers).
 * @param value The case.
 * @param onStatus Told each answer's status (0 when a raw request got no status line) and the
 *   path it was sent to.
 */
export async function runCase(
  origin: string,
  contract: OpenApiContract,
  value: FuzzCase,
  onStatus?: (status: number, path: string) => void,
): Promise<Problems> {
  if (value.kind === "raw") return await runRawCase(origin, value, onStatus);
  const init: RequestInit = {
    method: value.method,
    headers: value.headers,
    body: value.method === "GET" || value.method === "HEAD" ? undefined : value.body,
  };
  let request: Request;
  try {
    request = new Request(`${origin}${value.target}`, init);
  } catch {
    return []; // A request the client itself refuses to build never reaches the server.
  }
  const path = new URL(request.url).pathname;
  let response: Response;
  try {
    response = await fetch(request, { signal: AbortSignal.timeout(CASE_TIMEOUT_MILLISECONDS) });
  } catch (error) {
    if (isTimeout(error)) {
      return [`no answer within ${CASE_TIMEOUT_MILLISECONDS / 1000} s (a hang)`];
    }
    // A server may answer a request without reading a large body it has no use for (a 404 or a
    // 405) and close the connection; Node's fetch (undici) then reports "other side closed"
    // instead of the answer (curl and Deno's fetch show it), and may fail the next request on
    // that closed connection too. That is the client's view, not a failure of the service: the
    // same request again, on a fresh connection, must be answered.
    try {
      response = await fetch(new Request(`${origin}${value.target}`, init), {
        signal: AbortSignal.timeout(CASE_TIMEOUT_MILLISECONDS),
      });
    } catch (error) {
      if (isTimeout(error)) {
        return [`no answer within ${CASE_TIMEOUT_MILLISECONDS / 1000} s (a hang)`];
      }
      // Bun's fetch refuses a body with a method it does not know (e.g. FOO) before sending.
      if (String(error).includes("cannot have body")) return [];
      const health = await fetch(`${origin}/api/v1/health`);
      await health.body?.cancel();
      if ((value.body?.length ?? 0) > 65_536 && health.status === 200) return [];
      const cause = error instanceof Error ? `${error.message} ${String(error.cause)}` : error;
      return [`no answer: ${cause}`];
    }
  }
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    if (isTimeout(error)) return [`body not complete within ${CASE_TIMEOUT_MILLISECONDS / 1000} s`];
    throw error;
  }
  onStatus?.(response.status, path);
  const problems: Problems = [];
  if (path === "/mcp") problems.push(...checkMcpAnswer(value, response, bytes));
  if (response.status >= 500) {
    const documented = response.status === 503 && MAY_ANSWER_503.includes(path);
    if (!documented) problems.push(`status ${response.status}`);
  }
  // Node's HTTP parser (llhttp) answers a method it does not know (e.g. FOO) with a bare 400
  // before the service sees the request; Deno and Bun pass it on. Only the status counts there.
  const parsedByService = RUNTIME !== "node" || NODE_METHODS.includes(value.method);
  if (parsedByService && (path === "/api" || path.startsWith("/api/"))) {
    problems.push(...contract.checkHeaders(response, contract.requiredHeaders));
    if (response.status >= 400 && value.method !== "HEAD") {
      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        problems.push(`not JSON: ${new TextDecoder().decode(bytes.slice(0, 200))}`);
      }
      if (parsed !== undefined && !contract.validateError(parsed)) {
        problems.push(`not an ErrorResponse: ${JSON.stringify(parsed).slice(0, 300)}`);
      }
    }
  }
  return problems;
}

/** Writes raw bytes and reads the status line; a 5xx is a problem, a refused request is not. */
async function runRawCase(
  origin: string,
  value: RawCase,
  onStatus?: (status: number, path: string) => void,
): Promise<Problems> {
  const { hostname, port } = new URL(origin);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error("no answer to a raw request within 10 s"));
    });
    socket.on("data", (chunk) => text += chunk.toString("latin1"));
    socket.on("error", () => resolve(text)); // A reset is how some servers refuse bad bytes.
    socket.on("end", () => resolve(text));
    socket.on("close", () => resolve(text));
    socket.write(value.bytes);
  });
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 0);
  onStatus?.(status, "(raw)");
  return status >= 500 ? [`status ${status}: ${answer.slice(0, 300)}`] : [];
}
