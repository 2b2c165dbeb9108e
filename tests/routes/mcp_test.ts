import { test } from "node:test";
import assert from "node:assert/strict";
import * as sdk from "@modelcontextprotocol/server";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import type { Handler } from "../../mod.ts";
import { createSampleHandler } from "../_fixture_studio.ts";
import {
  MCP_HANDSHAKE_PROTOCOL_VERSIONS,
  MCP_PROTOCOL_VERSIONS,
} from "../../lib/mcp/build_server_card.ts";
import type { InquiryRecord } from "../../lib/contact/inquiries.ts";
import { resolveServices } from "../../lib/resolve_services.ts";
import { STUDIO_DEFAULTS } from "../_studio_defaults.ts";
import { createMcpServers, toAuthInfo } from "../../routes/_mcp_server.ts";
import { toLegByShape } from "../../routes/mcp.ts";
import { createFixedClock, createMemoryMailer, createMemoryStore } from "../../testing.ts";
import { buildRequest, createRecordingLogger, fromAddress } from "../_support.ts";
import {
  assertNoSampleWords,
  OTHER_CORPUS,
  OTHER_SCHEDULE,
  OTHER_TIME_ZONE,
} from "../_other_studio.ts";

const BASE_URL = "http://localhost:8000";
const NOW = "2026-11-21T10:00:00Z";
const MONTH = "2026-12";
const LEGACY = "2025-11-25";
const MODERN = "2026-07-28";
/** What the SDK's client sends: it reads either answer. */
const ACCEPT = "application/json, text/event-stream";

interface JsonRpcAnswer {
  jsonrpc: string;
  id: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
  structuredContent: Record<string, unknown>;
}

function createApp(rateLimits: { read?: number } = {}) {
  const store = createMemoryStore();
  const handler = createSampleHandler({
    baseUrl: BASE_URL,
    store,
    mailer: createMemoryMailer(),
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
    rateLimits,
  });
  return { store, handler };
}

/** A 2025-era message, as the SDK's client sends it after `initialize`. */
function postLegacy(message: Record<string, unknown>, headers: Record<string, string> = {}) {
  return buildRequest("/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: ACCEPT,
      "MCP-Protocol-Version": LEGACY,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...message }),
  });
}

/** A 2026-07-28 message: the client's facts in its `_meta` envelope, the standard headers. */
function postModern(method: string, params: Record<string, unknown> = {}, name?: string) {
  return buildRequest("/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: ACCEPT,
      "MCP-Protocol-Version": MODERN,
      "MCP-Method": method,
      ...(name ? { "MCP-Name": name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": { name: "test", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
}

function callTool(name: string, args: Record<string, unknown>, headers?: Record<string, string>) {
  return postLegacy({ method: "tools/call", params: { name, arguments: args } }, headers);
}

/** Reads a JSON answer after checking its status and media type. */
async function readJsonAnswer(response: Response): Promise<JsonRpcAnswer> {
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "application/json");
  return await response.json();
}

async function readToolResult(response: Response): Promise<ToolResult> {
  const answer = await readJsonAnswer(response);
  assert.equal(answer.error, undefined);
  return answer.result as unknown as ToolResult;
}

test("POST /mcp keeps each client's quota apart while the server is reused: one client's exhausted quota refuses none of another's calls", async () => {
  // read: 3 per 60 s. A call costs two: the POST and the tool's own count.
  const { handler } = createApp({ read: 3 });
  const first = fromAddress("192.0.2.7");
  const second = fromAddress("198.51.100.9");
  const listSlots = () => callTool("list_available_slots", { month: MONTH });

  const listed = await readToolResult(await handler(listSlots(), first));
  assert.equal(listed.isError, undefined);
  assert.equal(listed.structuredContent.timeZone, "Europe/Lisbon");
  assert.equal(typeof listed.structuredContent.slots, "object");

  const refused = await readToolResult(await handler(listSlots(), first));
  assert.equal(refused.isError, true);
  assert.match(
    refused.content[0].text,
    /^Too many requests from this client \(429 rate-limited\): Retry in \d+ seconds \(the "read" quotas/,
  );
  assert.deepEqual((refused.structuredContent.error as { code: string }).code, "rate-limited");

  const other = await readToolResult(await handler(listSlots(), second));
  assert.equal(other.isError, undefined);
  assert.deepEqual(other.structuredContent, listed.structuredContent);

  const closed = await handler(listSlots(), first);
  assert.equal(closed.status, 429);
  assert.match(closed.headers.get("Retry-After") ?? "", /^\d+$/);
  assert.match((await closed.json()).error.message, /retry in \d+ seconds/);

  const otherRefused = await readToolResult(await handler(listSlots(), second));
  assert.equal(otherRefused.isError, true);
  assert.match(otherRefused.content[0].text, /\(429 rate-limited\)/);
});

test("POST /mcp stores each inquiry with its own request's client address and User-Agent", async () => {
  const { handler, store } = createApp();
  const senders = [
    { address: "192.0.2.7", userAgent: "AgentOne/1.0", name: "Ana Sousa" },
    { address: "198.51.100.9", userAgent: "AgentTwo/2.0", name: "Rui Costa" },
  ];
  for (const sender of senders) {
    const response = await handler(
      callTool("send_inquiry", {
        name: sender.name,
        email: "contact@example.pt",
        message: "We need a new brand identity for our bakery, ready by spring.",
      }, { "User-Agent": sender.userAgent }),
      fromAddress(sender.address),
    );
    const result = await readToolResult(response);
    assert.deepEqual(result.structuredContent, { ok: true });
  }
  const records: InquiryRecord[] = [];
  for await (const entry of store.list<InquiryRecord>({ prefix: ["inquiry"] })) {
    records.push(entry.value);
  }
  assert.deepEqual(
    records.map((record) => [record.fields.Name, record.clientAddress, record.userAgent]).sort(),
    senders.map((sender) => [sender.name, sender.address, sender.userAgent]),
  );
});

test("POST /mcp answers Content-Type: application/json to a client that accepts JSON and event streams, in the 2025 revisions", async () => {
  const { handler } = createApp();
  const initialized = await readJsonAnswer(
    await handler(postLegacy({
      method: "initialize",
      params: {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "test", version: "1.0.0" },
      },
    })),
  );
  assert.equal(initialized.id, 1);
  assert.equal(initialized.result?.protocolVersion, LEGACY);
  assert.equal((initialized.result?.serverInfo as { version: string }).version, "1.0.0");

  const notified = await handler(
    postLegacy({ method: "notifications/initialized", id: undefined }),
  );
  assert.equal(notified.status, 202);
  assert.equal(await notified.text(), "");

  const listed = await readJsonAnswer(await handler(postLegacy({ method: "tools/list" })));
  assert.deepEqual(
    (listed.result?.tools as Array<{ name: string }>).map((tool) => tool.name).sort(),
    ["book_call", "get_studio_info", "list_available_slots", "send_inquiry"],
  );

  const slots = await readToolResult(
    await handler(callTool("list_available_slots", { month: MONTH })),
  );
  assert.equal(slots.isError, undefined);
  assert.deepEqual(JSON.parse(slots.content[0].text), slots.structuredContent);

  const invalid = await readToolResult(
    await handler(callTool("list_available_slots", { month: "2020-01" })),
  );
  assert.equal(invalid.isError, true);
  assert.match(invalid.content[0].text, /month/);
});

test("POST /mcp answers Content-Type: application/json to a client that accepts JSON and event streams, in the 2026-07-28 revision", async () => {
  const { handler } = createApp();
  const discovered = await readJsonAnswer(await handler(postModern("server/discover")));
  assert.equal(discovered.id, 7);
  assert.deepEqual(discovered.result?.supportedVersions, [MODERN]);

  const listed = await readJsonAnswer(await handler(postModern("tools/list")));
  assert.equal((listed.result?.tools as unknown[]).length, 4);

  const called = await readToolResult(
    await handler(
      postModern(
        "tools/call",
        { name: "list_available_slots", arguments: { month: MONTH } },
        "list_available_slots",
      ),
    ),
  );
  assert.equal(called.isError, undefined);
  assert.equal(called.structuredContent.timeZone, "Europe/Lisbon");
});

test("POST /mcp refuses what it cannot read as the SDK does: 415, 413 within 64 KiB, 400 for JSON that does not parse, 406 without JSON and event streams", async () => {
  const { handler } = createApp();
  const plain = await handler(buildRequest("/mcp", {
    method: "POST",
    headers: { "Content-Type": "text/plain", Accept: ACCEPT },
    body: "{}",
  }));
  assert.equal(plain.status, 415);
  assert.match((await plain.json()).error.message, /Content-Type must be application\/json/);

  const padding = "x".repeat(64 * 1024);
  const large = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { padding } });
  const declared = await handler(buildRequest("/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: ACCEPT,
      "Content-Length": String(large.length),
    },
    body: large,
  }));
  assert.equal(declared.status, 413);
  assert.deepEqual(await declared.json(), {
    jsonrpc: "2.0",
    error: { code: -32000, message: "Payload Too Large: Request body must not exceed 65536 bytes" },
    id: null,
  });
  const streamed = await handler(buildRequest("/mcp", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: ACCEPT },
    body: new Blob([large]).stream(),
  }));
  assert.equal(streamed.status, 413);
  await streamed.body?.cancel();

  const broken = await handler(buildRequest("/mcp", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: ACCEPT },
    body: '{"jsonrpc": "2.0",',
  }));
  assert.equal(broken.status, 400);
  assert.equal((await broken.json()).error.code, -32700);

  const jsonOnly = await handler(buildRequest("/mcp", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  }));
  assert.equal(jsonOnly.status, 406);
  assert.match((await jsonOnly.json()).error.message, /Not Acceptable/);
});

test("POST /mcp list_available_slots answers the listing as it stands, in both revisions: a booked slot leaves its text as it leaves its structured content", async () => {
  const { handler } = createApp();
  const listing = { name: "list_available_slots", arguments: { month: MONTH } };
  const listIn = async (request: Request) => {
    const result = await readToolResult(await handler(request));
    assert.equal(result.isError, undefined);
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
    return result;
  };
  const list = () => listIn(callTool("list_available_slots", { month: MONTH }));
  const listModern = () => listIn(postModernCall(listing));
  const before = await list();
  assert.deepEqual((await list()).content[0].text, before.content[0].text);
  const beforeModern = await listModern();
  assert.deepEqual(beforeModern.structuredContent, before.structuredContent);
  assert.deepEqual((await listModern()).content[0].text, before.content[0].text);
  const slots = before.structuredContent.slots as Record<string, Array<{ start: string }>>;
  const [start] = Object.values(slots).flat().map((slot) => slot.start);
  assert.ok(start, "a free slot to book");

  const booked = await readToolResult(
    await handler(callTool("book_call", {
      start,
      name: "Ana Sousa",
      email: "ana.listing@example.pt",
      topic: "A new website for our clinic",
      locale: "en",
    })),
  );
  assert.equal(booked.isError, undefined, booked.content[0].text);

  const after = await list();
  assert.ok(!after.content[0].text.includes(start));
  assert.notDeepEqual(after.structuredContent, before.structuredContent);
  const afterModern = await listModern();
  assert.ok(!afterModern.content[0].text.includes(start));
  assert.deepEqual(afterModern.structuredContent, after.structuredContent);
});

test("toLegByShape() routes a body as isLegacyRequest does wherever its shape decides, and decides the common calls of both revisions", async () => {
  const claim = (version: unknown) => ({ _meta: { [sdk.PROTOCOL_VERSION_META_KEY]: version } });
  const bodies: unknown[] = [null, [], "text", 7, [{ jsonrpc: "2.0", id: 1, method: "ping" }]];
  for (const method of ["tools/call", "initialize", "ping", "notifications/initialized", 5]) {
    for (const id of [1, "a", 1.5, null, undefined]) {
      for (const jsonrpc of ["2.0", "1.0"]) {
        for (
          const params of [
            undefined,
            {},
            [],
            { _meta: {} },
            { _meta: null },
            claim(MODERN),
            claim(LEGACY),
            claim(7),
            { ...claim(MODERN), name: "list_available_slots" },
          ]
        ) {
          for (
            const extra of [{}, { result: {} }, { error: { code: 1, message: "x" } }, { x: 1 }]
          ) {
            bodies.push({ jsonrpc, id, method, params, ...extra });
          }
        }
      }
    }
  }
  let decided = 0;
  for (const revision of [undefined, LEGACY, "2025-03-26", MODERN, " 2025-11-25", "2099-01-01"]) {
    const request = new Request("http://localhost:8000/mcp", {
      method: "POST",
      headers: revision === undefined ? {} : { "MCP-Protocol-Version": revision },
    });
    for (const body of bodies) {
      const leg = toLegByShape(sdk, request, body);
      if (leg === undefined) continue;
      decided++;
      const expected = await sdk.isLegacyRequest(request, body) ? "legacy" : "modern";
      assert.equal(leg, expected, `${revision}: ${JSON.stringify(body)}`);
    }
  }
  assert.ok(decided > 100, `${decided} bodies decided by their shape`);

  const call = { name: "list_available_slots", arguments: { month: MONTH } };
  const post = (revision: string) =>
    new Request("http://localhost:8000/mcp", {
      method: "POST",
      headers: { "MCP-Protocol-Version": revision },
    });
  assert.equal(
    toLegByShape(sdk, post(LEGACY), { jsonrpc: "2.0", id: 1, method: "tools/call", params: call }),
    "legacy",
  );
  const envelope = { ...call, _meta: claim(MODERN)._meta };
  assert.equal(
    toLegByShape(sdk, post(MODERN), {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: envelope,
    }),
    "modern",
  );
});

/** Serves one exchange on an instance, as the 2025 leg does, and closes it. */
async function serveOnce(server: sdk.McpServer): Promise<void> {
  const transport = new sdk.WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  const response = await transport.handleRequest(postLegacy({ method: "ping" }));
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 1, result: {} });
  await server.close();
}

test("createMcpServers() reuses an instance once its exchange has closed it, never one still connected, one that must not be reused, or one of the other era", async () => {
  const services = resolveServices({}, STUDIO_DEFAULTS);
  const servers = createMcpServers(sdk, {
    ...services,
    content: await services.loadContent(),
  });

  const first = servers.take({ era: "legacy" });
  const second = servers.take({ era: "legacy" });
  assert.notEqual(second, first, "an instance taken and not yet closed is not handed out again");
  await serveOnce(first);
  assert.equal(servers.take({ era: "legacy" }), first, "the closed instance serves again");
  assert.notEqual(servers.take({ era: "modern" }), second);

  await serveOnce(second);
  const modern = servers.take({ era: "modern" });
  assert.notEqual(modern, second, "a 2025 instance never serves the 2026-07-28 revision");

  const once = servers.take({ era: "legacy", reuse: false });
  assert.equal(once, second);
  await serveOnce(once);
  assert.notEqual(servers.take({ era: "legacy" }), once, "an instance kept from reuse is dropped");
});

/** The result of an `initialize` in one revision, and the `MCP-Protocol-Version` it may then send. */
async function initialize(handler: Handler, revision: string): Promise<Record<string, unknown>> {
  const answer = await readJsonAnswer(
    await handler(postLegacy({
      method: "initialize",
      params: {
        protocolVersion: revision,
        capabilities: {},
        clientInfo: { name: "test", version: "1.0.0" },
      },
    })),
  );
  return answer.result ?? {};
}

test("the server card lists exactly the revisions POST /mcp accepts, and the capabilities initialize and server/discover report", async () => {
  const { handler } = createApp();
  const card = await (await handler(buildRequest("/.well-known/mcp/server-card.json"))).json();
  const [remote] = card.remotes as Array<{ supportedProtocolVersions: string[] }>;
  const accepted: string[] = [];
  for (const revision of MCP_HANDSHAKE_PROTOCOL_VERSIONS) {
    const result = await initialize(handler, revision);
    assert.equal(result.protocolVersion, revision, "initialize keeps a revision it accepts");
    assert.deepEqual(result.capabilities, card.capabilities, revision);
    const listed = await handler(postLegacy({ method: "tools/list" }, {
      "MCP-Protocol-Version": revision,
    }));
    assert.equal(listed.status, 200, revision);
    await listed.body?.cancel();
    accepted.push(revision);
  }
  const discovered = await readJsonAnswer(await handler(postModern("server/discover")));
  const discovery = discovered.result as { supportedVersions: string[]; capabilities: unknown };
  assert.deepEqual(discovery.capabilities, card.capabilities);
  accepted.unshift(...discovery.supportedVersions);
  assert.deepEqual(remote.supportedProtocolVersions, accepted);
  assert.deepEqual(remote.supportedProtocolVersions, [...MCP_PROTOCOL_VERSIONS]);

  // A revision the card does not list is refused, or answered with the first it lists.
  for (const revision of ["2025-01-01", "2023-11-05"]) {
    assert.equal((await initialize(handler, revision)).protocolVersion, LEGACY);
    const refused = await handler(postLegacy({ method: "tools/list" }, {
      "MCP-Protocol-Version": revision,
    }));
    assert.equal(refused.status, 400, revision);
    assert.match((await refused.json()).error.message, /Unsupported protocol version/);
  }
});

/** The tools as `tools/list` gives them. */
async function listTools(handler: Handler): Promise<Array<Record<string, unknown>>> {
  const listed = await readJsonAnswer(await handler(postLegacy({ method: "tools/list" })));
  return listed.result?.tools as Array<Record<string, unknown>>;
}

test("POST /mcp describes the studio its content names, in its schedule's zone: tools, prompt, instructions and facts never name the sample studio, its city or its zone", async () => {
  const handler = createSampleHandler({
    baseUrl: BASE_URL,
    store: createMemoryStore(),
    mailer: createMemoryMailer(),
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
    schedule: OTHER_SCHEDULE,
    content: OTHER_CORPUS,
  });
  const initialized = await initialize(handler, LEGACY);
  const instructions = String(initialized.instructions);
  assert.ok(instructions.startsWith("Ateliê Sol: Design workshop in São Paulo. "), instructions);
  assertNoSampleWords(JSON.stringify(initialized), "initialize");

  const tools = await listTools(handler);
  assertNoSampleWords(JSON.stringify(tools), "tools/list");
  const slots = tools.find((tool) => tool.name === "list_available_slots");
  assert.match(String(slots?.description), /in Brasilia Standard Time \(America\/Sao_Paulo\),/);
  const month = (slots?.inputSchema as { properties: Record<string, { description: string }> })
    .properties.month;
  assert.match(month.description, /counted in America\/Sao_Paulo,/);

  const prompt = await readJsonAnswer(
    await handler(postLegacy({ method: "prompts/get", params: { name: "book_a_conversation" } })),
  );
  const text = JSON.stringify(prompt.result);
  assert.match(text, /Ateliê Sol/);
  assert.match(text, /shown in Brasilia Standard Time \(America\/Sao_Paulo\)/);
  assertNoSampleWords(text, "prompts/get");

  const info = await readToolResult(await handler(callTool("get_studio_info", {})));
  assert.equal(info.structuredContent.timeZone, OTHER_TIME_ZONE);
  assertNoSampleWords(JSON.stringify(info), "get_studio_info");
  const listing = await readToolResult(
    await handler(callTool("list_available_slots", { month: MONTH })),
  );
  assert.equal(listing.structuredContent.timeZone, OTHER_TIME_ZONE);
});

test("every tool's inputSchema admits no other member, and an extra argument is refused as a tool error that names it", async () => {
  const { handler } = createApp();
  const tools = await listTools(handler);
  assert.equal(tools.length, 4);
  const valid: Record<string, Record<string, unknown>> = {
    list_available_slots: { month: MONTH },
    get_studio_info: {},
    send_inquiry: { name: "Ana", email: "ana@example.pt", message: "A new site for our clinic" },
    book_call: {
      start: "2026-12-02T10:00:00Z",
      name: "Ana",
      email: "ana@example.pt",
      topic: "A new website for our clinic",
      locale: "en",
    },
  };
  for (const tool of tools) {
    const schema = tool.inputSchema as Record<string, unknown>;
    assert.equal(schema.type, "object", String(tool.name));
    assert.equal(schema.additionalProperties, false, String(tool.name));
    const args = { ...valid[tool.name as string], Website: "x" };
    const refused = await readToolResult(await handler(callTool(tool.name as string, args)));
    assert.equal(refused.isError, true, String(tool.name));
    assert.match(refused.content[0].text, /Remove "Website": not an argument of this tool/);
  }
});

/** Validates a structured content against a tool's output schema with ajv; throws the errors. */
function createOutputCheck(tools: Array<Record<string, unknown>>) {
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats.default(ajv);
  const validators = new Map(
    tools.map((tool) => [tool.name, ajv.compile(tool.outputSchema as Record<string, unknown>)]),
  );
  return (name: string, result: ToolResult) => {
    const validate = validators.get(name);
    assert.ok(validate, `${name} declares an outputSchema`);
    assert.ok(validate(result.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`);
  };
}

test("every tool's structuredContent, a result or a tool error, is valid against the outputSchema it declares (ajv)", async () => {
  // Ten reads: every POST below counts one, and each listing one more.
  const { handler } = createApp({ read: 10 });
  const check = createOutputCheck(await listTools(handler));
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await readToolResult(await handler(callTool(name, args)));
    check(name, result);
    return result;
  };
  const listed = await call("list_available_slots", { month: MONTH });
  assert.equal(listed.isError, undefined);
  const slots = listed.structuredContent.slots as Record<string, Array<{ start: string }>>;
  const [start] = Object.values(slots).flat().map((slot) => slot.start);
  assert.equal((await call("list_available_slots", { month: "2020-01" })).isError, true);
  assert.equal((await call("get_studio_info", {})).isError, undefined);

  const booking = {
    start,
    name: "Ana Sousa",
    email: "ana.schema@example.pt",
    topic: "A new website for our clinic",
    locale: "en",
  };
  assert.equal((await call("book_call", booking)).isError, undefined);
  const taken = await call("book_call", { ...booking, email: "rui.schema@example.pt" });
  assert.equal((taken.structuredContent.error as { status: number }).status, 409);
  const inquiry = {
    name: "Rui Costa",
    email: "rui@example.pt",
    message: "We need a new brand identity for our bakery, ready by spring.",
  };
  assert.equal((await call("send_inquiry", inquiry)).isError, undefined);
  // The POST is the tenth read and the tool's own count the eleventh: a tool error again.
  const limited = await call("list_available_slots", { month: MONTH });
  assert.equal((limited.structuredContent.error as { code: string }).code, "rate-limited");
});

/** A POST of `bytes` with a `Content-Type`, to /mcp as a 2025 client sends it or to the API. */
function postBytes(path: string, contentType: string, bytes: Uint8Array<ArrayBuffer>): Request {
  return buildRequest(path, {
    method: "POST",
    headers: { "Content-Type": contentType, Accept: ACCEPT, "MCP-Protocol-Version": LEGACY },
    body: bytes,
  });
}

test("POST /mcp gives the API's verdict on the same bytes: another charset and invalid UTF-8 refused, a byte-order mark accepted", async () => {
  const { handler } = createApp();
  const encoder = new TextEncoder();
  const ping = encoder.encode(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
  const inquiry = encoder.encode(JSON.stringify({
    Name: "Ana Sousa",
    Email: "ana@example.pt",
    Message: "We need a new brand identity for our bakery.",
  }));
  const invalid = (bytes: Uint8Array) => Uint8Array.from([...bytes.slice(0, -2), 0xff, 0xfe, 125]);
  const withMark = (bytes: Uint8Array) => Uint8Array.from([0xef, 0xbb, 0xbf, ...bytes]);
  const cases = [
    { type: "application/json; charset=latin1", change: (bytes: Uint8Array) => bytes },
    { type: "application/json; charset=iso-8859-1", change: (bytes: Uint8Array) => bytes },
    { type: "application/json", change: invalid },
    { type: "application/json; charset=utf-8", change: withMark },
    { type: "application/json; charset=UTF-8", change: (bytes: Uint8Array) => bytes },
  ];
  for (const { type, change } of cases) {
    const api = await handler(postBytes("/api/v1/contact", type, Uint8Array.from(change(inquiry))));
    const mcp = await handler(postBytes("/mcp", type, Uint8Array.from(change(ping))));
    assert.equal(mcp.headers.get("Content-Type"), "application/json", type);
    const answer = await mcp.json();
    assert.equal(answer.jsonrpc, "2.0");
    await api.body?.cancel();
    assert.equal(
      api.status < 300,
      mcp.status < 300,
      `${type}: API ${api.status}, MCP ${mcp.status}`,
    );
    if (mcp.status === 200) {
      assert.deepEqual(answer, { jsonrpc: "2.0", id: 1, result: {} });
    } else if (type.includes("latin1") || type.includes("8859")) {
      assert.equal(mcp.status, 415);
      assert.match(answer.error.message, /^Unsupported Media Type: .*UTF-8/);
    } else {
      assert.equal(mcp.status, 400);
      assert.deepEqual(answer.error, {
        code: -32700,
        message: "Parse error: the request body is not valid UTF-8",
      });
    }
  }
});

test("POST /mcp answers a refused Origin with a JSON-RPC 403, as every other refusal there", async () => {
  const { handler } = createApp();
  const response = await handler(postLegacy({ method: "tools/list" }, {
    Origin: "https://evil.example",
  }));
  assert.equal(response.status, 403);
  assert.equal(response.headers.get("Content-Type"), "application/json");
  assert.equal(response.headers.get("X-Content-Type-Options"), "nosniff");
  const answer = await response.json();
  assert.equal(answer.jsonrpc, "2.0");
  assert.equal(answer.id, null);
  assert.equal(answer.error.code, -32000);
  assert.match(
    answer.error.message,
    /^Origin "https:\/\/evil\.example" is not allowed to post here: Send it from/,
  );
  const own = await handler(postLegacy({ method: "ping" }, { Origin: BASE_URL }));
  assert.equal(own.status, 200);
  await own.body?.cancel();
});

test("POST /mcp serves concurrent 2025 calls that share an id on one connection: each answer carries its own id and result, and its caller's quota", async () => {
  // read: 8 per 60 s for each address.
  const { handler } = createApp({ read: 8 });
  const months = ["2026-12", "2027-01", "2027-02"];
  const calls = months.flatMap((month, index) =>
    ["192.0.2.7", "198.51.100.9"].map(async (address) => {
      const id = index % 2 ? "same" : 1;
      const response = await handler(
        postLegacy({
          id,
          method: "tools/call",
          params: { name: "list_available_slots", arguments: { month } },
        }),
        fromAddress(address),
      );
      const answer = await readJsonAnswer(response);
      return { month, address, id, answer };
    })
  );
  for (const { month, id, answer } of await Promise.all(calls)) {
    assert.equal(answer.id, id);
    const result = answer.result as unknown as ToolResult;
    assert.equal(result.isError, undefined, result.content[0].text);
    const days = Object.keys(result.structuredContent.slots as Record<string, unknown>);
    assert.ok(days.length > 0 && days.every((day) => day.startsWith(month)), month);
  }
  // Each address spent 6 of its 8 reads; a listing costs the last 2, and the next POST is refused.
  const last = await readToolResult(
    await handler(callTool("list_available_slots", { month: MONTH }), fromAddress("192.0.2.7")),
  );
  assert.equal(last.isError, undefined);
  const refused = await handler(callTool("get_studio_info", {}), fromAddress("192.0.2.7"));
  assert.equal(refused.status, 429);
  await refused.body?.cancel();
  const other = await readToolResult(
    await handler(callTool("get_studio_info", {}), fromAddress("198.51.100.9")),
  );
  assert.equal(other.isError, undefined);

  // An answer to a request that is not JSON-RPC, a notification, a batch: as before.
  const notified = await handler(
    postLegacy({ method: "notifications/initialized", id: undefined }),
  );
  assert.equal(notified.status, 202);
  await notified.body?.cancel();
  const batch = await handler(buildRequest("/mcp", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: ACCEPT },
    body: JSON.stringify([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ]),
  }));
  assert.equal(batch.status, 200);
  assert.deepEqual(await batch.json(), [
    { jsonrpc: "2.0", id: 1, result: {} },
    { jsonrpc: "2.0", id: 2, result: {} },
  ]);
  const unknown = await readJsonAnswer(
    await handler(postLegacy({ id: 9, method: "nothing/here" })),
  );
  assert.deepEqual(unknown, {
    jsonrpc: "2.0",
    id: 9,
    error: { code: -32601, message: "Method not found" },
  });
});

/** A 2026-07-28 POST with its standard headers; `change` alters the message or the headers. */
function postModernCall(
  params: Record<string, unknown>,
  change: { id?: unknown; meta?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Request {
  const meta = change.meta ?? {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return buildRequest("/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: ACCEPT,
      "MCP-Protocol-Version": MODERN,
      "MCP-Method": "tools/call",
      "MCP-Name": String(params.name),
      ...change.headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: "id" in change ? change.id : 7,
      method: "tools/call",
      params: { ...params, _meta: meta },
    }),
  });
}

/** The SDK's own entries, over their own instances of the same server: the reference. */
async function createReference() {
  const services = resolveServices({
    baseUrl: BASE_URL,
    clock: createFixedClock(NOW),
    rateLimits: { read: 1_000_000 },
    logger: createRecordingLogger(),
  }, STUDIO_DEFAULTS);
  const servers = createMcpServers(sdk, { ...services, content: await services.loadContent() });
  const modern = sdk.createMcpHandler(({ era }) => servers.take({ era }), { legacy: "reject" });
  const authInfo = toAuthInfo("127.0.0.1");
  return {
    modern: (request: Request) => modern.fetch(request, { authInfo }),
    async legacy(request: Request) {
      const server = servers.take({ era: "legacy" });
      const transport = new sdk.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      try {
        return await transport.handleRequest(request, { authInfo });
      } finally {
        await server.close();
      }
    },
  };
}

/** The status and the JSON-RPC message of an answer, as its bytes give it. */
async function readAnswer(response: Response): Promise<[number, string]> {
  return [response.status, await response.text()];
}

test("the shared connections answer as the SDK's own entries do: the same status and JSON-RPC message, whatever the request of their shapes", async () => {
  const { handler } = createApp({ read: 1_000_000 });
  const reference = await createReference();
  const listing = { name: "list_available_slots", arguments: { month: MONTH } };
  const modernCases: Array<[string, () => Request]> = [
    ["a listing", () => postModernCall(listing)],
    ["the studio's facts, id 0", () => postModernCall({ name: "get_studio_info" }, { id: 0 })],
    ["a month refused", () => postModernCall({ ...listing, arguments: { month: "2020-01" } })],
    [
      "an argument too many",
      () => postModernCall({ ...listing, arguments: { month: MONTH, x: 1 } }),
    ],
    ["no such tool", () => postModernCall({ name: "nope", arguments: {} })],
    ["no arguments", () => postModernCall({ name: "list_available_slots" })],
    ["a string id", () => postModernCall(listing, { id: "call-1" })],
    [
      "an envelope without client capabilities",
      () =>
        postModernCall(listing, { meta: { "io.modelcontextprotocol/protocolVersion": MODERN } }),
    ],
    [
      "an envelope whose client info is not an object",
      () =>
        postModernCall(listing, {
          meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": "test",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        }),
    ],
    ["a name header that differs", () => postModernCall(listing, { headers: { "MCP-Name": "x" } })],
  ];
  for (const [name, make] of modernCases) {
    const ours = await readAnswer(await handler(make()));
    assert.deepEqual(ours, await readAnswer(await reference.modern(make())), name);
  }
  const legacyCases: Array<[string, Record<string, unknown>]> = [
    ["a listing", { method: "tools/call", params: listing }],
    ["a month refused", { method: "tools/call", params: { ...listing, arguments: { month: "" } } }],
    ["no such tool", { method: "tools/call", params: { name: "nope" } }],
    ["params that are not a call", { method: "tools/call", params: { arguments: 1 } }],
    ["the tools", { method: "tools/list" }],
    ["a ping, id 0", { method: "ping", id: 0 }],
    ["the prompt", { method: "prompts/get", params: { name: "book_a_conversation" } }],
    ["no such resource", { method: "resources/read", params: { uri: "https://x.example/" } }],
    ["no such method", { method: "tools/nothing" }],
    ["a modern method", { method: "server/discover" }],
  ];
  for (const [name, message] of legacyCases) {
    const ours = await readAnswer(await handler(postLegacy(message)));
    assert.deepEqual(ours, await readAnswer(await reference.legacy(postLegacy(message))), name);
  }
});
