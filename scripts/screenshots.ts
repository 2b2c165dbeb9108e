/**
 * The README's pictures of the site, made from the running service so that they stay true: the
 * English home page, work index and one case study at desktop (1440 × 900) and phone (390 × 844)
 * widths, light scheme, in Debian's Chromium, written to `docs/screenshots/`. Each shot waits for
 * the network to settle and for every picture in the viewport to have loaded.
 *
 * Usage: `deno task screenshots`
 *
 * @module
 */
import { chromium } from "playwright-core";
import { startServer } from "../tests/e2e/_server.ts";

const OUT = new URL("../docs/screenshots/", import.meta.url).pathname;
const PAGES = [
  { name: "home", path: "/en" },
  { name: "work", path: "/en/work" },
  { name: "case-study", path: "/en/work/mare-alta" },
] as const;
const SIZES = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "mobile", width: 390, height: 844 },
] as const;
const SHOTS = PAGES.flatMap((page) =>
  SIZES.map((size) => ({ ...size, path: page.path, name: `${page.name}-${size.name}.png` }))
);

/** What the shots ask of an `img` in the page. */
interface Picture {
  complete: boolean;
  naturalWidth: number;
  getBoundingClientRect(): { top: number; bottom: number; width: number };
}

const folder = await Deno.makeTempDir({ prefix: "studio-shots-" });
const server = await startServer({
  STUDIO_KV_PATH: `${folder}/studio.kv`,
  STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
  STUDIO_LOG: "quiet",
});
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless=new"],
});
try {
  await Deno.mkdir(OUT, { recursive: true });
  for (const shot of SHOTS) {
    const page = await browser.newPage({
      viewport: { width: shot.width, height: shot.height },
      deviceScaleFactor: 1,
      colorScheme: "light",
    });
    await page.goto(server.origin + shot.path, { waitUntil: "networkidle" });
    // Runs in the page: every picture in the viewport has loaded (no DOM types here).
    await page.waitForFunction(() => {
      const scope = globalThis as unknown as {
        innerHeight: number;
        document: { images: Picture[] };
      };
      return [...scope.document.images].every((img) => {
        const box = img.getBoundingClientRect();
        const seen = box.bottom > 0 && box.top < scope.innerHeight && box.width > 0;
        return !seen || (img.complete && img.naturalWidth > 0);
      });
    });
    await page.screenshot({ path: OUT + shot.name });
    await page.close();
    console.log(`Wrote docs/screenshots/${shot.name}`);
  }
} finally {
  await browser.close();
  await server.stop();
  await Deno.remove(folder, { recursive: true });
}
