import { test } from "node:test";
import assert from "node:assert/strict";
import {
  createSampleHandler,
  SAMPLE_CORPUS,
  SOL_STUDIO,
  toStudioOptions,
} from "../_fixture_studio.ts";
import { createHandler } from "../../mod.ts";
import { createFixedClock, createMemoryMailer, createMemoryStore } from "../../testing.ts";
import { createRecordingLogger } from "../_support.ts";
import { startIcsFeedServer } from "../_ics_feed.ts";
import { openSignedLink } from "../_booking.ts";
import { escapeHtml } from "../../lib/mail/mail.ts";
import { createIcsCalendar } from "../../lib/availability/busy_calendar.ts";
import type { Store } from "../../lib/store/store.ts";

const BASE = "http://localhost:8000";

/** Starts that are not an instant, as a forged or broken post may send them. */
const NOT_INSTANTS = [
  "x",
  "NaN",
  "1e21",
  "2026-W49-3T09:30Z",
  "２０２６-１２-０２T１０:３０:００Z",
  "2026-12-02T10:30:00",
];

test("POST /en/book and /marcar-conversa answer a start that is not an instant with the form again (400 HTML), not a 500", async () => {
  const store = createMemoryStore();
  const logger = createRecordingLogger();
  const handler = createSampleHandler({
    baseUrl: BASE,
    store,
    mailer: createMemoryMailer(),
    logger,
    clock: createFixedClock("2026-11-26T10:00:00Z"),
    rateLimits: { write: 1000, booking: 1000 },
  });
  try {
    for (const path of ["/en/book", "/marcar-conversa"]) {
      for (const start of NOT_INSTANTS) {
        const body = new URLSearchParams({
          start,
          name: "Sam Taylor",
          email: "sam@example.com",
          topic: "A new website",
        });
        const response = await handler(
          new Request(BASE + path, { method: "POST", body, headers: { Origin: BASE } }),
        );
        const html = await response.text();
        assert.equal(response.status, 400, `${path} start=${start}`);
        assert.match(response.headers.get("Content-Type") ?? "", /^text\/html/, start);
        assert.match(html, /<form/, `${path} start=${start}: the form again`);
      }
    }
    assert.deepEqual(logger.records.filter((record) => record.level === "error"), []);
  } finally {
    store.close();
  }
});

test("POST /en/book twice with the same form (a double click, a resend) books once and sends both to the booking's page (303)", async () => {
  const store = createMemoryStore();
  const mailer = createMemoryMailer();
  const handler = createSampleHandler({
    baseUrl: BASE,
    store,
    mailer,
    logger: createRecordingLogger(),
    clock: createFixedClock("2026-11-26T10:00:00Z"),
    rateLimits: { write: 1000, booking: 1000 },
  });
  try {
    const page = await (await handler(new Request(`${BASE}/en/book?month=2026-12`))).text();
    const start = /name="start" value="([^"]+)"/.exec(page)?.[1];
    const key = /name="idempotency" value="([^"]+)"/.exec(page)?.[1];
    assert.ok(start, "the page lists a free time");
    assert.ok(key, "the form carries its idempotency key");
    const again = await (await handler(new Request(`${BASE}/en/book?month=2026-12`))).text();
    assert.notEqual(
      /name="idempotency" value="([^"]+)"/.exec(again)?.[1],
      key,
      "one per rendering",
    );
    const post = () =>
      handler(
        new Request(`${BASE}/en/book`, {
          method: "POST",
          headers: { Origin: BASE },
          body: new URLSearchParams({
            start,
            name: "Sam Taylor",
            email: "sam@example.com",
            topic: "A new website for our bakery",
            idempotency: key,
          }),
        }),
      );
    const first = await post();
    await first.body?.cancel();
    const second = await post();
    await second.body?.cancel();
    assert.equal(first.status, 303);
    assert.equal(second.status, 303, "the second post is answered as the first, not 409");
    const location = first.headers.get("Location") ?? "";
    assert.match(location, /^\/booking\/view\?id=[0-9A-Z]{26}&sig=[\w-]{43}$/);
    assert.equal(second.headers.get("Location"), location, "the same booking's page");
    // The browser follows the view link's own 303 with its cookie.
    const view = await openSignedLink(
      (path, init) => handler(new Request(BASE + path, init)),
      location,
    );
    const html = await view.text();
    assert.equal(view.status, 200);
    assert.match(html, /<h1>Your conversation is booked<\/h1>/);
    const bookings = [];
    for await (const entry of store.list({ prefix: ["booking"] })) bookings.push(entry);
    assert.equal(bookings.length, 1, "one booking");
  } finally {
    store.close();
  }
});

/** What a person typed, with characters that must come back escaped. */
const TYPED = {
  name: 'Zé "Ana" <b>',
  email: "ze@example.pt",
  company: "Padaria & Filhos",
  topic: 'Uma marca nova para a padaria <já> & "já"',
};

/** The booking pages, with their language's `lang` and texts. */
const BOOKING_PAGES = [
  { path: "/en/book", lang: "en", text: SAMPLE_CORPUS.languages.en.booking },
  { path: "/marcar-conversa", lang: "pt-PT", text: SAMPLE_CORPUS.languages.pt.booking },
] as const;

/** The clock of these tests: free times of December 2026 are listed. */
const NOW = "2026-11-26T10:00:00Z";

/** A store whose commits fail, as a full disk or a lost database makes them. */
function createFailingStore(failure: "commit" | "atomic"): Store {
  const inner = createMemoryStore();
  return {
    get: (key) => inner.get(key),
    set: (key, value, options) => inner.set(key, value, options),
    delete: (key) => inner.delete(key),
    list: (selector, options) => inner.list(selector, options),
    close: () => inner.close(),
    atomic: () => {
      if (failure === "atomic") throw new Error("Database closed");
      const operation = inner.atomic();
      operation.commit = () => Promise.reject(new Error("disk full"));
      return operation;
    },
  };
}

/** The booking page of December 2026: its first two free times and its form's key. */
async function readBookingPage(
  handler: (request: Request) => Promise<Response>,
  path: string,
): Promise<{ starts: string[]; key: string }> {
  const page = await (await handler(new Request(`${BASE}${path}?month=2026-12`))).text();
  const starts = [...page.matchAll(/name="start" value="([^"]+)"/g)].map((match) => match[1]);
  const key = /name="idempotency" value="([^"]+)"/.exec(page)?.[1];
  assert.ok(starts.length >= 2 && key, "the page lists free times and carries its key");
  return { starts, key };
}

/** The form's fields with {@linkcode TYPED}, the topic last but for the key. */
function buildTypedBody(start: string, key: string, topic = TYPED.topic): URLSearchParams {
  return new URLSearchParams({ start, ...TYPED, topic, idempotency: key });
}

/** Posts the booking form from the site's own page. */
function postForm(
  handler: (request: Request) => Promise<Response>,
  path: string,
  body: BodyInit,
  headers: Record<string, string> = {},
): Promise<Response> {
  return handler(
    new Request(BASE + path, { method: "POST", body, headers: { Origin: BASE, ...headers } }),
  );
}

/** The `value` attribute of the input whose id is `id`, as written in the page. */
function readValue(page: string, id: string): string | undefined {
  const input = new RegExp(`<input id="${id}"[^>]*>`).exec(page)?.[0] ?? "";
  return / value="([^"]*)"/.exec(input)?.[1];
}

/**
 * Asserts a booking page answered to a refused submission: the status, an HTML page of the site
 * in the form's language (not cached), the notice `text` (up to its first placeholder) above the
 * form, the details typed again, escaped, and the chosen time selected (`start`) or none.
 */
async function assertBookingPage(
  response: Response,
  expected: {
    status: number;
    page: typeof BOOKING_PAGES[number];
    text: string;
    start?: string;
    topic?: string;
  },
): Promise<string> {
  const { status, page, start } = expected;
  const body = await response.text();
  assert.equal(response.status, status, `${page.path}: ${body.slice(0, 300)}`);
  assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.ok(body.includes(`<html lang="${page.lang}">`), page.path);
  assert.match(body, /<link rel="stylesheet"/, "in the site's design");
  const notice = /<p class="booking-result notice"[^>]*>([^<]*)<\/p>/.exec(body)?.[1] ?? "";
  const words = escapeHtml(expected.text.split("{")[0].trim());
  assert.ok(notice.startsWith(words), `${page.path}: "${notice}" says "${words}"`);
  assert.doesNotMatch(notice, /\{\w+\}/, "every placeholder filled");
  assert.equal(readValue(body, "b-name"), escapeHtml(TYPED.name), page.path);
  assert.equal(readValue(body, "b-email"), escapeHtml(TYPED.email), page.path);
  assert.equal(readValue(body, "b-company"), escapeHtml(TYPED.company), page.path);
  const topic = /<textarea id="b-topic"[^>]*>([\s\S]*?)<\/textarea>/.exec(body)?.[1] ?? "";
  const typed = escapeHtml(expected.topic ?? TYPED.topic);
  assert.ok(topic.length > 0 && typed.startsWith(topic), `${page.path}: the topic typed`);
  const checked = [...body.matchAll(/<input type="radio" name="start" value="([^"]+)" checked/g)]
    .map((match) => match[1]);
  assert.deepEqual(checked, start ? [start] : [], `${page.path}: the chosen time`);
  assert.doesNotMatch(body, /"ok":false/, "never JSON");
  return body;
}

test("POST /en/book and /marcar-conversa answer a body that is not UTF-8 with the form again, what could be read kept and the time still chosen (400)", async () => {
  const handler = createSampleHandler({
    baseUrl: BASE,
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
    rateLimits: { write: 1000, booking: 1000 },
  });
  for (const page of BOOKING_PAGES) {
    const { starts, key } = await readBookingPage(handler, page.path);
    const encoder = new TextEncoder();
    const typed = buildTypedBody(starts[0], key);
    typed.delete("topic");
    // A byte that is not UTF-8 (Latin-1's "é"), then the topic.
    const body = new Uint8Array([
      ...encoder.encode(`${typed}&note=caf`),
      0xe9,
      ...encoder.encode(`&${new URLSearchParams({ topic: TYPED.topic })}`),
    ]);
    const response = await postForm(handler, page.path, body, {
      "Content-Type": "application/x-www-form-urlencoded",
    });
    await assertBookingPage(response, {
      status: 400,
      page,
      text: page.text.unreadable,
      start: starts[0],
    });
  }
});

test("POST /en/book and /marcar-conversa answer a detail that is wrong with the form again, the time still chosen (400)", async () => {
  const handler = createSampleHandler({
    baseUrl: BASE,
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
    rateLimits: { write: 1000, booking: 1000 },
  });
  for (const page of BOOKING_PAGES) {
    const { starts, key } = await readBookingPage(handler, page.path);
    const response = await postForm(handler, page.path, buildTypedBody(starts[1], key, "Olá"));
    const body = await assertBookingPage(response, {
      status: 400,
      page,
      text: page.text.invalid,
      start: starts[1],
      topic: "Olá",
    });
    assert.match(body, /<textarea id="b-topic"[^>]*aria-invalid="true"/);
    assert.ok(body.includes(`name="idempotency" value="${key}"`), "the same form, the same key");
  }
});

test("POST /en/book and /marcar-conversa from a foreign Origin answer the form again with the details and the time chosen (403)", async () => {
  const store = createMemoryStore();
  const handler = createSampleHandler({
    baseUrl: BASE,
    store,
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
    rateLimits: { write: 1000, booking: 1000 },
  });
  try {
    for (const page of BOOKING_PAGES) {
      const { starts, key } = await readBookingPage(handler, page.path);
      const response = await postForm(handler, page.path, buildTypedBody(starts[0], key), {
        Origin: "https://elsewhere.example",
      });
      await assertBookingPage(response, {
        status: 403,
        page,
        text: page.text.originRejected,
        start: starts[0],
      });
    }
    const bookings = [];
    for await (const entry of store.list({ prefix: ["booking"] })) bookings.push(entry);
    assert.equal(bookings.length, 0, "nothing booked");
  } finally {
    store.close();
  }
});

test("POST /en/book and /marcar-conversa answer a time just taken with the other free times, the details kept (409)", async () => {
  const handler = createSampleHandler({
    baseUrl: BASE,
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
    rateLimits: { write: 1000, booking: 1000 },
  });
  for (const page of BOOKING_PAGES) {
    const { starts, key } = await readBookingPage(handler, page.path);
    const other = await postForm(
      handler,
      "/api/v1/booking",
      JSON.stringify({
        start: starts[0],
        name: "Rui",
        email: "rui@example.pt",
        topic: "Um site novo para a loja",
        locale: "pt",
      }),
      { "Content-Type": "application/json" },
    );
    assert.equal(other.status, 201);
    await other.body?.cancel();
    const response = await postForm(handler, page.path, buildTypedBody(starts[0], key));
    const body = await assertBookingPage(response, { status: 409, page, text: page.text.conflict });
    assert.ok(!body.includes(`value="${starts[0]}"`), "the time taken is no longer listed");
  }
});

test("POST /en/book and /marcar-conversa answer a body over 96 KiB with the form again, keeping the details that arrived and the time chosen (413)", async () => {
  const store = createMemoryStore();
  const handler = createSampleHandler({
    baseUrl: BASE,
    store,
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
    rateLimits: { write: 1000, booking: 1000 },
  });
  try {
    const topic = TYPED.topic + " " + "Mais um pormenor. ".repeat(6_000);
    for (const page of BOOKING_PAGES) {
      const { starts, key } = await readBookingPage(handler, page.path);
      for (const chunked of [false, true]) {
        const bytes = new TextEncoder().encode(String(buildTypedBody(starts[0], key, topic)));
        const response = await handler(
          new Request(BASE + page.path, {
            method: "POST",
            headers: { Origin: BASE, "Content-Type": "application/x-www-form-urlencoded" },
            body: chunked ? new Blob([bytes]).stream() : bytes,
            ...(chunked ? { duplex: "half" } : {}),
          } as RequestInit),
        );
        const body = await assertBookingPage(response, {
          status: 413,
          page,
          text: page.text.tooLarge,
          start: starts[0],
          topic,
        });
        assert.ok(body.includes("96 KiB"), "the bound");
      }
    }
    const bookings = [];
    for await (const entry of store.list({ prefix: ["booking"] })) bookings.push(entry);
    assert.equal(bookings.length, 0, "nothing booked");
  } finally {
    store.close();
  }
});

test("POST /en/book and /marcar-conversa count against the booking quota: over it, the form again with the details, the time chosen and Retry-After (429)", async () => {
  for (const page of BOOKING_PAGES) {
    const handler = createSampleHandler({
      baseUrl: BASE,
      logger: createRecordingLogger(),
      clock: createFixedClock(NOW),
      rateLimits: { write: 1000, booking: 1 },
    });
    const { starts, key } = await readBookingPage(handler, page.path);
    const first = await postForm(handler, page.path, buildTypedBody(starts[0], "form:first"));
    assert.equal(first.status, 303);
    await first.body?.cancel();
    const response = await postForm(handler, page.path, buildTypedBody(starts[1], key));
    const retryAfter = Number(response.headers.get("Retry-After"));
    assert.ok(retryAfter >= 1 && retryAfter <= 300, String(retryAfter));
    const body = await assertBookingPage(response, {
      status: 429,
      page,
      text: page.text.rateLimited,
      start: starts[1],
    });
    assert.ok(body.includes(` ${retryAfter} `), "the wait, in seconds");
  }
});

test("POST /en/book and /marcar-conversa answer an address whose bookings of the day are taken with the form again and Retry-After (429)", async () => {
  const handler = createSampleHandler({
    baseUrl: BASE,
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
    rateLimits: { write: 1000, booking: 1000 },
    bookingsPerAttendee: 1,
  });
  for (const page of BOOKING_PAGES) {
    const { starts, key } = await readBookingPage(handler, page.path);
    const email = `${page.lang}@example.pt`;
    const booked = buildTypedBody(starts[0], "form:" + email);
    booked.set("email", email);
    const first = await postForm(handler, page.path, booked);
    assert.equal(first.status, 303);
    await first.body?.cancel();
    const typed = buildTypedBody(starts[1], key);
    typed.set("email", email);
    const response = await postForm(handler, page.path, typed);
    assert.ok(Number(response.headers.get("Retry-After")) >= 1);
    const body = await response.text();
    assert.equal(response.status, 429);
    assert.ok(body.includes(`<html lang="${page.lang}">`));
    assert.ok(body.includes(escapeHtml(page.text.attendeeLimited.split("{")[0].trim())));
    assert.ok(body.includes(email), "the address named");
    assert.equal(readValue(body, "b-name"), escapeHtml(TYPED.name));
    assert.match(
      body,
      new RegExp(`name="start" value="${starts[1].replace(/\+/g, "\\+")}" checked`),
    );
  }
});

test("POST /en/book and /marcar-conversa answer a failure of the service with the form again, the details and the time chosen (500)", async () => {
  const logger = createRecordingLogger();
  const store = createFailingStore("atomic");
  const handler = createSampleHandler({
    baseUrl: BASE,
    store,
    logger,
    clock: createFixedClock(NOW),
    rateLimits: { write: 1000, booking: 1000 },
  });
  try {
    for (const page of BOOKING_PAGES) {
      const { starts, key } = await readBookingPage(handler, page.path);
      const response = await postForm(handler, page.path, buildTypedBody(starts[0], key));
      const body = await assertBookingPage(response, {
        status: 500,
        page,
        text: page.text.failed,
        start: starts[0],
      });
      assert.doesNotMatch(body, /Database closed/, "the detail is logged, never shown");
      assert.ok(body.includes(`name="idempotency" value="${key}"`), "sent again, it books once");
    }
    assert.ok(logger.records.some((record) => record.level === "error"), "the failure is logged");
  } finally {
    store.close();
  }
});

test("POST /en/book and /marcar-conversa answer a calendar that cannot be read with the form again, the chosen time kept though the times cannot be listed (503)", async () => {
  const feed = await startIcsFeedServer();
  const clock = createFixedClock(NOW);
  const logger = createRecordingLogger();
  const handler = createSampleHandler({
    baseUrl: BASE,
    logger,
    clock,
    rateLimits: { write: 1000, booking: 1000 },
  });
  const { starts, key } = await readBookingPage(handler, "/en/book");
  feed.setResponder((_request, response) => {
    response.writeHead(500);
    response.end();
  });
  const broken = createSampleHandler({
    baseUrl: BASE,
    logger,
    clock,
    rateLimits: { write: 1000, booking: 1000 },
    busyCalendar: createIcsCalendar({
      urls: [feed.url],
      defaultTimeZone: "Europe/Lisbon",
      clock,
      logger,
    }),
  });
  try {
    for (const page of BOOKING_PAGES) {
      const response = await postForm(broken, page.path, buildTypedBody(starts[0], key));
      const body = await assertBookingPage(response, {
        status: 503,
        page,
        text: page.text.unavailable,
        start: starts[0],
      });
      assert.ok(body.includes(escapeHtml(page.text.slotsFailed.split("{")[0].trim())));
    }
  } finally {
    await feed.stop();
  }
});

test("POST /en/book and /marcar-conversa answer an uncertain outcome with the form again and its key, never inviting a blind retry (503)", async () => {
  const store = createFailingStore("commit");
  // The links' key is given, so that signing them needs no commit of its own.
  const handler = createSampleHandler({
    baseUrl: BASE,
    store,
    secret: "a-secret-of-at-least-32-characters-for-links",
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
    rateLimits: { write: 1000, booking: 1000 },
  });
  try {
    for (const page of BOOKING_PAGES) {
      const { starts, key } = await readBookingPage(handler, page.path);
      const response = await postForm(handler, page.path, buildTypedBody(starts[0], key));
      const body = await assertBookingPage(response, {
        status: 503,
        page,
        text: page.text.uncertain,
        start: starts[0],
      });
      assert.ok(body.includes(`name="idempotency" value="${key}"`), "sent again, it books once");
    }
  } finally {
    store.close();
  }
});

test("GET /en/book shows the month as a calendar: each day with free times links to its times (the zone kept), the others are not links, and ?day= shows that day's times", async () => {
  const handler = createSampleHandler({
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
  });
  const page = await (await handler(new Request(`${BASE}/en/book?month=2026-12`))).text();
  const links = [...page.matchAll(/<a class="day" href="([^"]+)" data-day="([^"]+)"/g)];
  const days = links.map((match) => match[2]);
  assert.ok(days.includes("2026-12-02") && days.includes("2026-12-03"), "business days link");
  assert.ok(!days.includes("2026-12-05"), "a Saturday does not");
  assert.ok(!days.includes("2026-12-08"), "a holiday does not");
  assert.match(page, /<span class="day-off" title="Saturday, December 5: No free times">5<\/span>/);
  assert.equal(
    links[0][1],
    "/en/book?month=2026-12&amp;tz=Europe%2FLisbon&amp;day=2026-12-02#times",
  );
  assert.match(
    page,
    /<a class="day" href="[^"]+" data-day="2026-12-02" aria-label="[^"]+" aria-current="date">2<\/a>/,
  );
  assert.match(page, /<legend>Wednesday, December 2<\/legend><p class="times-note">30 min<\/p>/);
  assert.match(page, /<div class="day-times" data-day="2026-12-02" data-label="[^"]+"><div/);
  assert.match(page, /<div class="day-times" data-day="2026-12-03" data-label="[^"]+" hidden>/);

  const chosen = await (await handler(new Request(`${BASE}/en/book?month=2026-12&day=2026-12-03`)))
    .text();
  assert.match(chosen, /<legend>Thursday, December 3<\/legend>/);
  assert.match(chosen, /<div class="day-times" data-day="2026-12-03" data-label="[^"]+"><div/);
  assert.match(chosen, /value="2026-12-03T09:30:00\+00:00" required>/);
  assert.doesNotMatch(chosen, /value="2026-12-02T09:30:00\+00:00" required>/, "one required");
});

test("GET /en/book of a studio whose conversations last 45 minutes says 45 min, in its own zone", async () => {
  const handler = createHandler({
    ...toStudioOptions(SOL_STUDIO),
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
  });
  const page = await (await handler(new Request(`${BASE}/en/book?month=2026-12`))).text();
  assert.match(page, /<p class="times-note">45 min<\/p>/);
  assert.ok(page.includes("A 45-minute conversation"), "the page's text");
  assert.ok(page.includes("(America/Sao_Paulo)."), "the studio's zone");
  assert.doesNotMatch(page, /30 min/);
});

test("POST /en/book without a time answers the form again with the page's own message on the times (400)", async () => {
  const handler = createSampleHandler({
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
    rateLimits: { write: 1000, booking: 1000 },
  });
  const body = new URLSearchParams({ ...TYPED, tz: "America/New_York" });
  const response = await postForm(handler, "/en/book", body);
  const html = await response.text();
  assert.equal(response.status, 400);
  assert.ok(html.includes('<span class="error" id="b-start-error">Choose a time first.</span>'));
  assert.ok(html.includes("Times in Eastern Time (America/New_York)."), "in the zone shown");
});
