import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM_SKIP, launchChromium } from "./_chromium.ts";
import { startServer } from "./_server.ts";

test(
  "in Chromium, /en/api-reference renders every operation under its CSP with no console error and no request off the origin, and a try-it call answers 200",
  {
    skip: CHROMIUM_SKIP,
  },
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-reference-"));
    const server = await startServer({
      STUDIO_KV_PATH: join(folder, "studio.kv"),
      STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
    });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const offOrigin: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "warning") {
          problems.push(`${message.type()}: ${message.text()}`);
        }
      });
      page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
      page.on("request", (request) => {
        const url = request.url();
        if (!url.startsWith(server.origin) && !/^(data|blob):/.test(url)) offOrigin.push(url);
      });
      for (const path of ["/referencia-api", "/en/api-reference"]) {
        await page.goto(server.origin + path, { waitUntil: "networkidle" });
        // The renderer draws the operations after it has read /openapi.json: wait for them.
        await page.getByText("Liveness probe").first().waitFor({ timeout: 60_000 });
        const text = await page.locator("body").innerText();
        for (const tag of ["service", "contact", "booking"]) assert.match(text, new RegExp(tag));
        assert.match(text, /Liveness probe/);
        assert.match(text, /Rules of use/);
      }
      await page.getByRole("link", { name: "Liveness probe" }).first().click();
      await page.getByRole("button", { name: /Test Request/i }).first().click();
      await page.getByRole("button", { name: /^Send/i }).first().click();
      await page.getByText("200 OK").first().waitFor({ timeout: 60_000 });
      assert.deepEqual(problems, [], "no console error or warning");
      assert.deepEqual(offOrigin, [], "no request leaves the origin");
    } finally {
      await browser.close();
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  },
);
