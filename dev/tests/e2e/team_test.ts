import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, startServer } from "./_server.ts";
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from "../_smtp.ts";
import { buildBookingBody, listMonths, readInvite } from "../_booking.ts";

const MEMBER = "ana@studio.example";
/** The public origin: links in e-mails point there; over https the cookie is `__Host-`. */
const BASE_URL = "https://studio.example";
const HTML = { Accept: "text/html,application/xhtml+xml" };
const FORM = { ...HTML, "Content-Type": "application/x-www-form-urlencoded" };

const delay = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Waits for the e-mails matching `match`, at least `count` of them. */
async function receive(
  smtp: TestSmtpServer,
  match: (mail: ReceivedMail) => boolean,
  count = 1,
): Promise<ReceivedMail[]> {
  const deadline = Date.now() + 15_000;
  while (smtp.messages.filter(match).length < count && Date.now() < deadline) await delay(20);
  const found = smtp.messages.filter(match);
  assert.ok(found.length >= count, `${count} matching e-mail(s), got ${found.length}`);
  return found;
}

function byKind(kind: string, to: string) {
  return (mail: ReceivedMail) =>
    (mail.parsed.messageId ?? "").startsWith(`<${kind}-`) && mail.envelopeTo.join() === to;
}

/** A request to the server at a path of the public origin's URL. */
function open(server: RunningServer, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(server.origin + path, { redirect: "manual", ...init });
}

function post(
  server: RunningServer,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return open(server, path, {
    method: "POST",
    headers: { ...FORM, ...headers },
    body: new URLSearchParams(fields),
  });
}

/** Asks for a link by the form and reads it from the e-mail that arrives. */
async function askForLink(server: RunningServer, smtp: TestSmtpServer): Promise<URL> {
  const match = byKind("team-sign-in", MEMBER);
  const before = smtp.messages.filter(match).length;
  const asked = await post(server, "/en/team/link", { email: MEMBER });
  assert.equal(asked.status, 200);
  assert.match(await asked.text(), /Check your e-mail/);
  const mails = await receive(smtp, match, before + 1);
  const text = mails.at(-1)?.parsed.text ?? "";
  const link = /https:\/\/studio\.example\/en\/team\/sign-in\?\S+/.exec(text)?.[0];
  assert.ok(link, text);
  return new URL(link);
}

/** The desk's HTML for a cookie, and the form token its forms carry. */
async function openDesk(server: RunningServer, cookie: string) {
  const response = await open(server, "/en/team", { headers: { ...HTML, Cookie: cookie } });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Set-Cookie"), null);
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  const html = await response.text();
  return { html, token: /name="form_token" value="([\w-]+)"/.exec(html)?.[1] ?? "" };
}

/** Books the first free slot from next month as a pending request for `email`. */
async function bookPending(server: RunningServer, email: string): Promise<string> {
  const month = listMonths(Temporal.Now.instant(), 2)[1];
  const listing = await open(server, `/api/v1/booking/slots?month=${month}`);
  const body: { slots: Record<string, Array<{ start: string }>> } = await listing.json();
  const start = Object.values(body.slots).flat()[0]?.start;
  assert.ok(start, "a free slot next month");
  const response = await open(server, "/api/v1/booking", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(buildBookingBody(start, { email, locale: "en", name: "Marta Reis" })),
  });
  assert.equal(response.status, 201, await response.clone().text());
  await response.body?.cancel();
  return start;
}

test("main.ts: a member signs in by the e-mailed link, confirms a request (REQUEST arrives), cancels it with a note (CANCEL arrives) and marks an inquiry answered", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-team-"));
  const smtp = await startSmtpServer();
  const server = await startServer({
    STUDIO_KV_PATH: join(folder, "studio.kv"),
    STUDIO_SMTP_URL: smtp.url,
    STUDIO_MAIL_FROM: "Studio <site@studio.example>",
    STUDIO_INBOX: "inbox@studio.example",
    STUDIO_TEAM: `${MEMBER}, rui@studio.example`,
    STUDIO_BASE_URL: BASE_URL,
    STUDIO_CONFIRMATION: "manual",
    STUDIO_RATE_LIMIT_READ: "1000",
  });
  try {
    const attendee = "marta@example.com";
    await bookPending(server, attendee);
    const inquiry = await open(server, "/api/v1/contact", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ Name: "Rita Lopes", Email: "rita@example.pt", Message: "A site." }),
    });
    assert.equal(inquiry.status, 200);
    await inquiry.body?.cancel();

    const signedOut = await open(server, "/en/team", { headers: HTML });
    assert.equal(signedOut.status, 200);
    assert.match(await signedOut.text(), /Sign in to the desk/);

    const link = await askForLink(server, smtp);
    const page = await open(server, link.pathname + link.search, { headers: HTML });
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("Set-Cookie"), null);
    assert.match(await page.text(), /Sign in as ana@studio\.example\?/);
    const fields = {
      token: link.searchParams.get("token") ?? "",
      sig: link.searchParams.get("sig") ?? "",
    };
    const signedIn = await post(server, "/en/team/sign-in", fields);
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.headers.get("Location"), "/en/team");
    const setCookie = signedIn.headers.get("Set-Cookie") ?? "";
    assert.match(
      setCookie,
      /^__Host-studio-team=[\w-]{43}; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    const cookie = setCookie.split(";")[0];
    const replay = await post(server, "/en/team/sign-in", fields);
    assert.equal(replay.status, 410);
    await replay.body?.cancel();

    const desk = await openDesk(server, cookie);
    const bookingId = /<article id="booking-([0-9A-Z]{26})">/.exec(desk.html)?.[1] ?? "";
    const inquiryId = /<article id="inquiry-([0-9A-Z]{26})">/.exec(desk.html)?.[1] ?? "";
    assert.ok(bookingId && inquiryId, "the request and the inquiry are on the desk");

    const crossSite = await post(
      server,
      "/en/team/booking",
      { form_token: desk.token, id: bookingId, action: "confirm" },
      { Cookie: cookie, Origin: "https://evil.example" },
    );
    assert.equal(crossSite.status, 403);
    await crossSite.body?.cancel();

    const confirmed = await post(
      server,
      "/en/team/booking",
      { form_token: desk.token, id: bookingId, action: "confirm" },
      { Cookie: cookie, Origin: BASE_URL },
    );
    assert.equal(confirmed.status, 303);
    assert.equal(confirmed.headers.get("Location"), "/en/team?notice=confirmed#bookings");
    await confirmed.body?.cancel();
    const [booked] = await receive(smtp, byKind("attendee-booked", attendee));
    const request = readInvite(booked, "REQUEST");

    const cancelled = await post(
      server,
      "/en/team/booking",
      { form_token: desk.token, id: bookingId, action: "cancel", note: "Something came up." },
      { Cookie: cookie },
    );
    assert.equal(cancelled.headers.get("Location"), "/en/team?notice=cancelled#bookings");
    await cancelled.body?.cancel();
    const [cancelMail] = await receive(smtp, byKind("attendee-cancelled", attendee));
    const cancel = readInvite(cancelMail, "CANCEL");
    assert.equal(cancel.uid, request.uid);
    assert.equal(cancel.sequence, request.sequence + 1);
    assert.match(cancelMail.parsed.text ?? "", /A message from the team:\nSomething came up\./);

    const answered = await post(
      server,
      "/en/team/inquiry",
      { form_token: desk.token, id: inquiryId, state: "answered" },
      { Cookie: cookie },
    );
    assert.equal(answered.headers.get("Location"), "/en/team?notice=answered#inquiries");
    await answered.body?.cancel();
    const after = await openDesk(server, cookie);
    assert.match(after.html, /<strong>answered<\/strong>/);
    for (
      const line of [
        "signed in",
        "confirmed booking",
        "cancelled booking",
        "marked answered inquiry",
      ]
    ) {
      assert.match(after.html, new RegExp(`ana@studio\\.example ${line}`), line);
    }

    const out = await post(server, "/en/team/sign-out", {
      form_token: after.token,
      everywhere: "yes",
    }, {
      Cookie: cookie,
    });
    assert.equal(out.status, 303);
    assert.match(
      out.headers.get("Set-Cookie") ?? "",
      /^__Host-studio-team=; Max-Age=0; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    await out.body?.cancel();
    const gone = await open(server, "/en/team", { headers: { ...HTML, Cookie: cookie } });
    assert.equal(gone.status, 200);
    const goneHtml = await gone.text();
    assert.match(goneHtml, /Sign in to the desk/, "a signed-out session shows the sign-in page");
    assert.doesNotMatch(goneHtml, /Signed in as/);
  } finally {
    await server.stop();
    await smtp.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
