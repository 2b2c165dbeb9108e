/**
 * The team's desk in a real browser (Debian's Chromium driven by playwright-core, JavaScript off)
 * against the real server and a loopback SMTP server: a member asks for a link, opens it from the
 * mailbox, signs in with its button and confirms a request from its page; then axe-core audits
 * the sign-in page, a link's page, the desk and its search results at 390 and 1440 px, light and
 * dark, and no page is wider than a phone's screen (every page of the desk: desk_pages_test.ts). Screenshots go to test-artifacts/ for people to look at.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { findFreePort, startServer } from "./_server.ts";
import { CHROMIUM_SKIP, launchChromium } from "./_chromium.ts";
import { startSmtpServer } from "../_smtp.ts";
import { buildBookingBody } from "../_booking.ts";
import { findFreeStarts } from "./_studio.ts";

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));
const MEMBER = "ana@studio.example";

const folder = mkdtempSync(join(tmpdir(), "studio-team-browser-"));
const smtp = await startSmtpServer();
const port = await findFreePort();
const origin = `http://127.0.0.1:${port}`;
const server = await startServer({
  PORT: String(port),
  STUDIO_BASE_URL: origin,
  STUDIO_KV_PATH: join(folder, "team.kv"),
  STUDIO_SMTP_URL: smtp.url,
  STUDIO_MAIL_FROM: "Studio <site@studio.example>",
  STUDIO_INBOX: "inbox@studio.example",
  STUDIO_TEAM: MEMBER,
  STUDIO_CONFIRMATION: "manual",
  STUDIO_RATE_LIMIT_WRITE: "1000",
  STUDIO_RATE_LIMIT_BOOKING: "1000",
});
let browser: Browser | undefined;

after(async () => {
  await browser?.close();
  await server.stop();
  await smtp.stop();
  rmSync(folder, { recursive: true, force: true });
});

const delay = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Waits for the next sign-in e-mail and returns its link. */
async function readLink(before: number): Promise<string> {
  const isSignIn = (index: number) =>
    /^<team-sign-in-/.test(smtp.messages[index]?.parsed.messageId ?? "");
  const deadline = Date.now() + 10_000;
  for (;;) {
    for (let index = before; index < smtp.messages.length; index++) {
      if (!isSignIn(index)) continue;
      const link = /http:\/\/\S+\/(?:equipa\/entrar|en\/team\/sign-in)\?\S+/.exec(
        smtp.messages[index].parsed.text ?? "",
      )?.[0];
      assert.ok(link);
      return link;
    }
    assert.ok(Date.now() < deadline, "a sign-in e-mail arrives");
    await delay(20);
  }
}

/** Books the first free slot from next month, and sends an inquiry, for the desk to show. */
async function fillTheDesk(): Promise<void> {
  const starts = await findFreeStarts(origin, { minimum: 2 });
  for (const [index, email] of ["marta@example.com", "joao@example.com"].entries()) {
    const response = await fetch(`${origin}/api/v1/booking`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(buildBookingBody(starts[index], { email })),
    });
    assert.equal(response.status, 201);
    await response.body?.cancel();
  }
  const inquiry = await fetch(`${origin}/api/v1/contact`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      Name: "Rita Lopes",
      Email: "rita@example.pt",
      Message: "Olá,\nprecisamos de um site novo para a padaria.",
    }),
  });
  assert.equal(inquiry.status, 200);
  await inquiry.body?.cancel();
}

/** Signs in through the form and the e-mailed link, in a page without JavaScript. */
async function signIn(page: Page, deskPath: string): Promise<void> {
  await page.goto(origin + deskPath);
  const before = smtp.messages.length;
  await page.fill("#email", MEMBER);
  await page.click('button[type="submit"]');
  await page.waitForLoadState();
  const link = await readLink(before);
  const opened = await page.goto(link);
  assert.equal(opened?.status(), 200);
  await page.click('main button[type="submit"]');
  await page.waitForURL(origin + deskPath);
}

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, name), fullPage: true });
}

let signedIn: BrowserContext | undefined;
/** A link asked for and never used, whose page the audits open. */
let spareLink: string | undefined;

test(
  "a member signs in from the mailbox in a browser without JavaScript and confirms a request on the desk",
  { skip: CHROMIUM_SKIP },
  async () => {
    await fillTheDesk();
    browser = await launchChromium();
    signedIn = await browser.newContext({ javaScriptEnabled: false });
    const page = await signedIn.newPage();
    await signIn(page, "/equipa");
    assert.match(await page.textContent("header") ?? "", /Sessão de ana@studio\.example\./);
    const cookies = await signedIn.cookies();
    assert.equal(cookies.length, 1);
    assert.equal(cookies[0].httpOnly, true);
    assert.equal(cookies[0].sameSite, "Strict");
    // The overview lists the requests; each leads to its page, where it is confirmed.
    await page.click("li[id^=booking-] a.row-title");
    await page.waitForURL(/\/equipa\/reservas\/[0-9A-Z]{26}$/);
    await page.click(".record-actions button[type=submit]");
    await page.waitForURL(/\/equipa\/reservas\/[0-9A-Z]{26}\?notice=confirmed$/);
    assert.match(await page.textContent('[role="status"]') ?? "", /Conversa confirmada/);
    const before = smtp.messages.length;
    const asked = await fetch(`${origin}/en/team/link`, {
      method: "POST",
      body: new URLSearchParams({ email: MEMBER }),
    });
    assert.equal(asked.status, 200);
    await asked.body?.cancel();
    spareLink = await readLink(before);
    await page.close();
  },
);

/** axe-core's source, injected into each page (the page's CSP is bypassed for it). */
const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

const VIEWS = [
  { name: "390 px light", viewport: { width: 390, height: 844 }, colorScheme: "light" },
  { name: "1440 px light", viewport: { width: 1440, height: 900 }, colorScheme: "light" },
  { name: "390 px dark", viewport: { width: 390, height: 844 }, colorScheme: "dark" },
  { name: "1440 px dark", viewport: { width: 1440, height: 900 }, colorScheme: "dark" },
] as const;

/** axe-core's violations on the page, and whether the page is wider than its viewport. */
async function audit(page: Page, width: number): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    // @ts-ignore: axe is the script just injected
    const result = await globalThis.axe.run(document, { resultTypes: ["violations"] });
    return (result.violations as Array<{ id: string; nodes: Array<{ target: string[] }> }>)
      .map((violation) =>
        `${violation.id} (${violation.nodes.map((node) => node.target.join(" ")).join(", ")})`
      );
  });
  // @ts-ignore: the function runs in the page, where document is
  const scrollWidth: number = await page.evaluate(() => document.documentElement.scrollWidth);
  return scrollWidth > width ? [...violations, `${scrollWidth} px wide`] : violations;
}

for (const view of VIEWS) {
  test(
    `axe-core finds no violation on the desk's pages at ${view.name}, and none is wider than the screen`,
    { skip: CHROMIUM_SKIP },
    async () => {
      assert.ok(browser && signedIn, "the sign-in test ran first");
      const found: string[] = [];
      const options = {
        viewport: view.viewport,
        colorScheme: view.colorScheme,
        bypassCSP: true,
        reducedMotion: "reduce",
      } as const;
      const signedOut = await browser.newContext(options);
      const desk = await browser.newContext({
        ...options,
        storageState: await signedIn.storageState(),
      });
      try {
        const page = await signedOut.newPage();
        for (const path of ["/equipa", "/en/team"]) {
          await page.goto(origin + path);
          found.push(...(await audit(page, view.viewport.width)).map((item) => `${path}: ${item}`));
        }
        // The page is the same for every address: a stranger's keeps the member's quota.
        await page.fill("#email", `visitor.${view.viewport.width}.${view.colorScheme}@example.com`);
        await page.click('button[type="submit"]');
        await page.waitForLoadState();
        found.push(...(await audit(page, view.viewport.width)).map((item) => `sent: ${item}`));
        assert.ok(spareLink, "the sign-in test kept a link");
        await page.goto(spareLink);
        found.push(...(await audit(page, view.viewport.width)).map((item) => `link: ${item}`));
        const deskPage = await desk.newPage();
        // The desk in both languages, and a search's results.
        for (const path of ["/equipa", "/en/team", "/en/team/bookings?q=marta"]) {
          await deskPage.goto(origin + path);
          assert.match(await deskPage.textContent("header") ?? "", /ana@studio\.example/);
          found.push(
            ...(await audit(deskPage, view.viewport.width)).map((item) => `${path}: ${item}`),
          );
        }
        await screenshot(deskPage, `team-desk-${view.name.replace(/ /g, "-")}.png`);
      } finally {
        await signedOut.close();
        await desk.close();
      }
      assert.deepEqual(found, [], found.join("\n"));
    },
  );
}
