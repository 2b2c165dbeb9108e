import { chromium } from "playwright-core";
import { startServer } from "./tests/e2e/_server.ts";
const folder = await Deno.makeTempDir({ prefix: "studio-shots-" });
const server = await startServer({ STUDIO_KV_PATH: `${folder}/studio.kv`, STUDIO_SMTP_URL: "smtp://127.0.0.1:9", STUDIO_LOG: "quiet" });
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless=new"] });
try {
  for (const [name, path] of [["home", "/en"], ["work", "/en/work"], ["case", "/en/work/mare-alta"]]) {
    for (const [width, height, scale] of [[390, 844, 2], [1440, 900, 1]]) {
      for (const scheme of ["light", "dark"] as const) {
        const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: scale, colorScheme: scheme });
        await page.goto(server.origin + path, { waitUntil: "networkidle" });
        for (let y = 0; y < 6000; y += 500) { await page.evaluate((y) => scrollTo(0, y), y); await page.waitForTimeout(60); }
        await page.evaluate(() => scrollTo(0, 0));
        await page.waitForLoadState("networkidle");
        const srcs = await page.$$eval("main img", (els) => els.map((e) => `${(e as HTMLImageElement).currentSrc.replace(/^.*\/assets\//, "").replace(/\?.*/, "")} ${Math.round(e.getBoundingClientRect().width)} lazy=${(e as HTMLImageElement).loading} top=${Math.round(e.getBoundingClientRect().top)}`));
        if (scheme === "light") console.log(name, width, srcs.join(" | "));
        await page.screenshot({ path: `/tmp/p19/shot-${name}-${width}-${scheme}.png`, fullPage: width === 1440 ? false : false });
        await page.close();
      }
    }
  }
} finally { await browser.close(); await server.stop(); }
