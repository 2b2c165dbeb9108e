/**
 * Passkeys in a real browser: Debian's Chromium (playwright-core) with a software authenticator
 * (the DevTools protocol's WebAuthn domain: a virtual CTAP2 authenticator with resident keys and
 * user verification) against the real server and a loopback SMTP server. A member signs in by the
 * e-mailed link, saves a passkey from the desk, signs out, signs in again with the passkey alone
 * (a new session, the audit entry "signed in (passkey)"), and removes it; afterwards the passkey
 * signs no one in. The site is served at `http://localhost`, a secure context whose host is a
 * valid relying-party id (an IP address is not).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { findFreePort, startServer } from "./_server.ts";
import { CHROMIUM_SKIP, launchChromium } from "./_chromium.ts";
import { startSmtpServer } from "../_smtp.ts";
import { byKind, receive } from "./_team.ts";

const MEMBER = "ana@studio.example";

const folder = mkdtempSync(join(tmpdir(), "studio-passkey-"));
const smtp = await startSmtpServer();
const port = await findFreePort();
const origin = `http://localhost:${port}`;
const server = await startServer({
  PORT: String(port),
  STUDIO_BASE_URL: origin,
  STUDIO_KV_PATH: join(folder, "team.kv"),
  STUDIO_SMTP_URL: smtp.url,
  STUDIO_MAIL_FROM: "Studio <site@studio.example>",
  STUDIO_INBOX: "inbox@studio.example",
  STUDIO_TEAM: MEMBER,
  STUDIO_RATE_LIMIT_WRITE: "1000",
});
let browser: Browser | undefined;

after(async () => {
  await browser?.close();
  await server.stop();
  await smtp.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** A browser context with a virtual authenticator on its page, as a phone or laptop has. */
async function openWithAuthenticator(
  context: BrowserContext,
): Promise<{ page: Page; cdp: CDPSession; authenticatorId: string }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { page, cdp, authenticatorId };
}

/** The audit trail's lines, from its page (the page then returns to the passkeys' page). */
async function readAudit(page: Page): Promise<string[]> {
  await page.goto(`${origin}/en/team/audit`);
  const lines = await page.locator(".audit-list li").allTextContents();
  await page.goto(`${origin}/en/team/passkeys`);
  return lines;
}

test(
  "a member saves a passkey from the desk, signs in with it alone in a software authenticator, and removes it",
  { skip: CHROMIUM_SKIP },
  async () => {
    browser = await launchChromium(["--host-resolver-rules=MAP localhost 127.0.0.1"]);
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const { page, cdp, authenticatorId } = await openWithAuthenticator(context);

    // Signed in by the e-mailed link.
    await page.goto(`${origin}/en/team`);
    assert.ok(await page.isVisible("form[data-passkey=sign-in]"), "the passkey form shows");
    await page.fill("#email", MEMBER);
    await page.click('form[action="/en/team/link"] button');
    const [mail] = await receive(smtp, byKind("team-sign-in", MEMBER));
    const link = /http:\/\/localhost:\d+\/en\/team\/sign-in\?\S+/.exec(mail.parsed.text ?? "")
      ?.[0];
    assert.ok(link);
    await page.goto(link);
    await page.click("main form button");
    await page.waitForURL(`${origin}/en/team`);
    await page.click("a[data-section=passkeys]");
    await page.waitForURL(`${origin}/en/team/passkeys`);
    assert.match(await page.textContent("#passkeys ~ p") ?? "", /signs you in/);
    assert.equal(await page.locator(".passkey-list li").count(), 0);

    // Saves a passkey: the authenticator now holds one credential for the site.
    await page.click("form[data-passkey=register] button");
    await page.waitForURL(/notice=passkey-added/);
    assert.match(await page.textContent('[role="status"]') ?? "", /Passkey saved/);
    assert.equal(await page.locator(".passkey-list li").count(), 1);
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    assert.equal(credentials.length, 1);
    assert.equal(credentials[0].rpId, "localhost");
    assert.equal(credentials[0].isResidentCredential, true);
    const firstCookie = (await context.cookies()).find((cookie) => cookie.name === "studio-team");
    assert.ok(firstCookie);

    // Signs out, then in with the passkey alone: a new session, recorded as such.
    await page.click(".workspace-tools form button");
    await page.waitForURL(/notice=signed-out/);
    const mailsBefore = smtp.messages.length;
    await page.click("form[data-passkey=sign-in] button");
    await page.waitForURL(`${origin}/en/team`);
    assert.match(await page.textContent("header") ?? "", /Signed in as ana@studio\.example\./);
    const secondCookie = (await context.cookies()).find((cookie) => cookie.name === "studio-team");
    assert.ok(secondCookie && secondCookie.value !== firstCookie.value, "a new session id");
    assert.equal(secondCookie.httpOnly, true);
    assert.equal(secondCookie.sameSite, "Strict");
    assert.equal(smtp.messages.length, mailsBefore, "no e-mail was needed");
    const audit = await readAudit(page);
    assert.match(audit[0], /ana@studio\.example signed in \(passkey\)$/);
    assert.ok(audit.some((line) => /added a passkey$/.test(line)));
    assert.equal(page.url(), `${origin}/en/team/passkeys`);
    assert.match(await page.textContent(".passkey-list li") ?? "", /last used on/);

    // Removes it: the authenticator still holds the credential, but it signs no one in.
    await page.click(".passkey-list button");
    await page.waitForURL(/notice=passkey-removed/);
    assert.equal(await page.locator(".passkey-list li").count(), 0);
    assert.match((await readAudit(page))[0], /removed a passkey$/);
    await page.click(".workspace-tools form button");
    await page.waitForURL(/notice=signed-out/);
    await page.click("form[data-passkey=sign-in] button");
    await page.waitForURL(`${origin}/en/team/passkey-sign-in`);
    assert.match(await page.textContent("main") ?? "", /This passkey is not known/);
    assert.doesNotMatch(await page.textContent("body") ?? "", /Signed in as/);
    await context.close();
  },
);

test(
  "without JavaScript the sign-in page offers only the e-mailed link",
  { skip: CHROMIUM_SKIP },
  async () => {
    assert.ok(browser, "the first test launched the browser");
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${origin}/equipa`);
    assert.equal(await page.isVisible("#email"), true);
    assert.equal(await page.isVisible("form[data-passkey]"), false);
    await context.close();
  },
);
