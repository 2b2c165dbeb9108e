/**
 * The site in a real browser (Debian's Chromium driven by playwright-core) against the real
 * server and a loopback SMTP server: the contact form without JavaScript in both languages, and
 * the booking widget with JavaScript. Screenshots go to test-artifacts/ for people to look at.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { findFreePort, startServer } from "./_server.ts";
import { startSmtpServer } from "../_smtp.ts";
import { createHandler } from "../../mod.ts";
import { createMemoryStore } from "../../testing.ts";
import type { Handler } from "../../lib/http/create_pipeline.ts";
import type { Store } from "../../lib/store/store.ts";
import { CalendarUnavailableError } from "../../lib/availability/busy_calendar.ts";
import { createRecordingLogger } from "../_support.ts";
import {
  CORPUS,
  findForeignZone,
  headingOf,
  leadOf,
  MEETING_MINUTES,
  nextMonth,
  pageOf,
  STUDIO_ZONE,
  thanksPageOf,
  toLiteralPattern,
  toMessagePattern,
} from "./_studio.ts";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));
const INBOX = "inbox@studio.example";

const chromiumMissing = !existsSync(CHROMIUM);
// CI installs Chromium (.ci/run): there the browser tests must run.
assert.ok(!(chromiumMissing && process.env.CI), `${CHROMIUM} is missing: apt-get install chromium`);
/** Every test here skips where Chromium is not installed (never under CI). */
const SKIP = chromiumMissing ? `${CHROMIUM} is not installed` : false;

const folder = mkdtempSync(join(tmpdir(), "studio-browser-"));
const smtp = await startSmtpServer();
const port = await findFreePort();
const origin = `http://127.0.0.1:${port}`;
const server = await startServer({
  PORT: String(port),
  STUDIO_BASE_URL: origin,
  STUDIO_KV_PATH: join(folder, "browser.kv"),
  STUDIO_SMTP_URL: smtp.url,
  STUDIO_MAIL_FROM: "Studio <site@studio.example>",
  STUDIO_INBOX: INBOX,
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

async function openBrowser(): Promise<Browser> {
  browser ??= await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  return browser;
}

/**
 * Opens a booking page and follows "next month" until a month has free times (three at most).
 * With `zone`, first waits for the page to show its times in that zone (the booking script reads
 * the browser's zone and loads the picker again in it).
 */
async function openMonthWithSlots(page: Page, path: string, zone?: string): Promise<void> {
  await page.goto(origin + path);
  if (zone) await page.locator("#booking .zone-shown").filter({ hasText: `(${zone})` }).waitFor();
  const slots = page.locator('.days input[name="start"]');
  for (let month = 0; month < 3 && !(await slots.count()); month++) {
    const shown = await page.textContent(".month-name") ?? "";
    await page.click('.month-bar a[rel="next"]');
    // With the script the month is read in place; without it the page is loaded again.
    await page.locator(".month-name").filter({ hasNotText: shown }).waitFor();
  }
}

/** The free times of the day the picker shows (the other days' are in the page, hidden). */
function shownTimes(page: Page) {
  return page.locator('.day-times:not([hidden]) input[name="start"]');
}

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, name), fullPage: true });
}

/** The studio's booking pages: Portuguese, English. */
const BOOK_PT = pageOf("booking", "pt").path;
const BOOK_EN = pageOf("booking", "en").path;
/** The studio's contact pages: Portuguese, English. */
const CONTACT_PT = pageOf("contact", "pt").path;
const CONTACT_EN = pageOf("contact", "en").path;

/** A kind of work the contact form of `language` offers: its `index`-th, counted from the end. */
function pickCategory(language: "pt" | "en", index: number): string {
  const { categories } = CORPUS.languages[language].form;
  assert.ok(categories.length > 0, `the ${language} form offers kinds of work`);
  return categories[Math.max(0, categories.length - 1 - index)].value;
}

/** The booking widget's English messages. */
const BOOKING_EN = CORPUS.languages.en.booking;
/**
 * The heading of the booking's page (`/booking/view`, where a booking made leads) in English,
 * accepted or pending (routes/booking_actions.ts).
 */
const BOOKED_EN = /^(?:Your conversation is booked|Your request is in)$/;
/**
 * The booking's page, where the booking form's `303` leads once its signed link is exchanged for
 * its cookie: its id, and no signature.
 */
const BOOKING_VIEW = new RegExp(`^${toLiteralPattern(origin)}/booking/view\\?id=[0-9A-Z]{26}$`);
/** The visitor's zone of the JavaScript booking test: another offset than the studio's. */
const VISITOR_ZONE = findForeignZone(Temporal.Now.instant());

const CONTACT_CASES = [
  {
    language: "pt",
    // The first page of the navigation, reached from a newsletter.
    landing: `${pageOf(CORPUS.languages.pt.nav[0], "pt").path}?utm_source=newsletter` +
      "&utm_medium=email&gclid=EAIaIQobChMI-browser",
    contact: CONTACT_PT,
    thanks: thanksPageOf("pt").path,
    first: "Inês",
    last: "Marques Gonçalves",
    email: "ines.goncalves@example.org",
    category: pickCategory("pt", 2),
    message: "Somos uma cooperativa de Mértola e precisamos de uma marca nova até março.",
    heading: headingOf(thanksPageOf("pt")),
  },
  {
    language: "en",
    landing: `${pageOf("home", "en").path}?utm_source=linkedin&utm_campaign=autumn`,
    contact: CONTACT_EN,
    thanks: thanksPageOf("en").path,
    first: "Oliver",
    last: "Brown",
    email: "oliver@example.org",
    category: pickCategory("en", 1),
    message: "We are a small team in Bristol looking for help with a first product release.",
    heading: headingOf(thanksPageOf("en")),
  },
] as const;

for (const item of CONTACT_CASES) {
  test(
    `POST ${item.contact} from a browser without JavaScript reaches the inbox and shows the thank-you page`,
    { skip: SKIP },
    async () => {
      const context = await (await openBrowser()).newContext({
        javaScriptEnabled: false,
        viewport: { width: 1024, height: 800 },
      });
      const page = await context.newPage();
      try {
        const before = smtp.messages.length;
        const landing = await page.goto(origin + item.landing);
        assert.equal(landing?.status(), 200);
        const contact = await page.goto(origin + item.contact);
        assert.equal(contact?.status(), 200);
        assert.equal(
          await page.getAttribute("html", "lang"),
          CORPUS.languages[item.language].tag,
        );
        const names = page.locator('input[name="Name"]');
        assert.equal(await names.count(), 2, "two Name inputs");
        await page.fill("#f-first", item.first);
        await page.fill("#f-last", item.last);
        await page.fill("#f-email", item.email);
        await page.selectOption("#f-category", item.category);
        await page.fill("#f-message", item.message);
        await screenshot(page, `contact-${item.language}.png`);
        await Promise.all([
          page.waitForURL(origin + item.thanks),
          page.click('form.contact-form button[type="submit"]'),
        ]);
        assert.equal(await page.textContent("h1"), item.heading);
        await screenshot(page, `contact-${item.language}-thanks.png`);

        const [mail] = (await smtp.waitFor(before + 1)).slice(before);
        assert.deepEqual(mail.envelopeTo, [INBOX]);
        assert.equal(
          mail.parsed.subject,
          `Novo contacto: ${item.first} ${item.last} · ${item.category}`,
        );
        assert.equal(mail.parsed.replyTo?.[0]?.address, item.email);
        const text = mail.parsed.text ?? "";
        assert.ok(text.includes(item.message));
        const source = new URL(origin + item.landing).searchParams.get("utm_source");
        assert.ok(
          text.includes(`utm_source: ${source}`),
          "first-touch attribution reached the inbox",
        );
      } finally {
        await context.close();
      }
    },
  );
}

test(
  `GET ${CONTACT_PT} in a browser without JavaScript shows the form again with messages when a field is wrong`,
  { skip: SKIP },
  async () => {
    const context = await (await openBrowser()).newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await page.goto(origin + CONTACT_PT);
      await page.fill("#f-first", "Rui");
      await page.fill("#f-email", "rui.example.pt");
      // Bypass the browser's own checks so the server's answer is what is shown.
      await page.$eval("form.contact-form", (form) => form.setAttribute("novalidate", ""));
      await page.click('form.contact-form button[type="submit"]');
      assert.equal(
        await page.textContent("#form-errors h2"),
        CORPUS.languages.pt.form.errorSummary,
      );
      assert.equal(await page.inputValue("#f-first"), "Rui");
      assert.equal(await page.inputValue("#f-email"), "rui.example.pt");
      assert.equal(await page.getAttribute("#f-email", "aria-invalid"), "true");
      assert.equal(await page.getAttribute("#f-message", "aria-invalid"), "true");
      assert.equal(
        await page.textContent("#f-email-error"),
        CORPUS.languages.pt.form.problems.format,
      );
      await screenshot(page, "contact-pt-error.png");
    } finally {
      await context.close();
    }
  },
);

test(
  `POST ${BOOK_EN} from a browser without JavaScript books a time, and a 409 shows the other times`,
  { skip: SKIP },
  async () => {
    const context = await (await openBrowser()).newContext({
      javaScriptEnabled: false,
      viewport: { width: 390, height: 844 },
    });
    const page = await context.newPage();
    try {
      const before = smtp.messages.length;
      await openMonthWithSlots(page, BOOK_EN);
      // The month's first two times: the first is the shown day's; once it is taken, the second
      // is the shown day's too (the same day, or the next one with times).
      const slots = page.locator('.days input[name="start"]');
      assert.ok(await slots.count() >= 2, "the server lists free times without JavaScript");
      const [taken, free] = [await slots.nth(0).inputValue(), await slots.nth(1).inputValue()];
      assert.equal(await shownTimes(page).first().inputValue(), taken, "the first day is shown");
      const other = await fetch(`${origin}/api/v1/booking`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          start: taken,
          name: "Someone Else",
          email: "someone@example.org",
          topic: "A conversation booked a moment earlier",
          locale: "en",
        }),
      });
      assert.equal(other.status, 201, await other.text());

      // Keyboard only: the time, then the details, then Enter on the button.
      await page.focus(`.days input[value="${taken}"]`);
      await page.keyboard.press("Space");
      await page.fill("#b-name", "Rui Alves");
      await page.fill("#b-email", "rui@example.org");
      await page.fill("#b-topic", "A brand for our bakery in Setúbal");
      await page.focus('#booking button[type="submit"]');
      const conflict = page.waitForResponse((response) => response.request().method() === "POST");
      await page.keyboard.press("Enter");
      assert.equal((await conflict).status(), 409);
      await page.waitForLoadState();
      assert.match(
        await page.textContent(".booking-result") ?? "",
        new RegExp(toLiteralPattern(leadOf(BOOKING_EN.conflict))),
      );
      assert.equal(await page.locator(`.days input[value="${taken}"]`).count(), 0, "refreshed");
      assert.equal(await page.inputValue("#b-name"), "Rui Alves", "the details are kept");
      await screenshot(page, "booking-en-nojs-conflict.png");

      await page.focus(`.days input[value="${free}"]`);
      await page.keyboard.press("Space");
      assert.equal(await page.isChecked(`.days input[value="${free}"]`), true);
      await page.focus('#booking button[type="submit"]');
      await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
      // The 303 leads to the booking's page.
      assert.match(page.url(), BOOKING_VIEW);
      assert.match(await page.textContent("main h1") ?? "", BOOKED_EN);
      assert.match(await page.textContent("main") ?? "", /rui@example\.org/);
      await screenshot(page, "booking-en-nojs.png");
      const deadline = Date.now() + 10_000;
      const invited = () =>
        smtp.messages.slice(before).some((mail) => mail.envelopeTo.includes("rui@example.org"));
      while (!invited() && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(invited(), "the attendee was invited");
    } finally {
      await context.close();
    }
  },
);

test(
  `GET ${BOOK_EN} lists the month's free times and books one, explaining a 409 in plain words`,
  { skip: SKIP },
  async () => {
    const context = await (await openBrowser()).newContext({
      viewport: { width: 1024, height: 900 },
      timezoneId: VISITOR_ZONE,
    });
    const page = await context.newPage();
    try {
      const before = smtp.messages.length;
      // The script reads the browser's zone (Intl) and shows the times in it.
      await openMonthWithSlots(page, BOOK_EN, VISITOR_ZONE);
      assert.equal(new URL(page.url()).searchParams.get("tz"), VISITOR_ZONE, "the zone's link");
      // The month's first two times: the first is the shown day's; once it is taken, the second
      // is the shown day's too (the same day, or the next one with times).
      const slots = page.locator('.days input[name="start"]');
      assert.ok(await slots.count() >= 2, "free times are listed");
      const [taken, free] = [await slots.nth(0).inputValue(), await slots.nth(1).inputValue()];
      assert.equal(await shownTimes(page).first().inputValue(), taken, "the first day is shown");
      const firstTime = await page.locator(".day-times:not([hidden]) .times span").first()
        .textContent();
      const inZone = (timeZone: string, start = taken, minutes = 0) =>
        new Intl.DateTimeFormat("en", {
          timeZone,
          hour: "2-digit",
          minute: "2-digit",
          hourCycle: "h23",
        }).format(new Date(Date.parse(start) + minutes * 60_000));
      assert.notEqual(inZone(STUDIO_ZONE), inZone(VISITOR_ZONE), "the zones tell times apart");
      assert.equal(firstTime, inZone(VISITOR_ZONE), "times are shown in the visitor's zone");

      // Someone else takes the first time meanwhile.
      const other = await fetch(`${origin}/api/v1/booking`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          start: taken,
          name: "Another Person",
          email: "another@example.org",
          topic: "A conversation booked a moment earlier",
          locale: "en",
        }),
      });
      assert.equal(other.status, 201, await other.text());

      await page.check(`.days input[value="${taken}"]`, { force: true });
      await page.fill("#b-name", "Ana Sousa");
      await page.fill("#b-email", "ana@example.org");
      await page.fill("#b-company", "Clínica Jardim");
      await page.fill("#b-topic", "A new website for our physiotherapy clinic");
      await page.click('#booking button[type="submit"]');
      await page.locator(".booking-result").filter({ hasText: leadOf(BOOKING_EN.conflict) })
        .waitFor();
      await screenshot(page, "booking-en-conflict.png");
      // The times are read again after the message is shown: wait for the taken one to go.
      await page.locator(`.days input[value="${taken}"]`).waitFor({ state: "detached" });
      assert.equal(await page.locator(`.days input[value="${taken}"]`).count(), 0, "refreshed");

      await page.check(`.day-times:not([hidden]) input[value="${free}"]`, { force: true });
      // The script posts the form; the 303 leads to the booking's page, shown in place.
      await Promise.all([
        page.waitForURL(BOOKING_VIEW),
        page.click('#booking button[type="submit"]'),
      ]);
      const heading = page.locator("main h1");
      await heading.filter({ hasText: BOOKED_EN }).waitFor();
      assert.match(await heading.textContent() ?? "", BOOKED_EN);
      const booked = await page.textContent("main") ?? "";
      assert.match(booked, /ana@example\.org/);
      // The time in the visitor's zone, which the form sent, and in the studio's.
      for (const zone of [VISITOR_ZONE, STUDIO_ZONE]) {
        const span = `${inZone(zone, free)}–${inZone(zone, free, MEETING_MINUTES)}`;
        assert.ok(booked.includes(span), `${zone}: ${span} in ${booked}`);
      }
      await screenshot(page, "booking-en.png");
      const messages = await smtp.waitFor(before + 2);
      assert.ok(
        messages.slice(before).some((mail) => mail.envelopeTo.includes("ana@example.org")),
        "the attendee was invited",
      );
    } finally {
      await context.close();
    }
  },
);

/** A store whose commits fail, as a full disk or a lost database makes them. */
function createFailingStore(): Store {
  const inner = createMemoryStore();
  return {
    get: (key) => inner.get(key),
    set: (key, value, options) => inner.set(key, value, options),
    delete: (key) => inner.delete(key),
    list: (selector, options) => inner.list(selector, options),
    close: () => inner.close(),
    atomic: () => {
      const operation = inner.atomic();
      operation.commit = () => Promise.reject(new Error("disk full"));
      return operation;
    },
  };
}

/** Why the booking service answers 503: its calendar cannot be read, or a commit failed. */
type Failure = "calendar" | "commit";

/**
 * The service of the test's server (the same studio, schedule and origin) in-process, failing as
 * `failure` says: its calendar cannot be read (503, nothing booked), or its store's commit fails
 * (503, the outcome uncertain). It answers a booking form's POST with the 503 page the server
 * would give, which cannot be provoked on demand on the running server.
 */
function createFailingService(failure: Failure): { handler: Handler; close(): void } {
  const store = failure === "commit" ? createFailingStore() : createMemoryStore();
  const handler = createHandler({
    baseUrl: origin,
    store,
    secret: "browser-test-secret-of-at-least-32-characters",
    logger: createRecordingLogger(),
    rateLimits: { write: 1000, booking: 1000 },
    ...(failure === "calendar"
      ? {
        busyCalendar: {
          read: () => Promise.reject(new CalendarUnavailableError("The feed answered 500")),
        },
      }
      : {}),
  });
  return { handler, close: () => store.close() };
}

/**
 * Books the first free time of `path` in a browser whose booking POST (the script posts the
 * page's own form to the page's path) a failing service answers 503 ({@linkcode
 * createFailingService}), with `headers` added to its answer, then hands the page to `check`.
 * Asserts that the script posted once, and the service's answer was a 503.
 */
async function bookAgainst503(
  path: string,
  details: { topic: string; failure: Failure; headers?: Record<string, string> },
  check: (page: Page, sent: { idempotency: string }) => Promise<void>,
): Promise<void> {
  const context = await (await openBrowser()).newContext({
    viewport: { width: 1024, height: 900 },
    // The studio's zone: the picker is not loaded again in another.
    timezoneId: STUDIO_ZONE,
  });
  const page = await context.newPage();
  const service = createFailingService(details.failure);
  const sent: URLSearchParams[] = [];
  const statuses: number[] = [];
  const kinds: string[] = [];
  await page.route((url) => url.pathname === path, async (route) => {
    const request = route.request();
    if (request.method() !== "POST") return route.fallback();
    const headers = await request.allHeaders();
    const body = request.postData() ?? "";
    sent.push(new URLSearchParams(body));
    kinds.push(request.resourceType());
    const answer = await service.handler(
      new Request(request.url(), {
        method: "POST",
        body,
        headers: {
          "Content-Type": headers["content-type"] ?? "",
          Accept: headers["accept"] ?? "*/*",
          ...(headers["origin"] ? { Origin: headers["origin"] } : {}),
        },
      }),
    );
    statuses.push(answer.status);
    return route.fulfill({
      status: answer.status,
      headers: { ...Object.fromEntries(answer.headers), ...details.headers },
      body: await answer.text(),
    });
  });
  try {
    await openMonthWithSlots(page, path);
    const key = await page.inputValue('#booking input[name="idempotency"]');
    await shownTimes(page).first().check({ force: true });
    await page.fill("#b-name", "Joana Pires");
    await page.fill("#b-email", "joana@example.pt");
    await page.fill("#b-topic", details.topic);
    // A mark on this document: it stays if the script shows the answer in place.
    await page.locator("html").evaluate((html) => html.setAttribute("data-before", "submit"));
    await page.click('#booking button[type="submit"]');
    await check(page, { idempotency: key });
    assert.equal(sent.length, 1, "posted once");
    assert.deepEqual(kinds, ["fetch"], "posted by the script");
    assert.equal(sent[0].get("idempotency"), key, "with the form's key");
    assert.deepEqual(statuses, [503]);
    assert.equal(
      await page.getAttribute("html", "data-before"),
      "submit",
      "the answer is shown in the same document",
    );
    assert.equal(await page.locator("#booking .booking-result:focus").count(), 1, "focused");
  } finally {
    await context.close();
    service.close();
  }
}

test(
  `GET ${BOOK_EN} tells a 503 that booked nothing from an uncertain one, and keeps the details for a retry`,
  { skip: SKIP },
  async () => {
    // The studio's calendar could not be read: the service booked nothing.
    await bookAgainst503(
      BOOK_EN,
      { topic: "An online shop for our bookshop", failure: "calendar" },
      async (page, sent) => {
        const result = page.locator(".booking-result");
        await result.filter({ hasText: leadOf(BOOKING_EN.unavailable) }).waitFor();
        assert.ok(
          !(await result.textContent() ?? "").includes(leadOf(BOOKING_EN.uncertain)),
          "not told that the outcome is uncertain",
        );
        assert.equal(await page.isDisabled('#booking button[type="submit"]'), false, "retry");
        assert.equal(await page.inputValue("#b-name"), "Joana Pires");
        assert.equal(await page.inputValue("#b-topic"), "An online shop for our bookshop");
        assert.equal(
          await page.inputValue('#booking input[name="idempotency"]'),
          sent.idempotency,
          "a retry sends the same key",
        );
      },
    );
  },
);

test(
  `GET ${BOOK_PT} explains a 503 in plain words and does not invite a retry`,
  { skip: SKIP },
  async () => {
    // The store's commit fails after the request was sent: the outcome is uncertain. A
    // `Retry-After` (from a proxy, say) does not make a retry safe: only the service's hint does.
    const topic = "Uma loja online para a nossa livraria";
    const headers = { "Retry-After": "30" };
    await bookAgainst503(BOOK_PT, { topic, failure: "commit", headers }, async (page, sent) => {
      const result = page.locator(".booking-result");
      const uncertain = CORPUS.languages.pt.booking.uncertain;
      await result.filter({ hasText: leadOf(uncertain) }).waitFor();
      const text = await result.textContent() ?? "";
      assert.match(text, toMessagePattern(uncertain, { attendee: "joana@example.pt" }));
      assert.match(text, /joana@example\.pt/);
      const unavailable = CORPUS.languages.pt.booking.unavailable;
      assert.ok(!text.includes(leadOf(unavailable)), "not told that nothing was booked");
      // The form shown again keeps its key: sent again, it cannot book a second time.
      assert.equal(
        await page.inputValue('#booking input[name="idempotency"]'),
        sent.idempotency,
        "no second booking",
      );
      assert.equal(await page.inputValue("#b-email"), "joana@example.pt");
      await screenshot(page, "booking-pt-uncertain.png");
    });
  },
);

test(
  `GET ${BOOK_PT} shows the booking form in Portuguese with the studio's times`,
  { skip: SKIP },
  async () => {
    const context = await (await openBrowser()).newContext({
      viewport: { width: 390, height: 844 },
      // A visitor in the studio's zone: the times stay in it.
      timezoneId: STUDIO_ZONE,
    });
    const page = await context.newPage();
    try {
      await openMonthWithSlots(page, BOOK_PT);
      assert.equal(await page.isVisible("#booking"), true, "the form is shown");
      assert.match(await page.textContent(".month-name") ?? "", /\d{4}/);
      assert.equal(
        await page.getAttribute("#booking", "aria-label"),
        CORPUS.languages.pt.booking.chooseTime,
      );
      assert.ok(
        (await page.textContent("#booking .zone-shown") ?? "").includes(`(${STUDIO_ZONE})`),
      );
      const days = page.locator("fieldset.slots > legend");
      assert.ok(await shownTimes(page).count() > 0, "a month with free times");
      // The shown day, written in Portuguese in the studio's zone: only the first letter is raised.
      const first = await shownTimes(page).first().inputValue();
      const day = new Intl.DateTimeFormat(CORPUS.languages.pt.tag, {
        timeZone: STUDIO_ZONE,
        weekday: "long",
        day: "numeric",
        month: "long",
      }).format(new Date(first));
      const legend = await days.first().textContent() ?? "";
      assert.equal(legend, day.charAt(0).toLocaleUpperCase("pt") + day.slice(1));
      assert.match(legend, /^\p{Lu}\P{Lu}+$/u);
      await screenshot(page, "booking-pt-mobile.png");
    } finally {
      await context.close();
    }
  },
);

/** axe-core's source, injected into each page (the page's CSP is bypassed for it). */
const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

/** Every page of the corpus, both languages, and a 404 page. */
const AUDITED_PATHS = [...CORPUS.pages.map((page) => page.path), "/en/no-such-page"];

/** Runs axe-core on the page as it is: its violations, each with the elements concerned. */
async function runAxe(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  return await page.evaluate(async () => {
    // @ts-ignore: axe is the script just injected
    const result = await globalThis.axe.run(document, { resultTypes: ["violations"] });
    return (result.violations as Array<{ id: string; nodes: Array<{ target: string[] }> }>)
      .map((violation) =>
        `${violation.id} (${violation.nodes.map((node) => node.target.join(" ")).join(", ")})`
      );
  });
}

const AXE_VIEWS = [
  { name: "390 px light", viewport: { width: 390, height: 844 }, colorScheme: "light" },
  { name: "1440 px light", viewport: { width: 1440, height: 900 }, colorScheme: "light" },
  { name: "390 px dark", viewport: { width: 390, height: 844 }, colorScheme: "dark" },
  { name: "1440 px dark", viewport: { width: 1440, height: 900 }, colorScheme: "dark" },
] as const;

for (const view of AXE_VIEWS) {
  test(
    `axe-core finds no violation on any page at ${view.name}`,
    { skip: SKIP },
    async () => {
      const context = await (await openBrowser()).newContext({
        viewport: view.viewport,
        colorScheme: view.colorScheme,
        bypassCSP: true,
        reducedMotion: "reduce",
      });
      const page = await context.newPage();
      const found: string[] = [];
      try {
        for (const path of AUDITED_PATHS) {
          await page.goto(origin + path, { waitUntil: "load" });
          for (const violation of await runAxe(page)) found.push(`${path}: ${violation}`);
        }
      } finally {
        await context.close();
      }
      assert.deepEqual(found, [], found.join("\n"));
    },
  );
}

test(
  "without the booking script, a refused form (a foreign Origin, 403) is its page again with what was typed, and axe-core finds no violation on it, light and dark",
  { skip: SKIP },
  async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      const context = await (await openBrowser()).newContext({
        viewport: colorScheme === "light"
          ? { width: 390, height: 844 }
          : { width: 1440, height: 900 },
        colorScheme,
        bypassCSP: true,
      });
      const page = await context.newPage();
      // Without the booking script, as a browser that did not load it: the form posts itself
      // (the page keeps JavaScript for axe-core alone).
      await page.route("**/assets/booking.js*", (route) => route.abort());
      // The page is opened at another origin than the site's (localhost, not 127.0.0.1) and its
      // form posts to the site: the server refuses that Origin.
      const foreign = origin.replace("127.0.0.1", "localhost");
      const postToSite = (selector: string) =>
        page.$eval(
          selector,
          (form, action) => form.setAttribute("action", action),
          origin + new URL(page.url()).pathname + new URL(page.url()).search,
        );
      const found: string[] = [];
      try {
        for (const path of [CONTACT_PT, CONTACT_EN]) {
          await page.goto(foreign + path);
          await postToSite("form.contact-form");
          await page.fill("#f-first", 'Zé "Ana" <b>');
          await page.fill("#f-email", "ze@example.pt");
          await page.fill("#f-message", "Uma marca <nova> & já, para a padaria.");
          const [answer] = await Promise.all([
            page.waitForResponse((response) => response.request().method() === "POST"),
            page.click('form.contact-form button[type="submit"]'),
          ]);
          assert.equal(answer.status(), 403, path);
          await page.waitForLoadState();
          assert.equal(await page.inputValue("#f-first"), 'Zé "Ana" <b>', path);
          assert.equal(
            await page.inputValue("#f-message"),
            "Uma marca <nova> & já, para a padaria.",
          );
          assert.ok(await page.isVisible("#form-errors h2"), path);
          found.push(...(await runAxe(page)).map((violation) => `${path}: ${violation}`));
        }
        for (const path of [BOOK_PT, BOOK_EN]) {
          const month = nextMonth();
          await page.goto(`${foreign}${path}?month=${month}`);
          await postToSite("#booking form.booking-form");
          const start = await shownTimes(page).first().inputValue();
          await page.check(`.days input[value="${start}"]`);
          await page.fill("#b-name", 'Zé "Ana" <b>');
          await page.fill("#b-email", "ze@example.pt");
          await page.fill("#b-topic", "Uma marca <nova> & já, para a padaria.");
          const [answer] = await Promise.all([
            page.waitForResponse((response) => response.request().method() === "POST"),
            page.click('#booking button[type="submit"]'),
          ]);
          assert.equal(answer.status(), 403, path);
          await page.waitForLoadState();
          assert.equal(await page.inputValue("#b-name"), 'Zé "Ana" <b>', path);
          assert.equal(await page.isChecked(`.days input[value="${start}"]`), true, path);
          assert.ok(await page.isVisible(".booking-result.notice"), path);
          found.push(...(await runAxe(page)).map((violation) => `${path}: ${violation}`));
          await screenshot(page, `booking${path.replaceAll("/", "-")}-${colorScheme}-refused.png`);
        }
      } finally {
        await context.close();
      }
      assert.deepEqual(found, [], found.join("\n"));
    }
  },
);

test(
  "on a 390 px phone the header takes at most 120 px on every page, light and dark, without JavaScript: the call to action beside the studio's name, the links in one row of their own, none off-screen",
  { skip: SKIP },
  async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      const context = await (await openBrowser()).newContext({
        viewport: { width: 390, height: 844 },
        colorScheme,
        javaScriptEnabled: false,
      });
      const page = await context.newPage();
      try {
        for (const path of AUDITED_PATHS) {
          await page.goto(origin + path);
          const header = await page.locator(".site-header").boundingBox();
          assert.ok(header, path);
          assert.ok(header.height <= 120, `${path} (${colorScheme}): ${header.height} px`);
          const row = await page.locator(".site-header nav").evaluate((nav) => {
            const boxes = [...nav.querySelectorAll("li")].map((item) =>
              item.getBoundingClientRect()
            );
            return {
              scrolls: nav.scrollWidth > nav.clientWidth,
              // One row: every item starts above the bottom of every other.
              oneRow: Math.max(...boxes.map((box) => box.top)) <
                Math.min(...boxes.map((box) => box.bottom)),
              right: Math.max(...boxes.map((box) => box.right)),
              top: Math.min(...boxes.map((box) => box.top)),
            };
          });
          assert.ok(row.oneRow, `${path}: the links keep to one row`);
          assert.ok(!row.scrolls && row.right <= 390, `${path}: no link is off-screen`);
          // The call to action (the language's booking page) stands beside the studio's name,
          // above the row of links.
          const language = CORPUS.pages.find((item) => item.path === path)?.language ?? "en";
          const cta = page.locator(".site-header a.cta");
          assert.equal(await cta.count(), 1, path);
          assert.equal(
            await cta.getAttribute("href"),
            pageOf(CORPUS.languages[language].callToAction, language).path,
            path,
          );
          const [ctaBox, brand] = [
            await cta.boundingBox(),
            await page.locator(".brand").boundingBox(),
          ];
          assert.ok(ctaBox && brand, path);
          assert.ok(ctaBox.y < brand.y + brand.height && brand.y < ctaBox.y + ctaBox.height, path);
          assert.ok(ctaBox.x + ctaBox.width <= 390, `${path}: the call to action is on screen`);
          assert.ok(ctaBox.y + ctaBox.height <= row.top, `${path}: above the links`);
        }
        await screenshot(page, `header-mobile-${colorScheme}.png`);
      } finally {
        await context.close();
      }
    }
  },
);

test(
  "at 1440 px the booking pages show the free times with the details beside them, light and dark, without JavaScript",
  { skip: SKIP },
  async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      const context = await (await openBrowser()).newContext({
        viewport: { width: 1440, height: 900 },
        colorScheme,
        javaScriptEnabled: false,
      });
      const page = await context.newPage();
      try {
        for (const path of [BOOK_EN, BOOK_PT]) {
          await page.goto(origin + path);
          const times = await page.locator(".booking .slots").boundingBox();
          const details = await page.locator(".booking .booking-details").boundingBox();
          assert.ok(times && details, path);
          assert.ok(details.x >= times.x + times.width, `${path}: the details right of the times`);
          assert.ok(details.y < times.y + times.height, `${path}: side by side, not below`);
          assert.ok(details.x + details.width > 1440 * 0.8, `${path}: no empty right half`);
        }
        await screenshot(page, `booking-desktop-${colorScheme}.png`);
      } finally {
        await context.close();
      }
    }
  },
);
