/**
 * The README's pictures of the site, made from the running service so that they stay true: the
 * English home page at desktop (1440 × 900) and phone (390 × 844) widths, in Debian's Chromium,
 * written to `docs/screenshots/`.
 *
 * Usage: `deno task screenshots`
 *
 * @module
 */
import { chromium } from "playwright-core";
import { startServer } from "../tests/e2e/_server.ts";

const OUT = new URL("../docs/screenshots/", import.meta.url).pathname;
const SHOTS = [
  { name: "home-desktop.png", path: "/en", width: 1440, height: 900 },
  { name: "home-mobile.png", path: "/en", width: 390, height: 844 },
] as const;

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
    await page.screenshot({ path: OUT + shot.name });
    await page.close();
    console.log(`Wrote docs/screenshots/${shot.name}`);
  }
} finally {
  await browser.close();
  await server.stop();
  await Deno.remove(folder, { recursive: true });
}
