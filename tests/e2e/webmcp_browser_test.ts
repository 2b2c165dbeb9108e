import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM_SKIP, launchChromium } from "./_chromium.ts";
import { startServer } from "./_server.ts";
import { nextMonth, pageOf } from "./_studio.ts";

/** WebMCP's model context, as far as this test uses it. */
interface ModelContext {
  getTools(): Promise<Array<{ name: string; description: string; inputSchema: unknown }>>;
  executeTool(tool: unknown, input: Record<string, unknown>): Promise<unknown>;
}

test(
  "in Chromium with WebMCP, the booking page registers list_available_slots through document.modelContext, and the tool lists the month's slots",
  {
    skip: CHROMIUM_SKIP,
  },
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-webmcp-"));
    const server = await startServer({
      STUDIO_KV_PATH: join(folder, "studio.kv"),
      STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
    });
    const browser = await launchChromium(["--enable-features=WebMCPTesting"]);
    try {
      const page = await browser.newPage();
      const month = nextMonth();
      for (const { path } of [pageOf("booking", "en"), pageOf("booking", "pt")]) {
        await page.goto(server.origin + path, { waitUntil: "networkidle" });
        const result = await page.evaluate(async (month) => {
          // Runs in the page: its document and navigator, whose WebMCP members no types declare yet.
          const scope = globalThis as unknown as {
            document: { modelContext?: ModelContext };
            navigator: { modelContext?: ModelContext };
          };
          const context = scope.document.modelContext ?? scope.navigator.modelContext;
          if (!context) return { available: false };
          const tools = await context.getTools();
          const tool = tools.find((item) => item.name === "list_available_slots");
          if (!tool) return { available: true, names: tools.map((item) => item.name) };
          const answer = await context.executeTool(tool, { month });
          return {
            available: true,
            description: tool.description,
            schema: typeof tool.inputSchema === "string"
              ? tool.inputSchema
              : JSON.stringify(tool.inputSchema),
            answer: typeof answer === "string" ? answer : JSON.stringify(answer),
          };
        }, month);
        assert.equal(result.available, true, "Chromium offers document.modelContext");
        assert.match(result.description ?? "", /availability/i, JSON.stringify(result));
        assert.match(result.schema ?? "", /"month"/);
        assert.match(result.answer ?? "", /timeZone/, "the tool answers the slot listing");
      }
    } finally {
      await browser.close();
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  },
);

test(
  "in Chromium with WebMCP, the booking form's book_call tool describes every parameter in every month shown, whatever the month holds",
  { skip: CHROMIUM_SKIP },
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-webmcp-"));
    const server = await startServer({
      STUDIO_KV_PATH: join(folder, "studio.kv"),
      STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
    });
    const browser = await launchChromium(["--enable-features=WebMCPTesting"]);
    try {
      const page = await browser.newPage();
      const current = Temporal.Now.plainDateISO().toPlainYearMonth();
      for (const month of [current, current.add({ months: 1 }), current.add({ months: 6 })]) {
        for (const { path } of [pageOf("booking", "en"), pageOf("booking", "pt")]) {
          await page.goto(`${server.origin}${path}?month=${month}`, { waitUntil: "networkidle" });
          const schema = await page.evaluate(async () => {
            // Runs in the page: its document, whose WebMCP members no types declare yet.
            const scope = globalThis as unknown as {
              document: { modelContext?: ModelContext };
              navigator: { modelContext?: ModelContext };
            };
            const context = scope.document.modelContext ?? scope.navigator.modelContext;
            const tool = (await context?.getTools())?.find((item) => item.name === "book_call");
            return typeof tool?.inputSchema === "string"
              ? tool.inputSchema
              : JSON.stringify(tool?.inputSchema ?? null);
          });
          const parsed: { properties: Record<string, { description?: string }> } = JSON.parse(
            schema,
          );
          for (const name of ["start", "name", "email", "company", "topic"]) {
            assert.ok(
              (parsed.properties[name]?.description ?? "").length > 0,
              `${path}?month=${month}: ${name} is described in ${schema.slice(0, 300)}`,
            );
          }
        }
      }
    } finally {
      await browser.close();
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  },
);
