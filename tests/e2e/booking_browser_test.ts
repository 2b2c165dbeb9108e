/**
 * The booking page for a visitor anywhere, in Debian's Chromium against the real server and SMTP
 * server, the browser in New York (playwright's `timezoneId`): with JavaScript the times read in
 * the browser's zone, a booking sent without a time gets the page's own message, and a booking
 * ends on the booking's page (time in New York and Lisbon, the meeting's length, "add to
 * calendar" answering `text/calendar`, the reschedule and cancel links); without JavaScript
 * `?tz=America/Sao_Paulo` writes the times in São Paulo and the 303 leads to the same page.
 * axe-core finds no violation on the booking page (also with an unknown zone's note), the
 * booking's page, the cancel page and the reschedule page at 390 and 1440 px, light and dark; the
 * Nu HTML Checker finds nothing on them. Screenshots go to
 * test-artifacts/.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { CHROMIUM_SKIP, launchChromium } from "./_chromium.ts";
import { findFreePort, startServer } from "./_server.ts";
import { type ReceivedMail, startSmtpServer } from "../_smtp.ts";
import { openSignedLink, readInvite, sendTo } from "../_booking.ts";
import { CORPUS, MEETING_MINUTES, nextMonth, pageOf, STUDIO_ZONE } from "./_studio.ts";
import { checkHtml, NU_SKIP } from "./_nu_html.ts";

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));
const VISITOR_ZONE = "America/New_York";
const BOOK_EN = pageOf("booking", "en").path;
const BOOKING_EN = CORPUS.languages.en.booking;

const folder = mkdtempSync(join(tmpdir(), "studio-booking-browser-"));
const smtp = await startSmtpServer();
const port = await findFreePort();
const origin = `http://127.0.0.1:${port}`;
const server = CHROMIUM_SKIP ? undefined : await startServer({
  PORT: String(port),
  STUDIO_BASE_URL: origin,
  STUDIO_KV_PATH: join(folder, "browser.kv"),
  STUDIO_SMTP_URL: smtp.url,
  STUDIO_MAIL_FROM: "Studio <site@studio.example>",
  STUDIO_INBOX: "inbox@studio.example",
  STUDIO_RATE_LIMIT_WRITE: "1000",
  STUDIO_RATE_LIMIT_BOOKING: "1000",
  STUDIO_LOG: "quiet",
});
let browser: Browser | undefined;

after(async () => {
  await browser?.close();
  await server?.stop();
  await smtp.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** A browser context in New York, at a width, with or without JavaScript. */
async function openContext(
  options: { width: number; javaScript?: boolean; colorScheme?: "light" | "dark" },
): Promise<BrowserContext> {
  browser ??= await launchChromium();
  return browser.newContext({
    viewport: { width: options.width, height: options.width < 500 ? 844 : 900 },
    timezoneId: VISITOR_ZONE,
    javaScriptEnabled: options.javaScript ?? true,
    colorScheme: options.colorScheme ?? "light",
    reducedMotion: "reduce",
  });
}

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, name), fullPage: true });
}

/** An instant's wall time in a zone, as the picker writes it. */
function toWallTime(start: string, timeZone: string): string {
  return new Intl.DateTimeFormat("en", {
    timeZone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(new Date(start));
}

/** Waits for the e-mail of `kind` to `address`. */
async function receive(kind: string, address: string): Promise<ReceivedMail> {
  const find = () =>
    smtp.messages.find((mail) =>
      (mail.parsed.messageId ?? "").startsWith(`<${kind}-`) && mail.envelopeTo.includes(address)
    );
  const deadline = Date.now() + 10_000;
  while (!find() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const mail = find();
  assert.ok(mail, `${kind} to ${address}`);
  return mail;
}

/** The chosen day's first free time: its input's value and the time it shows. */
async function readFirstTime(page: Page): Promise<{ start: string; shown: string }> {
  const first = page.locator('.day-times:not([hidden]) input[name="start"]').first();
  const shown = page.locator(".day-times:not([hidden]) .times span").first();
  return { start: await first.inputValue(), shown: (await shown.textContent()) ?? "" };
}

/** Fills the details and books the chosen time; waits for the booking's page. */
async function bookChosen(page: Page, email: string): Promise<void> {
  await page.fill("#b-name", "Ana Sousa");
  await page.fill("#b-email", email);
  await page.fill("#b-topic", "A new website for our physiotherapy clinic");
  await Promise.all([
    page.waitForURL(/\/booking\/view\?id=/),
    page.click('#booking button[type="submit"]'),
  ]);
}

/** Asserts the booking's page: its time in `zone` and the studio's, and its links. */
async function assertBookedPage(page: Page, start: string, zoneName: string): Promise<void> {
  const main = (await page.textContent("main")) ?? "";
  const end = new Date(Date.parse(start) + MEETING_MINUTES * 60_000).toISOString();
  assert.match(main, /Your conversation is booked/);
  assert.ok(main.includes(`${MEETING_MINUTES} min`), "the meeting's length");
  const zone = VISITOR_ZONE === zoneName ? "Eastern Time" : "Brasilia Standard Time";
  const visitorZone = zoneName;
  const range = `${toWallTime(start, visitorZone)}–${toWallTime(end, visitorZone)} (${zone})`;
  assert.ok(main.includes(range), `"${range}" in ${main}`);
  assert.ok(main.includes(`${toWallTime(start, STUDIO_ZONE)}–${toWallTime(end, STUDIO_ZONE)}`));
  const ics = await page.getAttribute('a[href^="/booking/invite?"]', "href");
  assert.ok(ics, "add to calendar");
  const file = await page.request.get(new URL(ics, origin).href);
  assert.equal(file.status(), 200);
  assert.equal(file.headers()["content-type"], "text/calendar; charset=utf-8");
  assert.match(await file.text(), /BEGIN:VEVENT[\s\S]*UID:booking-/);
  assert.equal(await page.locator('a[href^="/booking/reschedule?"]').count(), 1);
  assert.equal(await page.locator('a[href^="/booking/cancel?"]').count(), 1);
  assert.equal(await page.locator('a[href^="https://calendar.google.com/"]').count(), 1);
  assert.equal(await page.locator('a[href^="https://outlook.live.com/"]').count(), 1);
}

test(
  `GET ${BOOK_EN} with JavaScript in New York writes the times in New York, asks for a time in its own words, and books into the booking's page`,
  { skip: CHROMIUM_SKIP },
  async () => {
    const context = await openContext({ width: 1440 });
    const page = await context.newPage();
    try {
      await page.goto(`${origin}${BOOK_EN}?month=${nextMonth()}`, { waitUntil: "networkidle" });
      await page.waitForURL(/tz=America%2FNew_York/);
      assert.match(await page.textContent(".zone-line") ?? "", /Eastern Time/);
      const { start, shown } = await readFirstTime(page);
      assert.notEqual(toWallTime(start, VISITOR_ZONE), toWallTime(start, STUDIO_ZONE));
      assert.equal(shown, toWallTime(start, VISITOR_ZONE), "the first time reads in New York");
      assert.equal(
        await page.locator("a.zone-switch").count(),
        1,
        "the studio's time, a click away",
      );

      // Sent without a time: the page's own message, not the browser's bubble.
      await page.fill("#b-name", "Ana Sousa");
      await page.click('#booking button[type="submit"]');
      const result = page.locator(".booking-result");
      await result.filter({ hasText: BOOKING_EN.missingTime }).waitFor();
      assert.equal(
        await page.evaluate(() =>
          // Runs in the page, whose document no types of this test declare.
          (globalThis as unknown as { document: { activeElement: { className: string } } })
            .document.activeElement.className
        ),
        "booking-result notice",
      );
      assert.match(page.url(), /\/en\/book/, "nothing was sent");

      await page.locator(`input[value="${start}"]`).check({ force: true });
      await bookChosen(page, "ana.ny@example.org");
      await screenshot(page, "booking-booked-en-1440.png");
      await assertBookedPage(page, start, VISITOR_ZONE);
      const mail = await receive("attendee-booked", "ana.ny@example.org");
      assert.match(mail.parsed.text ?? "", /When: .+ \(Eastern Time\)\n.*Studio time: /);
      const ics = await page.getAttribute('a[href^="/booking/invite?"]', "href");
      const file = await (await page.request.get(new URL(ics ?? "", origin).href)).text();
      assert.ok(file.includes(`UID:${readInvite(mail, "REQUEST").uid}`), "the e-mailed UID");
    } finally {
      await context.close();
    }
  },
);

test(
  `GET ${BOOK_EN}?tz=America/Sao_Paulo without JavaScript writes the times in São Paulo, and the booking's 303 leads to its page`,
  { skip: CHROMIUM_SKIP },
  async () => {
    const context = await openContext({ width: 390, javaScript: false });
    const page = await context.newPage();
    try {
      await page.goto(`${origin}${BOOK_EN}?month=${nextMonth()}&tz=America/Sao_Paulo`);
      assert.match(await page.textContent(".zone-line") ?? "", /Brasilia Standard Time/);
      const { start, shown } = await readFirstTime(page);
      assert.equal(shown, toWallTime(start, "America/Sao_Paulo"));
      // The times are on the phone's first screen.
      const box = await page.locator(".day-times:not([hidden]) .times label").first().boundingBox();
      assert.ok(box && box.y + box.height <= 844, `the first time at ${box?.y} px`);
      await page.focus(`input[value="${start}"]`);
      await page.keyboard.press("Space");
      await bookChosen(page, "joana.sp@example.org");
      await screenshot(page, "booking-booked-nojs-390.png");
      await assertBookedPage(page, start, "America/Sao_Paulo");
    } finally {
      await context.close();
    }
  },
);

/** axe-core's source, injected into the page (the page's CSP is bypassed for it). */
const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

/** Books through the form without a browser; returns the booking's page and the cancel page. */
async function bookByForm(
  email: string,
): Promise<{ view: string; cancel: string; reschedule: string }> {
  const page = await (await fetch(`${origin}${BOOK_EN}?month=${nextMonth()}`)).text();
  const start = [...page.matchAll(/name="start" value="([^"]+)"/g)].at(-1)?.[1] ?? "";
  const response = await fetch(`${origin}${BOOK_EN}`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: origin },
    body: new URLSearchParams({
      start,
      name: "Rui Alves",
      email,
      topic: "A brand for our bakery in Setúbal",
      tz: VISITOR_ZONE,
    }),
  });
  await response.body?.cancel();
  assert.equal(response.status, 303);
  const view = origin + (response.headers.get("Location") ?? "");
  const html = await (await openSignedLink(sendTo(origin), view)).text();
  const link = (action: string) =>
    new RegExp(`href="(/booking/${action}\\?[^"]+)"`).exec(html)?.[1]?.replaceAll("&amp;", "&");
  const [cancel, reschedule] = [link("cancel"), link("reschedule")];
  assert.ok(cancel && reschedule);
  return { view, cancel: origin + cancel, reschedule: origin + reschedule };
}

test(
  "axe-core finds no violation on the booking page, the booking's page, the cancel and the reschedule pages at 390 and 1440 px, light and dark, and the Nu HTML Checker nothing",
  { skip: CHROMIUM_SKIP },
  async () => {
    const { view, cancel, reschedule } = await bookByForm("axe.booking@example.org");
    const pages = [
      { name: "book", url: `${origin}${BOOK_EN}?month=${nextMonth()}` },
      { name: "book-zone", url: `${origin}${BOOK_EN}?tz=Nowhere%2FAtAll` },
      { name: "booked", url: view },
      { name: "cancel", url: cancel },
      { name: "reschedule", url: reschedule },
    ];
    const found: string[] = [];
    for (const { name, url } of pages) {
      for (const width of [390, 1440]) {
        for (const colorScheme of ["light", "dark"] as const) {
          browser ??= await launchChromium();
          const context = await browser.newContext({
            viewport: { width, height: 900 },
            colorScheme,
            timezoneId: VISITOR_ZONE,
            bypassCSP: true,
            reducedMotion: "reduce",
          });
          const page = await context.newPage();
          try {
            await page.goto(url, { waitUntil: "networkidle" });
            await page.addScriptTag({ content: AXE_SOURCE });
            const violations = await page.evaluate(async () => {
              // @ts-ignore: axe is the script just injected
              const result = await globalThis.axe.run(document, { resultTypes: ["violations"] });
              return (result.violations as Array<
                { id: string; nodes: Array<{ target: string[] }> }
              >).map((violation) =>
                `${violation.id} (${
                  violation.nodes.map((node) => node.target.join(" ")).join(", ")
                })`
              );
            });
            for (const violation of violations) {
              found.push(`${name} ${width} ${colorScheme}: ${violation}`);
            }
            await screenshot(page, `booking-${name}-${width}-${colorScheme}.png`);
          } finally {
            await context.close();
          }
        }
      }
    }
    assert.deepEqual(found, [], found.join("\n"));
    if (NU_SKIP) return;
    const documents = [];
    for (const { name, url } of pages) {
      // The signed pages as a browser reads them: the link's 303 followed with its cookie.
      const answer = await openSignedLink(sendTo(origin), url);
      assert.equal(answer.status, 200, name);
      documents.push({ name, html: await answer.text() });
    }
    const messages = checkHtml(documents);
    assert.deepEqual(messages, [], messages.join("\n"));
  },
);
