/**
 * The desk as a place to work, in a real browser (Debian's Chromium driven by playwright-core)
 * against the real server and a loopback SMTP server: its sections are pages of their own under
 * the desk's header, none links to the public booking page; a booking made through the API is
 * reached from the bookings list at a page of its own that shows its attendee, topic and history;
 * a decline takes a second step that can keep the request, all without JavaScript. Then axe-core
 * audits every page of the desk in both languages at 390 and 1440 px, light and dark, and no page
 * is wider than its screen. Screenshots go to test-artifacts/desk/ for people to look at.
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
import { CORPUS } from "./_studio.ts";
import { findRescheduleLink, openSignedLink } from "../_booking.ts";
import { bookNextMonth, byKind, HTML, open, post, receive, signInByMail } from "./_team.ts";

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/desk/", import.meta.url));
const MEMBER = "ana@studio.example";
const MARTA = { email: "marta@example.com", name: "Marta Reis" };
const JOAO = { email: "joao@example.com", name: "João Pires" };
const TOPIC = "A new site for the bakery, with the daily bread list";

const folder = mkdtempSync(join(tmpdir(), "studio-desk-pages-"));
const smtp = await startSmtpServer();
const port = await findFreePort();
const origin = `http://127.0.0.1:${port}`;
const server = await startServer({
  PORT: String(port),
  STUDIO_BASE_URL: origin,
  STUDIO_KV_PATH: join(folder, "desk.kv"),
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

/** The session's cookie, once signed in. */
let cookie = "";

/** The paths of the public booking page, in both languages, which no desk page links to. */
const BOOKING_PAGES = CORPUS.pages.filter((page) => page.layout === "booking").map((page) =>
  page.path
);

/** The id of the row of the list for `email` (`booking-…` or `inquiry-…`). */
function findRow(html: string, kind: "booking" | "inquiry", email: string): string {
  const pattern = new RegExp(
    `<li id="${kind}-([0-9A-Z]{26})" class="row">(?:(?!</li>)[\\s\\S])*${
      email.replace(/\./g, "\\.")
    }`,
  );
  const id = pattern.exec(html)?.[1];
  assert.ok(id, `a ${kind} of ${email} in the list`);
  return id;
}

/** A desk page's HTML over HTTP, with the session. */
async function read(path: string, status = 200): Promise<string> {
  const response = await open(server, path, { headers: { ...HTML, Cookie: cookie } });
  assert.equal(response.status, status, path);
  return await response.text();
}

/** The form token of the session, as the desk's forms carry it. */
async function readFormToken(): Promise<string> {
  return /name="form_token" value="([\w-]+)"/.exec(await read("/en/team"))?.[1] ?? "";
}

/** João moves his confirmed booking to the last free time by his e-mail's reschedule link. */
async function reschedule(): Promise<void> {
  const [booked] = await receive(smtp, byKind("attendee-booked", JOAO.email));
  const link = new URL(findRescheduleLink(booked) ?? "");
  // The link's 303 followed with its cookie, as a browser does.
  const page = await (await openSignedLink((path, init) => open(server, path, init), link.href))
    .text();
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1]?.replaceAll("&amp;", "&");
  const starts = [...page.matchAll(/<input type="radio" name="start" value="([^"]+)"/g)];
  assert.ok(action && starts.length, "the reschedule page offers times");
  // The form's hidden fields (the link's id, SEQUENCE and signature) and the chosen time.
  const fields = new URLSearchParams(
    [...page.matchAll(/<input type="hidden" name="([\w-]+)" value="([^"]*)"/g)].map((match) => [
      match[1],
      match[2].replaceAll("&amp;", "&"),
    ]),
  );
  fields.set("start", starts[starts.length - 1][1]);
  const moved = await open(server, action, { method: "POST", body: fields });
  assert.equal(moved.status, 200);
  await moved.body?.cancel();
  await receive(smtp, byKind("attendee-moved", JOAO.email));
}

/**
 * Fills the desk: two requests (one then confirmed, and moved by its attendee), an inquiry
 * answered and one open.
 */
async function fillTheDesk(): Promise<{ marta: string; joao: string; inquiry: string }> {
  await bookNextMonth(server, { ...MARTA, topic: TOPIC });
  await bookNextMonth(server, { ...JOAO, index: 1 });
  for (
    const [name, email] of [["Rita Lopes", "rita@example.pt"], ["Rui Costa", "rui@example.pt"]]
  ) {
    const sent = await open(server, "/api/v1/contact", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        Name: name,
        Email: email,
        Message: `Olá,\num site novo para ${name}.`,
      }),
    });
    assert.equal(sent.status, 200);
    await sent.body?.cancel();
  }
  await receive(smtp, byKind("attendee-pending", MARTA.email));
  cookie = await signInByMail(server, smtp, { member: MEMBER, baseUrl: origin });
  const bookings = await read("/en/team/bookings");
  const joao = findRow(bookings, "booking", JOAO.email);
  const token = await readFormToken();
  const confirmed = await post(server, "/en/team/booking", {
    form_token: token,
    id: joao,
    action: "confirm",
  }, { Cookie: cookie });
  assert.equal(confirmed.status, 303);
  assert.equal(confirmed.headers.get("Location"), `/en/team/bookings/${joao}?notice=confirmed`);
  await confirmed.body?.cancel();
  const inquiry = findRow(await read("/en/team/inquiries"), "inquiry", "rita@example.pt");
  const answered = await post(server, "/en/team/inquiry", {
    form_token: token,
    id: inquiry,
    state: "answered",
  }, { Cookie: cookie });
  assert.equal(answered.headers.get("Location"), `/en/team/inquiries/${inquiry}?notice=answered`);
  await answered.body?.cancel();
  await reschedule();
  return { marta: findRow(bookings, "booking", MARTA.email), joao, inquiry };
}

let ids: { marta: string; joao: string; inquiry: string } | undefined;

/** Every page of the desk in one language, by name. */
function listDeskPages(language: "pt" | "en"): Array<[string, string]> {
  assert.ok(ids, "the desk was filled");
  const [team, bookings, inquiries] = language === "en"
    ? ["/en/team", "/en/team/bookings", "/en/team/inquiries"]
    : ["/equipa", "/equipa/reservas", "/equipa/pedidos"];
  const sections = language === "en"
    ? ["personal-data", "calendar-feed", "passkeys", "audit"]
    : ["dados", "agenda", "chaves", "registo"];
  return [
    ["overview", team],
    ["inquiries", inquiries],
    ["inquiries-search", `${inquiries}?q=rita`],
    ["inquiry", `${inquiries}/${ids.inquiry}`],
    ["bookings", bookings],
    ["bookings-pending", `${bookings}?show=pending`],
    ["booking", `${bookings}/${ids.joao}`],
    ["booking-cancel", `${bookings}/${ids.joao}/${language === "en" ? "cancel" : "cancelar"}`],
    ["booking-missing", `${bookings}/${"0".repeat(26)}`],
    ...sections.map((section): [string, string] => [section, `${team}/${section}`]),
  ];
}

test(
  "the desk's sections are pages of their own under the desk's header, with no public navigation and no link to the booking page",
  { skip: CHROMIUM_SKIP },
  async () => {
    ids = await fillTheDesk();
    assert.ok(BOOKING_PAGES.length >= 2, "the booking page in both languages");
    for (const language of ["pt", "en"] as const) {
      for (const [name, path] of listDeskPages(language)) {
        const html = await read(path, name === "booking-missing" ? 404 : 200);
        assert.match(html, /<body class="layout-workspace">/, path);
        assert.match(html, /<header class="site-header workspace-header">/, path);
        assert.match(html, /<p class="desk-member">[^<]*ana@studio\.example/, path);
        assert.doesNotMatch(html, /class="cta"/, path);
        assert.doesNotMatch(html, /<footer/, path);
        for (const booking of BOOKING_PAGES) {
          assert.ok(!html.includes(`href="${booking}"`), `${path} links to ${booking}`);
        }
        const sections = [...html.matchAll(/<a href="([^"]+)" data-section="([\w-]+)"/g)];
        assert.deepEqual(sections.map((match) => match[2]), [
          "overview",
          "inquiries",
          "bookings",
          "personal-data",
          "calendar-feed",
          "passkeys",
          "audit",
        ]);
        assert.equal(new Set(sections.map((match) => match[1])).size, 7, "seven paths");
      }
    }
    // The counts beside the sections: one inquiry open, one request waiting.
    const overview = await read("/en/team");
    assert.match(overview, /data-section="inquiries">Inquiries <span class="count">1</);
    assert.match(overview, /data-section="bookings">Bookings <span class="count">1</);
    assert.match(overview, /<a href="\/en\/team" data-section="overview" aria-current="page">/);
    // The moved booking's page: where it was, the invite's SEQUENCE now 1, the e-mails about it.
    const moved = await read(`/en/team/bookings/${ids.joao}`);
    assert.match(moved.replace(/<[^>]+>/g, ""), /Moved by the person from\s*\d/);
    assert.match(moved, /UID booking-[^,]+, SEQUENCE 1</);
    assert.match(moved, /<p class="event-title">ana@studio\.example confirmed booking<\/p>/);
    assert.ok(
      (moved.match(/<p class="event-title">E-mail: /g) ?? []).length >= 4,
      "the request's, the confirmation's and the move's e-mails",
    );
    // Delivered e-mails keep their Message-ID's kind and SEQUENCE (the outbox records it).
    assert.match(moved, /<code>attendee-moved, SEQUENCE 1<\/code>/);
  },
);

/** Waits until the page at `path` shows `pattern` in its main (10 s at most). */
async function waitForText(page: Page, path: string, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await page.goto(origin + path);
    const text = await page.textContent("main") ?? "";
    if (pattern.test(text) || Date.now() > deadline) return text;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test(
  "without JavaScript, a booking made over the API is reached from the bookings list at its own page with its attendee, topic and history, and its decline takes a second step that can keep it",
  { skip: CHROMIUM_SKIP },
  async () => {
    assert.ok(ids, "the desk was filled");
    browser ??= await launchChromium();
    const context = await browser.newContext({ javaScriptEnabled: false });
    await context.addCookies([{
      name: cookie.split("=")[0],
      value: cookie.slice(cookie.indexOf("=") + 1),
      url: origin,
    }]);
    const page = await context.newPage();
    await page.goto(`${origin}/en/team/bookings`);
    await page.click(`#booking-${ids.marta} a.row-title`);
    assert.equal(page.url(), `${origin}/en/team/bookings/${ids.marta}`);
    assert.equal(await page.textContent("h1"), MARTA.name);
    const main = await waitForText(page, `/en/team/bookings/${ids.marta}`, /delivered/);
    assert.match(main, /marta@example\.com/);
    assert.match(main, new RegExp(TOPIC));
    assert.match(main, /awaiting confirmation/);
    assert.match(main, /History[\s\S]*Booked by the person[\s\S]*delivered/);
    assert.match(main, /attendee-pending, SEQUENCE 0|To marta@example\.com/);

    await page.click("a.button.danger >> text=Decline");
    assert.equal(page.url(), `${origin}/en/team/bookings/${ids.marta}/decline`);
    assert.equal(await page.textContent("h1"), `Decline the request from ${MARTA.name}?`);
    await page.click("text=No, keep the request");
    assert.equal(page.url(), `${origin}/en/team/bookings/${ids.marta}`);
    assert.match(await page.textContent(".record-head") ?? "", /awaiting confirmation/);

    await page.click("a.button.danger >> text=Decline");
    await page.fill("textarea[name=note]", "Fully booked that week.");
    await page.click("button.danger");
    await page.waitForURL(`${origin}/en/team/bookings/${ids.marta}?notice=declined`);
    assert.match(await page.textContent('[role="status"]') ?? "", /Request declined/);
    assert.match(await page.textContent(".record-head") ?? "", /declined/);
    assert.match(await page.textContent(".timeline") ?? "", /ana@studio\.example declined booking/);
    const mail = await receive(smtp, byKind("attendee-declined", MARTA.email));
    assert.match(mail[0].parsed.text ?? "", /Fully booked that week\./);
    // A decline cannot be asked for again: its step answers 409 and says so.
    const again = await page.goto(`${origin}/en/team/bookings/${ids.marta}/decline`);
    assert.equal(again?.status(), 409);
    assert.match(await page.textContent("main") ?? "", /no longer possible/);
    await context.close();
  },
);

/** axe-core's source, injected into each page (the page's CSP is bypassed for it). */
const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

const VIEWS = [
  { name: "390-light", viewport: { width: 390, height: 844 }, colorScheme: "light" },
  { name: "1440-light", viewport: { width: 1440, height: 900 }, colorScheme: "light" },
  { name: "390-dark", viewport: { width: 390, height: 844 }, colorScheme: "dark" },
  { name: "1440-dark", viewport: { width: 1440, height: 900 }, colorScheme: "dark" },
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
    `axe-core finds no violation on any page of the desk, in both languages, at ${view.name}, and none is wider than the screen`,
    { skip: CHROMIUM_SKIP },
    async () => {
      assert.ok(ids && cookie, "the desk was filled and signed in");
      browser ??= await launchChromium();
      const context: BrowserContext = await browser.newContext({
        viewport: view.viewport,
        colorScheme: view.colorScheme,
        bypassCSP: true,
        reducedMotion: "reduce",
      });
      await context.addCookies([{
        name: cookie.split("=")[0],
        value: cookie.slice(cookie.indexOf("=") + 1),
        url: origin,
      }]);
      const found: string[] = [];
      try {
        const page = await context.newPage();
        mkdirSync(ARTIFACTS, { recursive: true });
        for (const language of ["en", "pt"] as const) {
          for (const [name, path] of listDeskPages(language)) {
            await page.goto(origin + path);
            found.push(
              ...(await audit(page, view.viewport.width)).map((item) => `${path}: ${item}`),
            );
            await page.screenshot({
              path: join(ARTIFACTS, `desk-${name}-${language}-${view.name}.png`),
              fullPage: true,
            });
          }
        }
      } finally {
        await context.close();
      }
      assert.deepEqual(found, [], found.join("\n"));
    },
  );
}
