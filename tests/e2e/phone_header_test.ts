/**
 * The site's header on a phone (390 × 844 CSS pixels, Debian's Chromium driven by playwright-core,
 * JavaScript off) against the real server: on every page of the studio's corpus, in both
 * languages, the booking call to action is on the first screen, the header is at most 120 px
 * tall, and no navigation item is cut by the screen's edge or hidden.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { findFreePort, startServer } from "./_server.ts";
import { CHROMIUM_SKIP, launchChromium } from "./_chromium.ts";
import { CORPUS } from "./_studio.ts";

/** A phone's screen, in CSS pixels. */
const PHONE = { width: 390, height: 844 } as const;

/** The tallest the header may be on a phone, in CSS pixels. */
const MAX_HEADER_PX = 120;

const folder = mkdtempSync(join(tmpdir(), "studio-phone-header-"));
const port = await findFreePort();
const origin = `http://127.0.0.1:${port}`;
const server = await startServer({
  PORT: String(port),
  STUDIO_BASE_URL: origin,
  STUDIO_KV_PATH: join(folder, "phone.kv"),
});
let browser: Browser | undefined;

after(async () => {
  await browser?.close();
  await server.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** What the header shows on a page, measured in the page. */
interface HeaderFacts {
  headerHeight: number;
  /** The call to action's box, or none when there is none. */
  cta?: { top: number; bottom: number; left: number; right: number; visible: boolean };
  /** Each navigation link: its text, whether it is whole on screen and the one hit there. */
  links: Array<{ text: string; whole: boolean; hit: boolean }>;
}

/** Measures the header: its height, the call to action's box, each navigation link's. */
function measureHeader(page: Page): Promise<HeaderFacts> {
  return page.evaluate((width) => {
    // @ts-ignore: runs in the page, where document is
    const doc = document;
    const header = doc.querySelector(".site-header");
    // deno-lint-ignore no-explicit-any -- a DOM element: the tests' types have no DOM library
    type Node = any;
    const box = (element: Node) => element.getBoundingClientRect();
    const shown = (element: Node) => {
      // @ts-ignore: runs in the page, where getComputedStyle is
      const style = getComputedStyle(element);
      return style.display !== "none" && style.visibility !== "hidden" && style.opacity !== "0";
    };
    const cta = header?.querySelector("a.cta");
    const ctaBox = cta ? box(cta) : undefined;
    const links = [...(header?.querySelectorAll("nav a") ?? [])].map((link: Node) => {
      const rect = box(link);
      const whole = rect.width > 0 && rect.left >= 0 && rect.right <= width && shown(link);
      // Nothing covers or clips it: the point at its middle is the link (or inside it).
      const hit = doc.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
      return { text: link.textContent ?? "", whole, hit: hit !== null && link.contains(hit) };
    });
    return {
      headerHeight: header ? box(header).height : Infinity,
      ...(ctaBox && cta
        ? {
          cta: {
            top: ctaBox.top,
            bottom: ctaBox.bottom,
            left: ctaBox.left,
            right: ctaBox.right,
            visible: shown(cta),
          },
        }
        : {}),
      links,
    };
  }, PHONE.width);
}

test(
  "on a phone (390 px) every page, in both languages, shows the booking call to action on its first screen, a header of at most 120 px and every navigation link whole",
  { skip: CHROMIUM_SKIP },
  async () => {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const page = await context.newPage();
    const paths = CORPUS.pages.filter((item) => item.indexed).map((item) => item.path);
    assert.ok(paths.includes("/") && paths.includes("/en"), "both home pages are measured");
    assert.ok(paths.length >= 6, `pages in both languages: ${paths.join(", ")}`);
    const problems: string[] = [];
    for (const path of paths) {
      const response = await page.goto(origin + path);
      assert.equal(response?.status(), 200, path);
      const facts = await measureHeader(page);
      if (facts.headerHeight > MAX_HEADER_PX) {
        problems.push(`${path}: the header is ${facts.headerHeight} px tall`);
      }
      const { cta } = facts;
      if (!cta || !cta.visible) problems.push(`${path}: no call to action`);
      else if (
        cta.top < 0 || cta.bottom > PHONE.height || cta.left < 0 || cta.right > PHONE.width
      ) {
        problems.push(`${path}: the call to action is off the first screen`);
      }
      if (facts.links.length === 0) problems.push(`${path}: no navigation`);
      for (const link of facts.links) {
        if (!link.whole || !link.hit) problems.push(`${path}: "${link.text}" is cut or hidden`);
      }
    }
    await context.close();
    assert.deepEqual(problems, [], problems.join("\n"));
  },
);
