import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { CHROMIUM_SKIP, launchChromium } from "./_chromium.ts";
import { checkHtml, NU_SKIP } from "./_nu_html.ts";
import { type RunningServer, startServer } from "./_server.ts";

const PATHS = ["/en/api-reference", "/referencia-api"] as const;
const OPEN_BUTTON = { en: "Open the interactive reference", pt: "Abrir a referência interativa" };

/** The views every check runs in: a phone and a desktop, light and dark. */
const VIEWS = [
  { width: 390, height: 844, colorScheme: "light" },
  { width: 390, height: 844, colorScheme: "dark" },
  { width: 1440, height: 900, colorScheme: "light" },
  { width: 1440, height: 900, colorScheme: "dark" },
] as const;

/** The site's background token in each scheme (content/tokens.yaml), as Chromium computes it. */
const BACKGROUND = { light: "rgb(246, 243, 238)", dark: "rgb(20, 19, 18)" };

let folder = "";
let server: RunningServer | undefined;
let browser: Browser | undefined;

before(async () => {
  if (CHROMIUM_SKIP) return;
  folder = mkdtempSync(join(tmpdir(), "studio-reference-"));
  server = await startServer({
    STUDIO_KV_PATH: join(folder, "studio.kv"),
    STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
  });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

function origin(): string {
  assert.ok(server, "the server runs");
  return server.origin;
}

/** Opens the interactive reference and waits until the renderer has drawn the operations. */
async function openInteractive(page: Page, path: string): Promise<void> {
  const language = path.startsWith("/en/") ? "en" : "pt";
  await page.getByRole("button", { name: OPEN_BUTTON[language] }).click();
  const app = page.locator("#app");
  await app.getByText("Rules of use").first().waitFor({ timeout: 60_000 });
  // On a phone the navigation that names every operation is folded away: attached, not shown.
  await app.getByText("Liveness probe").first().waitFor({ state: "attached" });
}

/**
 * The words of the page's table cells that the browser broke across lines: for each word of a
 * visible cell, the lines its boxes sit on (two tops: broken). In code (a status, an error code,
 * a path) a word is a run of non-space characters; in prose each part of a hyphenated compound is
 * one ("machine-" and "readable": a line may end after the hyphen, as in print).
 */
function findBrokenWords(page: Page): Promise<string[]> {
  return page.locator("html").evaluate((root) => {
    const document = root.ownerDocument;
    const broken: string[] = [];
    for (const cell of document.querySelectorAll("th, td")) {
      if (!cell.getClientRects().length) continue;
      const walker = document.createTreeWalker(cell, 4 /* NodeFilter.SHOW_TEXT */);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? "";
        const words = node.parentElement?.closest("code") ? /\S+/g : /[^\s-]+-?/g;
        for (const match of text.matchAll(words)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set(
            [...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) =>
              Math.round(rect.top)
            ),
          );
          if (tops.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  });
}

/** The page's overflow: how far its content reaches past the viewport's width, in CSS px. */
function measureOverflow(page: Page): Promise<number> {
  return page.locator("html").evaluate((root) =>
    root.scrollWidth - (root.ownerDocument.defaultView?.innerWidth ?? 0)
  );
}

test(
  "in Chromium, the API reference opens Scalar's renderer on request, under its CSP, with no console error and no request off the origin, and a try-it call answers 200",
  { skip: CHROMIUM_SKIP },
  async () => {
    const page = await browser!.newPage();
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
      if (!url.startsWith(origin()) && !/^(data|blob):/.test(url)) offOrigin.push(url);
    });
    try {
      for (const path of PATHS) {
        const requested: string[] = [];
        const listener = (request: { url(): string }) => requested.push(request.url());
        page.on("request", listener);
        await page.goto(origin() + path, { waitUntil: "networkidle" });
        assert.ok(
          !requested.some((url) => url.includes("standalone.js")),
          "the renderer is not loaded until a person asks for it",
        );
        page.off("request", listener);
        await openInteractive(page, path);
        const text = await page.locator("#app").innerText();
        for (const tag of ["service", "contact", "booking"]) assert.match(text, new RegExp(tag));
        assert.match(text, /Rules of use/);
        assert.equal(await page.locator("[data-static]").isHidden(), true, "the summary yields");
      }
      await page.getByRole("link", { name: "Liveness probe" }).first().click();
      await page.getByRole("button", { name: /Test Request/i }).first().click();
      await page.getByRole("button", { name: /^Send/i }).first().click();
      await page.getByText("200 OK").first().waitFor({ timeout: 60_000 });
      assert.deepEqual(problems, [], "no console error or warning");
      assert.deepEqual(offOrigin, [], "no request leaves the origin");
    } finally {
      await page.close();
    }
  },
);

test(
  "in Chromium, the API reference wears the site's header, footer, typeface and colours at 390 and 1440 px, light and dark, before and after it opens the renderer",
  { skip: CHROMIUM_SKIP },
  async () => {
    for (const view of VIEWS) {
      const context = await browser!.newContext({
        viewport: { width: view.width, height: view.height },
        colorScheme: view.colorScheme,
      });
      const page = await context.newPage();
      try {
        for (const path of PATHS) {
          const where = `${path} ${view.width} px ${view.colorScheme}`;
          await page.goto(origin() + path, { waitUntil: "networkidle" });
          assert.equal(await page.locator("header.site-header").count(), 1, where);
          assert.equal(await page.locator("footer.site-footer").count(), 1, where);
          await openInteractive(page, path);
          const look = await page.locator("html").evaluate((root) => {
            const style = (element: typeof root) =>
              root.ownerDocument.defaultView!.getComputedStyle(element);
            const app = root.querySelector(".scalar-app");
            return {
              background: style(root).backgroundColor,
              font: style(root.ownerDocument.body).fontFamily,
              scalarFont: app ? style(app).fontFamily : "",
              scalarText: app ? style(app).color : "",
              text: style(root).color,
            };
          });
          assert.equal(look.background, BACKGROUND[view.colorScheme], where);
          assert.match(look.font, /Instrument Sans/, where);
          assert.match(look.scalarFont, /Instrument Sans/, `${where}: the renderer's typeface`);
          assert.equal(look.scalarText, look.text, `${where}: the renderer's text colour`);
          assert.equal(await measureOverflow(page), 0, `${where}: no sideways scrolling`);
        }
      } finally {
        await context.close();
      }
    }
  },
);

test(
  "in Chromium, no table cell of the API reference breaks a word at 390 or 1440 px, in the page's tables or the renderer's",
  { skip: CHROMIUM_SKIP },
  async () => {
    for (const view of VIEWS.filter((item) => item.colorScheme === "light")) {
      const page = await browser!.newPage({ viewport: { width: view.width, height: view.height } });
      try {
        for (const path of PATHS) {
          const where = `${path} ${view.width} px`;
          await page.goto(origin() + path, { waitUntil: "networkidle" });
          assert.ok(await page.locator("main td").count() > 20, `${where}: the page's tables`);
          assert.deepEqual(await findBrokenWords(page), [], where);
          await openInteractive(page, path);
          assert.ok(await page.locator("#app td").count() > 20, `${where}: the renderer's tables`);
          assert.deepEqual(await findBrokenWords(page), [], `${where}, the renderer`);
        }
      } finally {
        await page.close();
      }
    }
  },
);

/** axe-core's source, injected into each page (the page's CSP is bypassed for it). */
const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

/** Runs axe-core on the page as it is: its violations, each with the elements concerned. */
async function runAxe(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  return await page.evaluate(async () => {
    // @ts-ignore: axe is the script just injected
    const result = await globalThis.axe.run(document, { resultTypes: ["violations"] });
    return (result.violations as Array<{ id: string; nodes: Array<{ target: string[] }> }>)
      .map((violation) =>
        `${violation.id} (${violation.nodes.map((node) => node.target.join(" ")).join(", ")})`
      );
  });
}

test(
  "in Chromium, axe-core finds nothing on the API reference pages at 390 and 1440 px, light and dark, before and after the renderer opens",
  { skip: CHROMIUM_SKIP },
  async () => {
    const found: string[] = [];
    for (const view of VIEWS) {
      const context = await browser!.newContext({
        viewport: { width: view.width, height: view.height },
        colorScheme: view.colorScheme,
        bypassCSP: true,
      });
      const page = await context.newPage();
      try {
        for (const path of PATHS) {
          await page.goto(origin() + path, { waitUntil: "networkidle" });
          for (const violation of await runAxe(page)) {
            found.push(`${path} ${view.width} ${view.colorScheme}: ${violation}`);
          }
          await openInteractive(page, path);
          for (const violation of await runAxe(page)) {
            found.push(`${path} ${view.width} ${view.colorScheme}, opened: ${violation}`);
          }
        }
      } finally {
        await context.close();
      }
    }
    assert.deepEqual(found, []);
  },
);

test(
  "the Nu HTML Checker finds no error or warning in the API reference pages",
  { skip: CHROMIUM_SKIP || NU_SKIP },
  async () => {
    const pages = [];
    for (const path of PATHS) {
      const response = await fetch(origin() + path);
      pages.push({ name: path, html: await response.text() });
    }
    assert.deepEqual(checkHtml(pages), []);
  },
);
