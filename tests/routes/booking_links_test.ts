/**
 * The signed links of the booking e-mails exchanged for a cookie: the link's `GET` answers a
 * `303` to the page's URL without `sig` with a cookie for that page and booking, which alone opens
 * that URL (a plain page to robots, private to caches); without it the URL asks for the e-mail's
 * link again; a forged link keeps its error page; the pages' forms post to the signed URLs as
 * before.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Handler } from "../../mod.ts";
import type { BookingRecord } from "../../lib/booking/booking_mail.ts";
import { createLinkSigner } from "../../lib/booking/signed_links.ts";
import type { Store } from "../../lib/store/store.ts";
import { createFixedClock, createMemoryMailer, createMemoryStore } from "../../testing.ts";
import { createSampleHandler } from "../_fixture_studio.ts";
import { buildBookingBody, openSignedLink, type SendRequest } from "../_booking.ts";
import { createRecordingLogger } from "../_support.ts";

const SECRET = "booking-links-test-secret-0123456789abcdef";
/** A Saturday in winter: December 2026 has free weekdays. */
const NOW = "2026-11-21T10:00:00Z";
const NOINDEX_META = '<meta name="robots" content="noindex">';
const signer = createLinkSigner(() => Promise.resolve(SECRET));

interface TestApp {
  handler: Handler;
  store: Store;
  send: SendRequest;
}

function createApp(baseUrl = "http://localhost:8000"): TestApp {
  const store = createMemoryStore();
  const handler = createSampleHandler({
    baseUrl,
    store,
    secret: SECRET,
    mailer: createMemoryMailer(),
    logger: createRecordingLogger(),
    clock: createFixedClock(NOW),
    confirmation: "manual",
    rateLimits: { read: 100_000, write: 100_000, booking: 100_000 },
  });
  const send: SendRequest = (path, init) => handler(new Request(baseUrl + path, init));
  return { handler, store, send };
}

/** Books the `index`-th free time of December 2026 for `email`; returns the booking. */
async function book(
  app: TestApp,
  email: string,
  options: { locale: "pt" | "en"; index?: number },
): Promise<BookingRecord> {
  const listing = await app.send("/api/v1/booking/slots?month=2026-12", {});
  const { slots }: { slots: Record<string, Array<{ start: string }>> } = await listing.json();
  const start = Object.values(slots).flat()[options.index ?? 0].start;
  const response = await app.send("/api/v1/booking", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(buildBookingBody(start, { email, locale: options.locale })),
  });
  assert.equal(response.status, 201, await response.text());
  for await (const entry of app.store.list<BookingRecord>({ prefix: ["booking"] })) {
    if (entry.value.email === email) return entry.value;
  }
  throw new Error(`No booking for ${email}`);
}

/** The path and query of a signed link of the booking. */
async function linkOf(
  page: "view" | "cancel" | "confirm" | "decline" | "invite" | "reschedule",
  record: BookingRecord,
): Promise<string> {
  return page === "reschedule"
    ? await signer.buildRescheduleUrl("", record.id, record.sequence)
    : await signer.buildUrl("", page, record.id);
}

/** A link's path and query without its `sig`. */
function withoutSignature(link: string): string {
  const url = new URL(link, "http://localhost");
  url.searchParams.delete("sig");
  return url.pathname + url.search;
}

/** The `name=value` of a 303's cookie, and its attributes. */
function readSetCookie(response: Response): { pair: string; attributes: string[] } {
  const [pair, ...attributes] = (response.headers.get("Set-Cookie") ?? "").split(/;\s*/);
  return { pair, attributes };
}

/** Asserts the headers of a page that is never indexed (an error, or the link asked for again). */
function assertNotIndexed(response: Response, html: string): void {
  assert.equal(response.headers.get("X-Robots-Tag"), "noindex");
  assert.ok(html.includes(NOINDEX_META), "the robots meta");
  assert.equal(response.headers.get("Referrer-Policy"), "no-referrer");
  assert.equal(response.headers.get("Set-Cookie"), null, "no cookie");
}

test("GET of a signed link answers 303 to its page without sig, with a cookie for that page and booking: Path, HttpOnly, SameSite=Lax, Max-Age, Secure only over https", async () => {
  const app = createApp();
  const record = await book(app, "exchange@example.org", { locale: "en" });
  for (const page of ["view", "cancel", "confirm", "decline", "reschedule"] as const) {
    const link = await linkOf(page, record);
    const signature = new URL(link, "http://localhost").searchParams.get("sig");
    const response = await app.send(link, {});
    assert.equal(response.status, 303, page);
    assert.equal(await response.text(), "");
    assert.equal(response.headers.get("Location"), withoutSignature(link), page);
    assert.equal(response.headers.get("Cache-Control"), "no-store");
    assert.equal(response.headers.get("Referrer-Policy"), "no-referrer");
    const { pair, attributes } = readSetCookie(response);
    const name = page === "reschedule"
      ? `booking-reschedule-${record.id}-0`
      : `booking-${page}-${record.id}`;
    assert.equal(pair, `${name}=${signature}`, page);
    assert.deepEqual(attributes.sort(), [
      "HttpOnly",
      "Max-Age=3600",
      `Path=/booking/${page}`,
      "SameSite=Lax",
    ]);
  }
  // The rest of the query stays; the calendar file is answered as before.
  const month = `${await linkOf("reschedule", record)}&month=2027-01&tz=America%2FNew_York`;
  const moved = await app.send(month, {});
  await moved.body?.cancel();
  assert.equal(
    moved.headers.get("Location"),
    `/booking/reschedule?id=${record.id}&seq=0&month=2027-01&tz=America%2FNew_York`,
  );
  const invite = await app.send(await linkOf("invite", record), {});
  assert.equal(invite.status, 200);
  assert.equal(invite.headers.get("Content-Type"), "text/calendar; charset=utf-8");
  assert.match(await invite.text(), /^BEGIN:VCALENDAR/);

  const secure = createApp("https://studio.example");
  const held = await book(secure, "secure@example.org", { locale: "en" });
  const over = await secure.send(await linkOf("view", held), {});
  await over.body?.cancel();
  assert.equal(over.status, 303);
  assert.ok(readSetCookie(over).attributes.includes("Secure"), "Secure over https");
});

test("GET of a page's URL with its cookie answers the page: 200, no noindex, private, Vary: Cookie, no Referer", async () => {
  const app = createApp();
  const record = await book(app, "opened@example.org", { locale: "en" });
  const headings = {
    view: "Your request is in",
    cancel: "Cancel conversation",
    confirm: "Confirmar conversa",
    decline: "Recusar conversa",
    reschedule: "Change the time of your conversation",
  } as const;
  for (const [page, heading] of Object.entries(headings)) {
    const response = await openSignedLink(
      app.send,
      await linkOf(page as keyof typeof headings, record),
    );
    const html = await response.text();
    assert.equal(response.status, 200, page);
    assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
    assert.equal(response.headers.get("X-Robots-Tag"), null, page);
    assert.ok(!html.includes(NOINDEX_META), `${page}: no robots meta`);
    assert.doesNotMatch(html, /name="robots"/);
    assert.equal(response.headers.get("Cache-Control"), "private, no-store");
    assert.match(response.headers.get("Vary") ?? "", /\bCookie\b/);
    assert.equal(response.headers.get("Referrer-Policy"), "no-referrer");
    assert.match(response.headers.get("Content-Security-Policy") ?? "", /frame-ancestors 'none'/);
    assert.ok(html.includes(`<h1>${heading}</h1>`), `${page}: ${heading}`);
    assert.ok(html.includes("opened@example.org"), "the booking");
  }
});

test("GET of a page's URL without its cookie answers 403 asking for the e-mail's link, noindex, in the page's language", async () => {
  const app = createApp();
  const english = await book(app, "nocookie@example.org", { locale: "en" });
  const portuguese = await book(app, "semcookie@example.pt", { locale: "pt", index: 1 });
  const cases = [
    [english, "view", /<h1>Open the link from your e-mail<\/h1>/],
    [english, "cancel", /this page opens only from the link in the e-mail/],
    [english, "reschedule", /Open the link in the latest e-mail about this conversation again/],
    [english, "confirm", /<h1>Abra a ligação do e-mail<\/h1>/],
    [portuguese, "view", /esta página só abre a partir da ligação do e-mail/],
    [portuguese, "reschedule", /<h1>Abra a ligação do e-mail<\/h1>/],
  ] as const;
  for (const [record, page, words] of cases) {
    const response = await app.send(withoutSignature(await linkOf(page, record)), {});
    const html = await response.text();
    assert.equal(response.status, 403, `${record.locale} ${page}`);
    assert.match(html, words, `${record.locale} ${page}`);
    assertNotIndexed(response, html);
    assert.equal(response.headers.get("Cache-Control"), "no-store");
    assert.match(response.headers.get("Vary") ?? "", /\bCookie\b/);
    assert.ok(!html.includes(record.email), "nothing of the booking");
  }
  // An id that names no booking, or none at all: the same page, in Portuguese.
  for (const path of ["/booking/view?id=01ARZ3NDEKTSV4RRFFQ69G5FAV", "/booking/cancel"]) {
    const response = await app.send(path, {});
    const html = await response.text();
    assert.equal(response.status, 403, path);
    assert.match(html, /Abra a ligação do e-mail/);
  }
});

test("a cookie of another booking, another page or another SEQUENCE does not open a page", async () => {
  const app = createApp();
  const first = await book(app, "first@example.org", { locale: "en" });
  const second = await book(app, "second@example.org", { locale: "en", index: 1 });
  const signatureOf = async (page: "view" | "cancel" | "reschedule", record: BookingRecord) =>
    new URL(await linkOf(page, record), "http://localhost").searchParams.get("sig") ?? "";
  const view = await signatureOf("view", first);
  const cancel = await signatureOf("cancel", first);
  const reschedule = await signatureOf("reschedule", first);
  const cases: Array<[path: string, cookie: string]> = [
    // The first booking's own cookie, at the second's page.
    [`/booking/view?id=${second.id}`, `booking-view-${first.id}=${view}`],
    // Its signature under the second's name.
    [`/booking/view?id=${second.id}`, `booking-view-${second.id}=${view}`],
    // The view's cookie at the cancel page, under either name.
    [`/booking/cancel?id=${first.id}`, `booking-view-${first.id}=${view}`],
    [`/booking/cancel?id=${first.id}`, `booking-cancel-${first.id}=${view}`],
    [`/booking/view?id=${first.id}`, `booking-view-${first.id}=${cancel}`],
    // The reschedule link of SEQUENCE 0, at SEQUENCE 1.
    [`/booking/reschedule?id=${first.id}&seq=1`, `booking-reschedule-${first.id}-1=${reschedule}`],
    [`/booking/reschedule?id=${first.id}&seq=1`, `booking-reschedule-${first.id}-0=${reschedule}`],
    // A tampered signature.
    [`/booking/view?id=${first.id}`, `booking-view-${first.id}=${"A".repeat(43)}`],
  ];
  for (const [path, cookie] of cases) {
    const response = await app.send(path, { headers: { Cookie: cookie } });
    const html = await response.text();
    assert.equal(response.status, 403, `${path} with ${cookie}`);
    assert.match(html, /Open the link from your e-mail/);
    assert.ok(!html.includes("first@example.org") && !html.includes("second@example.org"));
  }
  // Both cookies in one browser: each opens its own page only.
  const both = `booking-view-${first.id}=${view}; booking-cancel-${first.id}=${cancel}`;
  for (const page of ["view", "cancel"]) {
    const response = await app.send(`/booking/${page}?id=${first.id}`, {
      headers: { Cookie: both },
    });
    await response.body?.cancel();
    assert.equal(response.status, 200, page);
  }
});

test("a tampered signature answers the error page as before: 403, noindex, no cookie", async () => {
  const app = createApp();
  const record = await book(app, "tampered@example.org", { locale: "en" });
  for (const page of ["view", "cancel", "confirm", "reschedule"] as const) {
    const link = await linkOf(page, record);
    const forged = [
      link.replace(/sig=(.)/, (_, char) => `sig=${char === "A" ? "B" : "A"}`),
      link.replace(/sig=.*/, "sig="),
    ];
    for (const path of forged) {
      const response = await app.send(path, {});
      const html = await response.text();
      assert.equal(response.status, 403, path);
      assert.match(html, /Esta ligação não é válida/);
      assertNotIndexed(response, html);
    }
  }
});

test("the pages' forms post to the signed URLs, which confirm, cancel and move as before", async () => {
  const app = createApp();
  const record = await book(app, "forms@example.org", { locale: "en" });
  const formOf = async (page: "confirm" | "cancel" | "reschedule") => {
    const response = await openSignedLink(app.send, await linkOf(page, record));
    const html = await response.text();
    assert.equal(response.status, 200);
    const action = /<form method="post" action="([^"]+)" class="(?:action|booking)-form">/
      .exec(html)?.[1]?.replaceAll("&amp;", "&");
    assert.ok(action, `the ${page} page's form`);
    return { action, html };
  };
  const confirm = await formOf("confirm");
  assert.equal(confirm.action, await linkOf("confirm", record), "the signed URL");
  const confirmed = await app.send(confirm.action, { method: "POST" });
  assert.equal(confirmed.status, 200);
  assert.match(await confirmed.text(), /Conversa confirmada\. O convite foi enviado\./);

  const reschedule = await formOf("reschedule");
  assert.equal(reschedule.action, `${await linkOf("reschedule", record)}&month=2026-12`);
  const target = /<input type="radio" name="start" value="([^"]+)"/.exec(reschedule.html)?.[1];
  assert.ok(target, "a free time");
  const moved = await app.send(reschedule.action, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ start: target }),
  });
  assert.equal(moved.status, 200);
  assert.match(await moved.text(), /Done: the conversation has moved to/);

  const cancel = await formOf("cancel");
  const cancelled = await app.send(cancel.action, { method: "POST" });
  assert.equal(cancelled.status, 200);
  assert.match(await cancelled.text(), /Conversation cancelled\./);
  const after = await app.store.get<BookingRecord>(["booking", record.id]);
  assert.equal(after.value?.status, "cancelled");
});
