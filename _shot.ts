import { chromium } from "playwright-core";
const [path, width, scheme, out] = Deno.args;
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless=new"],
});
const page = await browser.newPage({
  viewport: { width: Number(width), height: 900 },
  colorScheme: scheme as "light" | "dark",
});
await page.goto("http://127.0.0.1:18719" + path, { waitUntil: "networkidle" });
await page.screenshot({ path: out, fullPage: true });
await browser.close();
