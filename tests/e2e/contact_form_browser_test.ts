import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM_SKIP, launchChromium } from "./_chromium.ts";
import { findFreePort, startServer } from "./_server.ts";

test(
  "in Chromium, the contact form's first and last name stay side by side, their labels and inputs on one line, when the first name has an error, at 1440 px, light and dark",
  { skip: CHROMIUM_SKIP },
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-contact-"));
    const port = await findFreePort();
    const server = await startServer({
      PORT: String(port),
      STUDIO_BASE_URL: `http://127.0.0.1:${port}`,
      STUDIO_KV_PATH: join(folder, "studio.kv"),
      STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
    });
    const browser = await launchChromium();
    try {
      for (const colorScheme of ["light", "dark"] as const) {
        // Without JavaScript: the form is posted and the service's answer shown as it is.
        const page = await browser.newPage({
          viewport: { width: 1440, height: 900 },
          colorScheme,
          javaScriptEnabled: false,
        });
        await page.goto(server.origin + "/en/contact");
        // Past the browser's own check (a required first name), so the service answers it.
        await page.$eval("form.contact-form", (form) => form.setAttribute("novalidate", ""));
        await page.fill("#f-email", "ana@example.com");
        await page.fill("#f-message", "A new website for our bakery, in two languages.");
        const [answer] = await Promise.all([
          page.waitForResponse((response) => response.request().method() === "POST"),
          page.click('form.contact-form button[type="submit"]'),
        ]);
        assert.equal(answer.status(), 400);
        await page.locator("#f-first-error").waitFor();
        assert.equal(await page.getAttribute("#f-first", "aria-invalid"), "true");
        const box = async (selector: string) => {
          const found = await page.locator(selector).boundingBox();
          assert.ok(found, selector);
          return found;
        };
        const [firstLabel, lastLabel] = [
          await box("label[for=f-first]"),
          await box("label[for=f-last]"),
        ];
        const [first, last] = [await box("#f-first"), await box("#f-last")];
        assert.ok(last.x > first.x + first.width, `${colorScheme}: the fields are side by side`);
        assert.ok(
          Math.abs(firstLabel.y - lastLabel.y) <= 1,
          `${colorScheme}: labels at ${firstLabel.y} and ${lastLabel.y}`,
        );
        assert.ok(
          Math.abs(first.y - last.y) <= 1,
          `${colorScheme}: inputs at ${first.y} and ${last.y}`,
        );
        await page.close();
      }
    } finally {
      await browser.close();
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  },
);
