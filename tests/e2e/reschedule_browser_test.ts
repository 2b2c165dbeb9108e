/**
 * The reschedule page in Debian's Chromium without JavaScript, against the real server and SMTP
 * server: the attendee opens the link of their e-mail (Chromium follows its 303 and keeps the
 * cookie it sets; another browser gets the page that asks for the link), picks a time with the
 * keyboard and sends;
 * both sides receive the updated invite. axe-core finds no violation on the page at 390 and
 * 1440 px, light and dark. Screenshots go to test-artifacts/.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { CHROMIUM_SKIP, launchChromium } from "./_chromium.ts";
import { findFreePort, startServer } from "./_server.ts";
import { type ReceivedMail, startSmtpServer } from "../_smtp.ts";
import { buildBookingBody, findRescheduleLink, readInvite } from "../_booking.ts";
import { nextMonth } from "./_studio.ts";

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));
const INBOX = "inbox@studio.example";

const folder = mkdtempSync(join(tmpdir(), "studio-reschedule-browser-"));
const smtp = await startSmtpServer();
const port = await findFreePort();
const origin = `http://127.0.0.1:${port}`;
const server = CHROMIUM_SKIP ? undefined : await startServer({
  PORT: String(port),
  STUDIO_BASE_URL: origin,
  STUDIO_KV_PATH: join(folder, "browser.kv"),
  STUDIO_SMTP_URL: smtp.url,
  STUDIO_MAIL_FROM: "Studio <site@studio.example>",
  STUDIO_INBOX: INBOX,
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

async function openBrowser(): Promise<Browser> {
  browser ??= await launchChromium();
  return browser;
}

/** Books a free time of next month for `email` and returns the start and the attendee's e-mail. */
async function book(email: string, locale: "pt" | "en", index = 0) {
  const month = nextMonth();
  const listing = await fetch(`${origin}/api/v1/booking/slots?month=${month}`);
  const body: { slots: Record<string, Array<{ start: string }>> } = await listing.json();
  const start = Object.values(body.slots).flat()[index]?.start;
  assert.ok(start, "next month has free times");
  const response = await fetch(`${origin}/api/v1/booking`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(buildBookingBody(start, { email, locale })),
  });
  const text = await response.text();
  assert.equal(response.status, 201, text);
  return { start, mail: await receive("attendee-booked", email) };
}

/** Waits for the e-mail of `kind` to `address` (or, for the studio's, about it). */
async function receive(kind: string, address: string): Promise<ReceivedMail> {
  const find = () =>
    smtp.messages.find((mail) =>
      (mail.parsed.messageId ?? "").startsWith(`<${kind}-`) &&
      (mail.envelopeTo.includes(address) || mail.parsed.replyTo?.[0]?.address === address)
    );
  const deadline = Date.now() + 15_000;
  while (!find() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const mail = find();
  assert.ok(mail, `a ${kind} e-mail about ${address}`);
  return mail;
}

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, name), fullPage: true });
}

test(
  "an attendee reschedules by the e-mail's link in Chromium without JavaScript, with the keyboard",
  { skip: CHROMIUM_SKIP },
  async () => {
    const { start, mail } = await book("rui@example.org", "pt");
    const link = findRescheduleLink(mail);
    assert.ok(link);
    const context = await (await openBrowser()).newContext({
      javaScriptEnabled: false,
      viewport: { width: 390, height: 844 },
      reducedMotion: "reduce",
    });
    const page = await context.newPage();
    try {
      const opened = await page.goto(link);
      assert.equal(opened?.status(), 200);
      assert.equal(await page.textContent("h1"), "Mudar a hora da conversa");
      // Chromium followed the link's 303 and keeps its cookie; the address holds no signature.
      const clean = link.replace(/&sig=[\w-]+/, "");
      assert.equal(page.url(), clean);
      const cookies = await context.cookies();
      assert.equal(cookies.length, 1);
      assert.match(cookies[0].name, /^booking-reschedule-[0-9A-Z]{26}-0$/);
      assert.equal(cookies[0].path, "/booking/reschedule");
      assert.equal(cookies[0].httpOnly, true);
      assert.equal(cookies[0].sameSite, "Lax");
      assert.equal((await page.reload())?.status(), 200, "a reload keeps the page");
      const elsewhere = await (await openBrowser()).newContext({ javaScriptEnabled: false });
      try {
        const other = await elsewhere.newPage();
        assert.equal((await other.goto(clean))?.status(), 403, "another browser has no cookie");
        assert.match(await other.textContent("h1") ?? "", /Abra a ligação do e-mail/);
      } finally {
        await elsewhere.close();
      }
      const times = page.locator('.days input[name="start"]');
      assert.ok(await times.count() > 0, "the free times are listed without JavaScript");
      assert.equal(await page.locator(`.days input[value="${start}"]`).count(), 0);
      await screenshot(page, "reschedule-pt-390.png");
      const target = await times.nth(2).inputValue();
      await page.focus(`.days input[value="${target}"]`);
      await page.keyboard.press("Space");
      assert.equal(await page.isChecked(`.days input[value="${target}"]`), true);
      await page.focus('#booking button[type="submit"]');
      await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
      assert.match(await page.textContent("main .notice") ?? "", /^Feito: a conversa passou para/);
      await screenshot(page, "reschedule-pt-390-moved.png");

      const attendee = readInvite(await receive("attendee-moved", "rui@example.org"), "REQUEST");
      const studio = readInvite(await receive("studio-moved", "rui@example.org"), "REQUEST");
      const first = readInvite(mail, "REQUEST");
      for (const invite of [attendee, studio]) {
        assert.equal(invite.uid, first.uid);
        assert.equal(invite.sequence, first.sequence + 1);
        assert.equal(invite.startEpochMs, Date.parse(target));
      }
      // Back to the first e-mail's link: it has expired, and says so.
      const stale = await page.goto(link);
      assert.equal(stale?.status(), 410);
      assert.match(await page.textContent("main") ?? "", /Esta ligação expirou/);
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

test(
  "axe-core finds no violation on the reschedule page at 390 and 1440 px, light and dark",
  { skip: CHROMIUM_SKIP },
  async () => {
    const { mail } = await book("axe@example.org", "en", 5);
    const link = findRescheduleLink(mail);
    assert.ok(link);
    const found: string[] = [];
    for (const width of [390, 1440]) {
      for (const colorScheme of ["light", "dark"] as const) {
        const context = await (await openBrowser()).newContext({
          viewport: { width, height: 900 },
          colorScheme,
          bypassCSP: true,
          reducedMotion: "reduce",
        });
        const page = await context.newPage();
        try {
          await page.goto(link, { waitUntil: "load" });
          await page.addScriptTag({ content: AXE_SOURCE });
          const violations = await page.evaluate(async () => {
            // @ts-ignore: axe is the script just injected
            const result = await globalThis.axe.run(document, { resultTypes: ["violations"] });
            return (result.violations as Array<{ id: string; nodes: Array<{ target: string[] }> }>)
              .map((violation) =>
                `${violation.id} (${
                  violation.nodes.map((node) => node.target.join(" ")).join(", ")
                })`
              );
          });
          for (const violation of violations) found.push(`${width} ${colorScheme}: ${violation}`);
          if (colorScheme === "light") await screenshot(page, `reschedule-en-${width}.png`);
        } finally {
          await context.close();
        }
      }
    }
    assert.deepEqual(found, [], found.join("\n"));
  },
);
