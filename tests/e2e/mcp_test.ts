import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { BOOKING_FIELDS } from "../../lib/contract/contract.ts";
import { startSmtpServer } from "../_smtp.ts";
import { startServer } from "./_server.ts";
import { CORPUS, listStudioMonths, MEETING_MINUTES, pageOf, STUDIO_ZONE } from "./_studio.ts";

const INBOX = "inbox@studio.example";
const BASE_URL = "https://studio.example";

interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
}

function textOf(result: ToolResult): string {
  return result.content.map((item) => item.text ?? "").join("\n");
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  return await client.callTool({ name, arguments: args }) as ToolResult;
}

test("POST /mcp, driven by the official SDK's client, answers in JSON, lists slots, books one, refuses it again as a tool error, sends an inquiry to the inbox and enforces the booking quota", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-mcp-"));
  const smtp = await startSmtpServer();
  const server = await startServer({
    STUDIO_KV_PATH: join(folder, "studio.kv"),
    STUDIO_SMTP_URL: smtp.url,
    STUDIO_MAIL_FROM: "Studio <site@studio.example>",
    STUDIO_INBOX: INBOX,
    STUDIO_BASE_URL: BASE_URL,
    STUDIO_RATE_LIMIT_READ: "1000",
  });
  const answers: Array<{ method: string; status: number; type: string | null }> = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const { status, headers } = response;
    answers.push({ method: init?.method ?? "GET", status, type: headers.get("Content-Type") });
    return response;
  };
  const client = new Client({ name: "studio-e2e", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { fetch: recordingFetch }),
    );
    assert.equal(client.getServerVersion()?.version, "1.0.0");

    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    assert.deepEqual(
      [...byName.keys()].sort(),
      ["book_call", "get_studio_info", "list_available_slots", "send_inquiry"],
    );
    assert.equal(byName.get("list_available_slots")?.annotations?.readOnlyHint, true);
    const bookCall = byName.get("book_call");
    assert.equal(bookCall?.annotations?.readOnlyHint, false);
    assert.equal(bookCall?.annotations?.idempotentHint, false);
    assert.match(bookCall?.description ?? "", /genuine requests/);
    const topic = (bookCall?.inputSchema.properties as Record<string, Record<string, unknown>>)
      .topic;
    assert.equal(topic.minLength, BOOKING_FIELDS.topic.minLength);
    assert.equal(topic.maxLength, BOOKING_FIELDS.topic.maxLength);
    assert.deepEqual(
      [...(bookCall?.inputSchema.required ?? [])].sort(),
      ["email", "locale", "name", "start", "topic"],
    );

    // The first month after this one with a free slot (the current month may be nearly over).
    let starts: string[] = [];
    for (const month of listStudioMonths(6).slice(1)) {
      const listed = await call(client, "list_available_slots", { month });
      assert.ok(!listed.isError, textOf(listed));
      const body = listed.structuredContent as {
        timeZone: string;
        slots: Record<string, Array<{ start: string }>>;
      };
      assert.equal(body.timeZone, STUDIO_ZONE);
      starts = Object.values(body.slots).flat().map((slot) => slot.start);
      if (starts.length) break;
    }
    assert.ok(starts.length > 0, "a listing with free slots");
    const [start] = starts;

    const booking = {
      start,
      name: "Ana Sousa",
      email: "ana.mcp@example.pt",
      topic: "A new website for our clinic",
      locale: "en",
    };
    const booked = await call(client, "book_call", booking);
    assert.ok(!booked.isError, textOf(booked));
    assert.deepEqual(booked.structuredContent, { ok: true, status: "accepted", start });
    const invites = await smtp.waitFor(2, 15_000);
    assert.ok(invites.some((mail) => mail.envelopeTo.join() === booking.email));

    const again = await call(client, "book_call", { ...booking, email: "late@example.pt" });
    assert.equal(again.isError, true);
    assert.match(textOf(again), /409/);
    assert.match(textOf(again), /list_available_slots again/);

    const invalid = await call(client, "book_call", { ...booking, topic: "short" });
    assert.equal(invalid.isError, true);
    assert.match(textOf(invalid), /"topic": use 10 to 2000 characters/);

    const sent = await call(client, "send_inquiry", {
      name: "Rui MCP",
      email: "rui.mcp@example.pt",
      message: "We need a new brand identity for our bakery, ready by spring.",
      // A kind of work the studio's form offers.
      category: CORPUS.languages.en.form.categories[1]?.value ?? "other",
    });
    assert.ok(!sent.isError, textOf(sent));
    assert.deepEqual(sent.structuredContent, { ok: true });
    const deadline = Date.now() + 15_000;
    const isInquiry = (subject?: string) => subject?.startsWith("Novo contacto: Rui MCP") ?? false;
    while (!smtp.messages.some((mail) => isInquiry(mail.parsed.subject)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const inquiry = smtp.messages.find((mail) => isInquiry(mail.parsed.subject));
    assert.ok(inquiry, "the inquiry reached the inbox");
    assert.deepEqual(inquiry.envelopeTo, [INBOX]);
    assert.equal(inquiry.parsed.replyTo?.[0]?.address, "rui.mcp@example.pt");

    // The booking quota (5 in 300 s per client) counted the two calls above; three more repeats
    // of the taken slot are refused as taken, and the sixth call by the quota.
    for (let index = 0; index < 3; index++) {
      const repeat = await call(client, "book_call", { ...booking, email: `r${index}@example.pt` });
      assert.match(textOf(repeat), /409/);
    }
    const limited = await call(client, "book_call", { ...booking, email: "over@example.pt" });
    assert.equal(limited.isError, true);
    assert.match(
      textOf(limited),
      /^Too many requests from this client \(429 rate-limited\): Retry in \d+ seconds/,
    );

    // The read-only tools still answer: they count against the read quota only.
    const info = await call(client, "get_studio_info", {});
    assert.ok(!info.isError);
    assert.equal(
      (info.structuredContent as { replyTime: string }).replyTime,
      "2 to 8 business hours",
    );

    // The client accepts JSON and event streams; every answer with a body is one JSON document.
    const posts = answers.filter((answer) => answer.method === "POST");
    assert.ok(posts.length >= 12);
    for (const answer of posts) {
      const expected = answer.status === 202
        ? { method: "POST", status: 202, type: null }
        : { method: "POST", status: 200, type: "application/json" };
      assert.deepEqual(answer, expected);
    }

    const get = await fetch(`${server.origin}/mcp`, { headers: { Accept: "text/event-stream" } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("Allow"), "POST");
    await get.body?.cancel();
    const foreign = await fetch(`${server.origin}/mcp`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Origin: "https://evil.example",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers.get("Content-Type"), "application/json");
    assert.equal((await foreign.json()).jsonrpc, "2.0");
  } finally {
    await client.close();
    await server.stop();
    await smtp.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

test("POST /mcp serves the SDK's client pinned to the 2026-07-28 revision, answering in JSON", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-mcp-"));
  const server = await startServer({
    STUDIO_KV_PATH: join(folder, "studio.kv"),
    STUDIO_BASE_URL: BASE_URL,
    STUDIO_RATE_LIMIT_READ: "1000",
  });
  const answers: Array<{ status: number; type: string | null }> = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    answers.push({ status: response.status, type: response.headers.get("Content-Type") });
    return response;
  };
  const client = new Client(
    { name: "studio-e2e-modern", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { fetch: recordingFetch }),
    );
    assert.equal(client.getServerVersion()?.version, "1.0.0");
    const { tools } = await client.listTools();
    assert.equal(tools.length, 4);
    const [month] = listStudioMonths(6).slice(1);
    const listed = await call(client, "list_available_slots", { month });
    assert.ok(!listed.isError, textOf(listed));
    assert.equal((listed.structuredContent as { timeZone: string }).timeZone, STUDIO_ZONE);
    const info = await call(client, "get_studio_info", {});
    // The studio's facts, as its content and schedule give them.
    const facts = info.structuredContent as {
      name: string;
      timeZone: string;
      meetingMinutes: number;
      contact: { email: string; page: string };
    };
    assert.equal(facts.name, CORPUS.name);
    assert.equal(facts.timeZone, STUDIO_ZONE);
    assert.equal(facts.meetingMinutes, MEETING_MINUTES);
    assert.equal(facts.contact.email, CORPUS.email);
    assert.equal(facts.contact.page, BASE_URL + pageOf("contact", "en").path);
    assert.ok(answers.length >= 4);
    for (const answer of answers) {
      assert.deepEqual(answer, { status: 200, type: "application/json" });
    }
  } finally {
    await client.close();
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

/** How a test client changes each request it sends: its headers, or its body's bytes. */
interface Tampering {
  headers?: Record<string, string>;
  body?: (bytes: Uint8Array) => Uint8Array<ArrayBuffer>;
}

/** A `fetch` that sends every request changed as `tampering` says. */
function createTamperingFetch(tampering: Tampering): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(tampering.headers ?? {})) headers.set(name, value);
    let body = init?.body;
    if (tampering.body && typeof body === "string") {
      body = tampering.body(new TextEncoder().encode(body));
    }
    return await fetch(input, { ...init, headers, body });
  };
}

/** Invalid UTF-8 inside the first string of a JSON text: the JSON still parses as Latin-1. */
function breakUtf8(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const quote = bytes.indexOf(34);
  return Uint8Array.from([...bytes.slice(0, quote + 1), 0xc3, 0x28, ...bytes.slice(quote + 1)]);
}

test("POST /mcp's refusals reach the SDK's client as JSON-RPC errors (a foreign Origin, another charset, invalid UTF-8), and the API refuses the same bytes", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-mcp-"));
  const server = await startServer({
    STUDIO_KV_PATH: join(folder, "studio.kv"),
    STUDIO_BASE_URL: BASE_URL,
    STUDIO_RATE_LIMIT_READ: "1000",
  });
  // `apiStatus`: the API's refusal of the same headers and bytes (a body it cannot read is 400).
  const cases: Array<
    { name: string; tampering: Tampering; status: number; message: RegExp; apiStatus: number }
  > = [
    {
      name: "a foreign Origin",
      tampering: { headers: { Origin: "https://evil.example" } },
      status: 403,
      message: /^Origin "https:\/\/evil\.example" is not allowed to post here/,
      apiStatus: 403,
    },
    {
      name: "charset=latin1",
      tampering: { headers: { "Content-Type": "application/json; charset=latin1" } },
      status: 415,
      message: /^Unsupported Media Type: Content-Type must be application\/json in UTF-8/,
      apiStatus: 400,
    },
    {
      name: "invalid UTF-8",
      tampering: { body: breakUtf8 },
      status: 400,
      message: /^Parse error: the request body is not valid UTF-8$/,
      apiStatus: 400,
    },
  ];
  try {
    for (const { name, tampering, status, message, apiStatus } of cases) {
      const client = new Client({ name: "studio-e2e-refused", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
        fetch: createTamperingFetch(tampering),
      });
      const error = await client.connect(transport).then(() => undefined, (error) => error);
      await client.close();
      assert.ok(error instanceof SdkHttpError, `${name}: ${error}`);
      assert.equal(error.status, status, name);
      const answer = JSON.parse(String((error.data as { text?: string }).text));
      assert.equal(answer.jsonrpc, "2.0", name);
      assert.equal(answer.id, null, name);
      assert.equal(typeof answer.error.code, "number", name);
      assert.match(answer.error.message, message, name);

      // The API's verdict on the same headers and bytes: refused too.
      const api = await createTamperingFetch(tampering)(`${server.origin}/api/v1/contact`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          Name: "Ana Sousa",
          Email: "ana@example.pt",
          Message: "Olá, estúdio",
        }),
      });
      assert.equal(api.status, apiStatus, name);
      await api.body?.cancel();
    }
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
