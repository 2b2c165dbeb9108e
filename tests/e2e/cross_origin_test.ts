import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM_SKIP, launchChromium } from "./_chromium.ts";
import { startServer } from "./_server.ts";
import { buildBookingBody } from "../_booking.ts";
import { nextMonth, STUDIO_ZONE } from "./_studio.ts";

/** A page on a second loopback origin: an "API explorer" hosted elsewhere. */
async function startExplorer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_, response) => {
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>Explorer</title><h1>Explorer</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { origin: `http://127.0.0.1:${port}`, server };
}

test(
  "in Chromium, a page on another origin reads the slots and /openapi.json and cannot POST a booking",
  {
    skip: CHROMIUM_SKIP,
  },
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-cors-"));
    const server = await startServer({
      STUDIO_KV_PATH: join(folder, "studio.kv"),
      STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
    });
    const explorer = await startExplorer();
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(explorer.origin);
      const month = nextMonth();
      const result = await page.evaluate(async ({ api, month, booking }) => {
        const slots = await fetch(`${api}/api/v1/booking/slots?month=${month}`, {
          headers: { "If-None-Match": '"x"' }, // not safelisted: a preflight is sent first
        });
        const slotsBody = await slots.json();
        const openapi = await fetch(`${api}/openapi.json`).then((response) => response.json());
        let posted: string;
        try {
          const response = await fetch(`${api}/api/v1/booking`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify(booking),
          });
          posted = `answered ${response.status}`;
        } catch (error) {
          posted = `refused: ${(error as Error).name}`;
        }
        return {
          slotsStatus: slots.status,
          remaining: slots.headers.get("RateLimit-Remaining"),
          timeZone: slotsBody.timeZone,
          openapi: openapi.openapi,
          posted,
        };
      }, { api: server.origin, month, booking: buildBookingBody("2026-12-01T10:00:00Z") });
      assert.equal(result.slotsStatus, 200);
      assert.equal(result.timeZone, STUDIO_ZONE);
      assert.match(result.remaining ?? "", /^\d+$/, "the exposed rate-limit fields are readable");
      assert.equal(result.openapi, "3.1.0");
      assert.equal(result.posted, "refused: TypeError", "the browser blocks the cross-origin POST");
    } finally {
      await browser.close();
      await new Promise((resolve) => explorer.server.close(resolve));
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  },
);
