/**
 * The Nu HTML Checker on every page of the team's desk as the real server answers them, in both
 * languages: the sign-in page (and its refusal of a bad address), the page after asking for a
 * link, an e-mailed link's page and a forged link's, the desk's overview with a notice, every
 * section's page (the lists with a search, a filter and nothing found), a booking's and an
 * inquiry's page, a cancel's and a decline's second step, a missing record, and the pages of a
 * renewed calendar address and of an erasure. No error and no warning.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, startServer } from "./_server.ts";
import { checkHtml, NU_SKIP } from "./_nu_html.ts";
import { startSmtpServer, type TestSmtpServer } from "../_smtp.ts";
import { askForLink, bookNextMonth, HTML, open, openDesk, post, signInByMail } from "./_team.ts";

const MEMBER = "ana@studio.example";
const BASE_URL = "http://127.0.0.1";

const folder = mkdtempSync(join(tmpdir(), "studio-team-nu-"));
let smtp: TestSmtpServer | undefined;
let server: RunningServer | undefined;
if (!NU_SKIP) {
  smtp = await startSmtpServer();
  server = await startServer({
    STUDIO_BASE_URL: BASE_URL,
    STUDIO_KV_PATH: join(folder, "nu.kv"),
    STUDIO_SMTP_URL: smtp.url,
    STUDIO_MAIL_FROM: "Studio <site@studio.example>",
    STUDIO_INBOX: "inbox@studio.example",
    STUDIO_TEAM: MEMBER,
    STUDIO_CONFIRMATION: "manual",
    STUDIO_RATE_LIMIT_WRITE: "1000",
  });
}

after(async () => {
  await server?.stop();
  await smtp?.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** A page's HTML, after checking its status. */
async function read(response: Promise<Response>, status: number): Promise<string> {
  const answer = await response;
  assert.equal(answer.status, status, answer.url);
  return await answer.text();
}

test(
  "Every page of the desk passes the Nu HTML Checker with no error and no warning",
  { skip: NU_SKIP },
  async () => {
    assert.ok(server && smtp);
    const options = { member: MEMBER, baseUrl: BASE_URL };
    await bookNextMonth(server, { email: "marta@example.com", name: "Marta Reis" });
    await bookNextMonth(server, { email: "joao@example.com", name: "João Pires", index: 1 });
    const inquiry = await open(server, "/api/v1/contact", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        Name: "Rita Lopes",
        Email: "rita@example.pt",
        Message: "Olá,\nprecisamos de um site <novo> & rápido.",
      }),
    });
    assert.equal(inquiry.status, 200);
    await inquiry.body?.cancel();

    const pages: Array<{ name: string; html: string }> = [];
    const add = async (name: string, response: Promise<Response>, status = 200) =>
      pages.push({ name, html: await read(response, status) });
    await add("sign-in pt", open(server, "/equipa", { headers: HTML }));
    await add("sign-in en", open(server, "/en/team", { headers: HTML }));
    await add("bad address", post(server, "/equipa/ligacao", { email: "not an address" }), 400);
    await add("link asked", post(server, "/equipa/ligacao", { email: "visitor@example.com" }));
    const link = await askForLink(server, smtp, options);
    await add("link page", open(server, link.pathname + link.search, { headers: HTML }));
    await add(
      "forged link",
      open(server, "/equipa/entrar?token=" + "A".repeat(43) + "&sig=" + "B".repeat(43), {
        headers: HTML,
      }),
      403,
    );

    const cookie = await signInByMail(server, smtp, options);
    const desk = await openDesk(server, cookie);
    const id = /<li id="booking-([0-9A-Z]{26})" class="row">/.exec(desk.html)?.[1] ?? "";
    const other = [...desk.html.matchAll(/<li id="booking-([0-9A-Z]{26})" class="row">/g)]
      .map((match) => match[1]).find((found) => found !== id) ?? "";
    const inquiryId = /<li id="inquiry-([0-9A-Z]{26})" class="row">/.exec(desk.html)?.[1] ?? "";
    assert.ok(id && other && inquiryId, "two requests and an inquiry on the overview");
    const confirmed = await post(
      server,
      "/en/team/booking",
      { form_token: desk.token, id, action: "confirm" },
      { Cookie: cookie },
    );
    assert.equal(confirmed.status, 303);
    await confirmed.body?.cancel();
    const withCookie = { headers: { ...HTML, Cookie: cookie } };
    const pagesOf: Array<[string, string, number?]> = [
      ["overview pt", "/equipa"],
      ["overview en", "/en/team"],
      ["inquiries", "/equipa/pedidos"],
      ["inquiries, open", "/en/team/inquiries?show=open"],
      ["inquiry", `/en/team/inquiries/${inquiryId}`],
      ["bookings pt", "/equipa/reservas"],
      ["bookings en", "/en/team/bookings?show=upcoming"],
      ["search", "/en/team/bookings?q=marta"],
      ["search, nothing found", "/equipa/reservas?q=nobody"],
      ["booking confirmed", `/equipa/reservas/${id}?notice=confirmed`],
      ["booking pending", `/en/team/bookings/${other}`],
      ["cancel step", `/equipa/reservas/${id}/cancelar`],
      ["decline step", `/en/team/bookings/${other}/decline`],
      ["decline no longer possible", `/en/team/bookings/${id}/decline`, 409],
      ["missing record", `/en/team/bookings/${"0".repeat(26)}`, 404],
      ["personal data", "/en/team/personal-data"],
      ["calendar feed", "/equipa/agenda"],
      ["passkeys", "/en/team/passkeys"],
      ["audit trail", "/equipa/registo"],
    ];
    for (const [name, path, status] of pagesOf) {
      await add(name, open(server, path, withCookie), status);
    }
    const renewed = await post(server, "/equipa/agenda", { form_token: desk.token }, {
      Cookie: cookie,
    });
    assert.equal(renewed.status, 303);
    await renewed.body?.cancel();
    await add("feed renewed", open(server, "/equipa/agenda?notice=feed-renewed", withCookie));
    await add(
      "erased",
      post(server, "/en/team/personal-data", {
        form_token: desk.token,
        action: "erase",
        email: "rita@example.pt",
        confirm: "yes",
      }, { Cookie: cookie }),
    );
    await add(
      "erase unconfirmed",
      post(server, "/en/team/personal-data", {
        form_token: desk.token,
        action: "erase",
        email: "rita@example.pt",
      }, { Cookie: cookie }),
      400,
    );

    const found = checkHtml(pages);
    assert.deepEqual(found, [], found.join("\n"));
  },
);
