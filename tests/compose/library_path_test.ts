/**
 * The library path, as the README's "Use as a library" shows it: another studio's content, built
 * into a folder of its own (`deno task build --content <folder> --out <folder>`), passed to
 * `createHandler` as its `content`, `schedule` and `holidays`. Every answer a visitor, a crawler
 * or an agent can ask for, and the mails of a booking, speak of that studio only: its name, its
 * zone, never the sample studio's name, city or zone. Runs on Deno, Node and Bun.
 *
 * @module
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createHandler } from "../../mod.ts";
import { createFixedClock, createMemoryMailer, createMemoryStore } from "../../testing.ts";
import { toMarkdownPath } from "../../lib/site/site.ts";
import { CORPUS } from "../.build/sol/corpus.generated.ts";
import { DEFAULT_SCHEDULE } from "../.build/sol/schedule.generated.ts";
import { PUBLIC_HOLIDAYS } from "../.build/sol/public_holidays.generated.ts";
import { assertNoSampleWords } from "../_other_studio.ts";
import { buildBookingBody } from "../_booking.ts";

const BASE_URL = "https://sol.example";
const NOW = "2026-11-21T10:00:00Z";
const ACCEPT_MCP = "application/json, text/event-stream";

/** The README's library example, with the other studio's build. */
function createStudio() {
  const store = createMemoryStore();
  const mailer = createMemoryMailer();
  const handler = createHandler({
    baseUrl: BASE_URL,
    store,
    mailer,
    clock: createFixedClock(NOW),
    content: CORPUS,
    schedule: DEFAULT_SCHEDULE,
    holidays: PUBLIC_HOLIDAYS,
    mailFrom: `${CORPUS.name} <site@sol.example>`,
    inbox: "equipa@sol.example",
    rateLimits: { read: 100_000, write: 100_000, booking: 100_000 },
  });
  return { store, mailer, handler };
}

/** GETs a path and answers its status and body, failing on any answer but 200. */
async function read(
  handler: ReturnType<typeof createStudio>["handler"],
  path: string,
  accept = "*/*",
): Promise<string> {
  const response = await handler(new Request(BASE_URL + path, { headers: { Accept: accept } }));
  const body = await response.text();
  assert.equal(response.status, 200, `GET ${path}: ${body.slice(0, 200)}`);
  return body;
}

/** Posts one JSON-RPC request to `/mcp` and answers its result. */
async function callMcp(
  handler: ReturnType<typeof createStudio>["handler"],
  method: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const response = await handler(
    new Request(`${BASE_URL}/mcp`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: ACCEPT_MCP,
        "MCP-Protocol-Version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    }),
  );
  assert.equal(response.status, 200, method);
  const answer = await response.json();
  assert.ok(answer.result, `${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

test("the built studio is another studio than the sample, in another zone", () => {
  assert.equal(CORPUS.name, "Ateliê Sol");
  assert.equal(DEFAULT_SCHEDULE.timeZone, "America/Sao_Paulo");
  assertNoSampleWords(JSON.stringify(CORPUS), "the other studio's corpus");
});

test("every page and its Markdown twin, in both languages, name only the other studio", async () => {
  const { store, handler } = createStudio();
  try {
    for (const page of CORPUS.pages) {
      const html = await read(handler, page.path, "text/html");
      // The booking page's zone chooser offers every IANA zone, Lisbon's among them: the rest of
      // the page names none of the sample's.
      const zones = /<select[^>]*name="tz"[\s\S]*?<\/select>/;
      if (page.layout === "booking") assert.match(html, zones, `${page.path} has a zone chooser`);
      assertNoSampleWords(html.replace(zones, ""), `${page.path} (HTML)`);
      assert.match(html, /Ateliê Sol/, `${page.path} names the studio`);
      assert.match(html, /application\/ld\+json/, `${page.path} has JSON-LD`);
      const twin = await read(handler, toMarkdownPath(page.path));
      assertNoSampleWords(twin, `${page.path} (Markdown)`);
      assertNoSampleWords(await read(handler, page.path, "text/markdown"), `${page.path} (Accept)`);
    }
    const contact = CORPUS.pages.filter((page) => page.layout === "contact");
    assert.ok(contact.length > 0);
    for (const page of contact) {
      // The contact page's hours come from the schedule: São Paulo's zone, named for people.
      assert.match(await read(handler, page.path), /Bras[ií]lia/, `${page.path}: the zone`);
    }
  } finally {
    store.close();
  }
});

test("llms.txt, llms-full.txt, the sitemap, robots.txt, OpenAPI, the catalog, the server card and the skills name only the other studio", async () => {
  const { store, handler } = createStudio();
  try {
    const paths = [
      "/llms.txt",
      "/en/llms.txt",
      "/llms-full.txt",
      "/sitemap.xml",
      "/robots.txt",
      "/openapi.json",
      "/.well-known/api-catalog",
      "/.well-known/mcp/server-card.json",
      "/.well-known/agent-skills/index.json",
      "/api",
      "/api/v1",
      "/api/v1/booking/slots?month=2026-12",
    ];
    for (const skill of CORPUS.skills ?? []) {
      paths.push(`/.well-known/agent-skills/${skill.name}/SKILL.md`);
    }
    for (const path of paths) {
      const response = await handler(new Request(BASE_URL + path));
      const body = await response.text();
      if (response.status === 404) continue; // a document this build does not serve
      assert.equal(response.status, 200, `GET ${path}`);
      assertNoSampleWords(body, path);
    }
    const slots = JSON.parse(await read(handler, "/api/v1/booking/slots?month=2026-12"));
    assert.equal(slots.timeZone, "America/Sao_Paulo");
    assert.match(await read(handler, "/llms.txt"), /^# Ateliê Sol/);
  } finally {
    store.close();
  }
});

test("MCP's instructions, tools, prompts and resources name only the other studio", async () => {
  const { store, handler } = createStudio();
  try {
    const initialized = await callMcp(handler, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "test", version: "1.0.0" },
    });
    assert.match(String(initialized.instructions), /Ateliê Sol/);
    // The studio's meetings last 45 minutes: the instructions, tools and prompt say so.
    assert.match(String(initialized.instructions), /45-minute conversation/);
    for (const method of ["tools/list", "prompts/list", "resources/list"]) {
      const listed = JSON.stringify(await callMcp(handler, method));
      assertNoSampleWords(listed, method);
      assert.doesNotMatch(listed, /30-minute/, method);
      if (method !== "resources/list") assert.match(listed, /45-minute/, method);
    }
    const info = await callMcp(handler, "tools/call", { name: "get_studio_info", arguments: {} });
    assert.match(JSON.stringify(info), /Ateliê Sol/);
    assertNoSampleWords(JSON.stringify(info), "get_studio_info");
  } finally {
    store.close();
  }
});

test("a booking's mails, to the attendee and to the studio, name only the other studio and its zone", async () => {
  const { store, mailer, handler } = createStudio();
  try {
    const slots = JSON.parse(await read(handler, "/api/v1/booking/slots?month=2026-12"));
    const [start] = Object.values(slots.slots as Record<string, { start: string }[]>)[0];
    assert.ok(start.start.endsWith("-03:00"), start.start);
    const response = await handler(
      new Request(`${BASE_URL}/api/v1/booking`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: BASE_URL },
        body: JSON.stringify(buildBookingBody(start.start, { locale: "en" })),
      }),
    );
    assert.equal(response.status, 201, await response.clone().text());
    await response.body?.cancel();
    // The outbox delivers right after the commit, in the background: wait for both mails.
    for (let waited = 0; mailer.sent.length < 2 && waited < 5_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(mailer.sent.length, 2, "the attendee's invitation and the studio's notice");
    for (const mail of mailer.sent) {
      const text = JSON.stringify(mail);
      assertNoSampleWords(text, `the mail "${mail.subject}"`);
      assert.match(text, /Brasilia|Bras[ií]lia|America\/Sao_Paulo/, `${mail.subject}: the zone`);
    }
  } finally {
    store.close();
  }
});
