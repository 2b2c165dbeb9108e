import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { createSampleHandler } from "../_fixture_studio.ts";
import {
  MCP_HANDSHAKE_PROTOCOL_VERSIONS,
  MCP_PROTOCOL_VERSIONS,
} from "../../lib/mcp/build_server_card.ts";
import { createFixedClock } from "../../testing.ts";
import { buildRequest, fromAddress } from "../_support.ts";
import { assertNoSampleWords, OTHER_CORPUS, OTHER_SCHEDULE } from "../_other_studio.ts";

const BASE_URL = "https://studio.example";
const handler = createSampleHandler({ baseUrl: BASE_URL });

/** SEP-2127's v1 schema, vendored (see tests/fixtures/mcp/README.md). */
const SERVER_CARD_SCHEMA = JSON.parse(
  readFileSync(new URL("../fixtures/mcp/server-card.schema.json", import.meta.url), "utf8"),
);

async function readJson(path: string, type: string): Promise<Record<string, unknown>> {
  const response = await handler(buildRequest(path));
  assert.equal(response.status, 200, path);
  assert.equal(response.headers.get("Content-Type"), type, path);
  assert.equal(response.headers.get("Cache-Control"), "public, max-age=3600", path);
  assert.equal(response.headers.get("Access-Control-Allow-Origin"), "*", path);
  assert.match(response.headers.get("ETag") ?? "", /^"[0-9a-f]{16}"$/, path);
  return await response.json();
}

test("GET /mcp/server-card is a server card valid against the SEP-2127 v1 schema", async () => {
  const card = await readJson("/mcp/server-card", "application/mcp-server-card+json");
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(SERVER_CARD_SCHEMA, "server-card.schema.json");
  const validate = ajv.getSchema("server-card.schema.json#/$defs/ServerCard");
  assert.ok(validate);
  assert.ok(validate(card), JSON.stringify(validate.errors));
  assert.equal(
    card.$schema,
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
  );
  assert.equal(card.name, "example.studio/studio");
  assert.equal(card.version, "1.0.0");
  assert.ok((card.description as string).length <= 100);
  assert.deepEqual(card.remotes, [{
    type: "streamable-http",
    url: "https://studio.example/mcp",
    supportedProtocolVersions: [
      "2026-07-28",
      "2025-11-25",
      "2025-06-18",
      "2025-03-26",
      "2024-11-05",
      "2024-10-07",
    ],
  }]);
});

test("the server card's handshake revisions are those the SDK implements", () => {
  assert.deepEqual([...MCP_HANDSHAKE_PROTOCOL_VERSIONS], SUPPORTED_PROTOCOL_VERSIONS);
  // The card lists the revision without a handshake first, then the SDK's, none twice.
  assert.deepEqual([...MCP_PROTOCOL_VERSIONS], ["2026-07-28", ...SUPPORTED_PROTOCOL_VERSIONS]);
});

test("GET /mcp/server-card answers 304 to its own ETag", async () => {
  const first = await handler(buildRequest("/mcp/server-card"));
  await first.body?.cancel();
  const etag = first.headers.get("ETag") ?? "";
  const again = await handler(
    buildRequest("/mcp/server-card", { headers: { "If-None-Match": etag } }),
  );
  assert.equal(again.status, 304);
  assert.equal(again.headers.get("ETag"), etag);
  assert.equal(again.headers.get("Cache-Control"), "public, max-age=3600");
  assert.equal(again.body, null);
});

test("the well-known copies of the card add serverInfo, the transport's endpoint and the capabilities", async () => {
  const card = await readJson("/mcp/server-card", "application/mcp-server-card+json");
  for (const path of ["/.well-known/mcp/server-card.json", "/.well-known/mcp.json"]) {
    const copy = await readJson(path, "application/json");
    for (const [key, value] of Object.entries(card)) assert.deepEqual(copy[key], value, key);
    assert.deepEqual(copy.serverInfo, {
      name: card.name,
      title: card.title,
      version: card.version,
    });
    assert.deepEqual(copy.transport, {
      type: "streamable-http",
      endpoint: "https://studio.example/mcp",
    });
    assert.equal(copy.protocolVersion, "2025-11-25");
    assert.deepEqual(copy.capabilities, {
      tools: { listChanged: false },
      resources: { listChanged: false },
      prompts: { listChanged: false },
    });
  }
});

test("GET /.well-known/ai-catalog.json points to the server card, with the displayName every entry needs and two to five representative queries", async () => {
  const catalog = await readJson("/.well-known/ai-catalog.json", "application/ai-catalog+json");
  assert.deepEqual(catalog, {
    specVersion: "1.0",
    entries: [{
      identifier: "urn:air:studio.example:mcp:studio",
      displayName: "Traço: bookings and inquiries (MCP)",
      type: "application/mcp-server-card+json",
      url: "https://studio.example/mcp/server-card",
      representativeQueries: [
        "Book a free 30-minute conversation with the design studio Traço",
        "Which times are free for a conversation with the studio next month?",
        "Send a design studio an inquiry about a new website or brand identity",
      ],
    }],
  });
});

test("GET /.well-known/ai-catalog.json and the server cards name the studio the content names, never the sample studio or its city", async () => {
  const other = createSampleHandler({
    baseUrl: BASE_URL,
    content: OTHER_CORPUS,
    schedule: OTHER_SCHEDULE,
  });
  for (
    const path of ["/.well-known/ai-catalog.json", "/mcp/server-card", "/.well-known/mcp.json"]
  ) {
    const response = await other(buildRequest(path));
    assert.equal(response.status, 200, path);
    const text = await response.text();
    assert.match(text, /Ateliê Sol/, path);
    assertNoSampleWords(text, path);
  }
  const response = await other(buildRequest("/.well-known/ai-catalog.json"));
  const [entry] = (await response.json()).entries;
  assert.equal(
    entry.representativeQueries[0],
    "Book a free 45-minute conversation with the design studio Ateliê Sol",
  );
});

test("GET /.well-known/agent-skills/index.json lists each SKILL.md with the digest of the bytes served", async () => {
  const index = await readJson("/.well-known/agent-skills/index.json", "application/json");
  assert.equal(index.$schema, "https://schemas.agentskills.io/discovery/0.2.0/schema.json");
  const skills = index.skills as Array<Record<string, string>>;
  assert.deepEqual(skills.map((skill) => skill.name), ["book-a-conversation", "send-an-inquiry"]);
  for (const skill of skills) {
    assert.deepEqual(Object.keys(skill).sort(), ["description", "digest", "name", "type", "url"]);
    assert.equal(skill.type, "skill-md");
    const url = new URL(skill.url);
    assert.equal(url.origin, BASE_URL);
    assert.equal(url.pathname, `/.well-known/agent-skills/${skill.name}/SKILL.md`);
    const response = await handler(buildRequest(url.pathname));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("Content-Type"), "text/markdown; charset=utf-8");
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.equal(skill.digest, `sha256:${createHash("sha256").update(bytes).digest("hex")}`);
    const text = new TextDecoder().decode(bytes);
    const front = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? "";
    const keys = [...front.matchAll(/^([a-z]+):/gm)].map((match) => match[1]);
    assert.deepEqual(keys, ["name", "description"], "front matter: name and description only");
    assert.match(front, new RegExp(`^name: ${skill.name}$`, "m"));
    assert.ok(!text.includes("{base}") && text.includes("https://studio.example/mcp"));
  }
  const booking = await handler(
    buildRequest("/.well-known/agent-skills/book-a-conversation/SKILL.md"),
  );
  const text = await booking.text();
  assert.match(text, /409/);
  assert.match(text, /503/);
  assert.match(text, /book_call/);
  assert.match(text, /POST https:\/\/studio\.example\/api\/v1\/booking/);
  const missing = await handler(buildRequest("/.well-known/agent-skills/unknown/SKILL.md"));
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
});

test("robots.txt keeps /mcp out of crawling but its server card", async () => {
  const response = await handler(buildRequest("/robots.txt"));
  const text = await response.text();
  assert.match(text, /^Disallow: \/mcp$/m);
  assert.match(text, /^Allow: \/mcp\/server-card\$$/m);
});

test("llms.txt has an Agent interfaces section, and /.well-known/llms.txt serves llms.txt", async () => {
  const english = await (await handler(buildRequest("/en/llms.txt"))).text();
  const section = english.slice(english.indexOf("## Agent interfaces"));
  assert.ok(english.includes("## Agent interfaces"));
  // The endpoint answers only POST: it is named, not linked.
  assert.doesNotMatch(section, /\(https:\/\/studio\.example\/mcp\)/);
  assert.match(section, /`POST https:\/\/studio\.example\/mcp`/);
  assert.match(section, /\(https:\/\/studio\.example\/mcp\/server-card\)/);
  assert.match(section, /\(https:\/\/studio\.example\/\.well-known\/agent-skills\/index\.json\)/);
  assert.match(
    section,
    /\[book-a-conversation\]\(https:\/\/studio\.example\/\.well-known\/agent-skills\/book-a-conversation\/SKILL\.md\)/,
  );
  assert.ok(english.indexOf("## Agent interfaces") < english.indexOf("## Optional"));
  const portuguese = await (await handler(buildRequest("/llms.txt"))).text();
  assert.match(portuguese, /^## Interfaces para agentes$/m);
  const wellKnown = await handler(buildRequest("/.well-known/llms.txt"));
  assert.equal(wellKnown.status, 200);
  assert.equal(await wellKnown.text(), portuguese);
});

test("GET and DELETE /mcp answer 405 with Allow: POST", async () => {
  for (const method of ["GET", "DELETE"]) {
    const response = await handler(buildRequest("/mcp", { method }));
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.get("Allow"), "POST");
    assert.equal(response.headers.get("Content-Type"), "application/json");
    const body = await response.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.match(body.error.message, /use POST/);
  }
});

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "test", version: "1" },
  },
});

function postMcp(headers: Record<string, string> = {}): Request {
  return buildRequest("/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body: INITIALIZE,
  });
}

test("POST /mcp refuses a Host the site does not serve (DNS rebinding)", async () => {
  const response = await handler(postMcp({ Host: "evil.example" }));
  assert.equal(response.status, 403);
  assert.match((await response.json()).error.message, /evil\.example/);
  const local = await handler(postMcp());
  assert.equal(local.status, 200);
  await local.body?.cancel();
});

test("POST /mcp counts against the read quota and, over it, answers a JSON-RPC 429 with Retry-After", async () => {
  const limited = createSampleHandler({
    baseUrl: BASE_URL,
    clock: createFixedClock("2026-11-21T10:00:00Z"),
    rateLimits: { read: 2 },
  });
  for (let index = 0; index < 2; index++) {
    const response = await limited(postMcp(), fromAddress("192.0.2.7"));
    assert.equal(response.status, 200);
    await response.body?.cancel();
  }
  const refused = await limited(postMcp(), fromAddress("192.0.2.7"));
  assert.equal(refused.status, 429);
  assert.match(refused.headers.get("Retry-After") ?? "", /^\d+$/);
  const body = await refused.json();
  assert.equal(body.jsonrpc, "2.0");
  assert.match(body.error.message, /retry in \d+ seconds/);
});
