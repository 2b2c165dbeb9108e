import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "./_server.ts";
import { startSmtpServer } from "../_smtp.ts";
import { readInvite } from "../_booking.ts";
import { askForLink, bookNextMonth, byKind, HTML, open, openDesk, post, receive } from "./_team.ts";

const MEMBER = "ana@studio.example";
/** The public origin: links in e-mails point there; over https the cookie is `__Host-`. */
const BASE_URL = "https://studio.example";

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
    await bookNextMonth(server, { email: attendee, name: "Marta Reis" });
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

    const link = await askForLink(server, smtp, { member: MEMBER, baseUrl: BASE_URL });
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

    // The overview shows what waits: the request and the inquiry, each a link to its page.
    const desk = await openDesk(server, cookie);
    const bookingId = /<li id="booking-([0-9A-Z]{26})" class="row">/.exec(desk.html)?.[1] ?? "";
    const inquiryId = /<li id="inquiry-([0-9A-Z]{26})" class="row">/.exec(desk.html)?.[1] ?? "";
    assert.ok(bookingId && inquiryId, "the request and the inquiry are on the desk");
    assert.ok(desk.html.includes(`href="/en/team/bookings/${bookingId}"`));
    assert.ok(desk.html.includes(`href="/en/team/inquiries/${inquiryId}"`));

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
    assert.equal(
      confirmed.headers.get("Location"),
      `/en/team/bookings/${bookingId}?notice=confirmed`,
    );
    await confirmed.body?.cancel();
    const [booked] = await receive(smtp, byKind("attendee-booked", attendee));
    const request = readInvite(booked, "REQUEST");

    const cancelled = await post(
      server,
      "/en/team/booking",
      { form_token: desk.token, id: bookingId, action: "cancel", note: "Something came up." },
      { Cookie: cookie },
    );
    assert.equal(
      cancelled.headers.get("Location"),
      `/en/team/bookings/${bookingId}?notice=cancelled`,
    );
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
    assert.equal(
      answered.headers.get("Location"),
      `/en/team/inquiries/${inquiryId}?notice=answered`,
    );
    await answered.body?.cancel();
    const inquiryPage = await openDesk(server, cookie, `/en/team/inquiries/${inquiryId}`);
    assert.match(inquiryPage.html, /<span class="badge badge-answered">answered<\/span>/);
    const booking = await openDesk(server, cookie, `/en/team/bookings/${bookingId}`);
    assert.match(booking.html, /<span class="badge badge-cancelled">cancelled<\/span>/);
    const after = await openDesk(server, cookie, "/en/team/audit");
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
