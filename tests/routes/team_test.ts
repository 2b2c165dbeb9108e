import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Handler, HandlerOptions } from "../../mod.ts";
import { createSampleHandler } from "../_fixture_studio.ts";
import { createFixedClock, createMemoryStore, type FixedClock } from "../../testing.ts";
import { createOutbox, type Outbox } from "../../lib/mail/outbox.ts";
import { createSmtpMailer } from "../../adapters/smtp_mailer.ts";
import type { AtomicOperation, KvCommitResult, Store } from "../../lib/store/store.ts";
import { buildBookingBody, readInvite } from "../_booking.ts";
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from "../_smtp.ts";
import { buildRequest, createRecordingLogger, fromAddress } from "../_support.ts";

const MEMBER = "ana@studio.example";
const OTHER_MEMBER = "rui@studio.example";
const SECRET = "team-test-secret-0123456789abcdefghij";
const NOW = "2026-11-21T10:00:00Z";
const HTML = { Accept: "text/html,application/xhtml+xml" };
const FORM = { ...HTML, "Content-Type": "application/x-www-form-urlencoded" };

let smtp: TestSmtpServer;
let mailer: ReturnType<typeof createSmtpMailer>;
const outboxes: Outbox[] = [];

before(async () => {
  smtp = await startSmtpServer();
  mailer = createSmtpMailer(smtp.url, { timeoutSeconds: 5 });
});

after(async () => {
  for (const outbox of outboxes) await outbox.stop();
  mailer.close();
  await smtp.stop();
});

/** A handler with its own clock and store, delivering to the shared SMTP server. */
interface TestApp {
  handler: Handler;
  store: Store;
  clock: FixedClock;
  /** A client address of its own, so that tests do not share quotas. */
  client: string;
}

let clients = 0;

function createApp(options: Omit<HandlerOptions, "clock" | "outbox"> = {}): TestApp {
  const clock = createFixedClock(NOW);
  const logger = createRecordingLogger();
  const store = options.store ?? createMemoryStore();
  const outbox = createOutbox({ store, mailer, clock, logger });
  outboxes.push(outbox);
  const handler = createSampleHandler({
    secret: SECRET,
    team: [MEMBER, `Rui <${OTHER_MEMBER.toUpperCase()}>`],
    confirmation: "manual",
    rateLimits: { read: 100_000, write: 100_000, booking: 100_000 },
    logger,
    ...options,
    store,
    clock,
    outbox,
  });
  clients++;
  return { handler, store, clock, client: `198.51.100.${clients}` };
}

function send(app: TestApp, path: string, init: RequestInit = {}): Promise<Response> {
  return app.handler(buildRequest(path, init), fromAddress(app.client));
}

function postForm(
  app: TestApp,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return send(app, path, {
    method: "POST",
    headers: { ...FORM, ...headers },
    body: new URLSearchParams(fields),
  });
}

const delay = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** The sign-in e-mails sent to `address` so far. */
function signInMails(address: string): ReceivedMail[] {
  return smtp.messages.filter((mail) =>
    mail.envelopeTo.join() === address && /^<team-sign-in-/.test(mail.parsed.messageId ?? "")
  );
}

/** Asks for a link for `address` and returns the link of the e-mail that arrives. */
async function askForLink(app: TestApp, address = MEMBER, path = "/equipa/ligacao") {
  const before = signInMails(address).length;
  const response = await postForm(app, path, { email: address });
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("Set-Cookie"), null);
  await response.body?.cancel();
  const deadline = Date.now() + 10_000;
  while (signInMails(address).length === before && Date.now() < deadline) await delay(20);
  const mails = signInMails(address);
  assert.equal(mails.length, before + 1, "one sign-in e-mail");
  const match = /https?:\/\/\S+\/(?:equipa\/entrar|en\/team\/sign-in)\?token=[\w-]+&sig=[\w-]+/
    .exec(mails.at(-1)?.parsed.text ?? "");
  assert.ok(match, "the e-mail holds the link");
  return new URL(match[0]);
}

/** Posts a link's token and signature, as its page's button does. */
function postLink(app: TestApp, link: URL, headers: Record<string, string> = {}) {
  return postForm(app, link.pathname, {
    token: link.searchParams.get("token") ?? "",
    sig: link.searchParams.get("sig") ?? "",
  }, headers);
}

/** Signs in through the e-mailed link, returning the `Cookie` value to send. */
async function signIn(app: TestApp, address = MEMBER): Promise<string> {
  const link = await askForLink(app, address);
  const response = await postLink(app, link);
  assert.equal(response.status, 303);
  const cookie = response.headers.get("Set-Cookie") ?? "";
  await response.body?.cancel();
  return cookie.split(";")[0];
}

/** A page of the desk (the overview by default) for a cookie, with the form token its forms carry. */
async function openDesk(app: TestApp, cookie: string, path = "/equipa") {
  const response = await send(app, path, { headers: { ...HTML, Cookie: cookie } });
  const html = await response.text();
  const token = /name="form_token" value="([\w-]+)"/.exec(html)?.[1];
  return { response, html, token };
}

test("GET /equipa and /en/team answer the sign-in page signed out: noindex, no-store, CSP, no cookie", async () => {
  const app = createApp();
  const pages = [
    ["/equipa", "/equipa/ligacao", '<a class="lang" href="/en/team" hreflang="en" lang="en">'],
    ["/en/team", "/en/team/link", '<a class="lang" href="/equipa" hreflang="pt-PT" lang="pt-PT">'],
  ];
  for (const [path, action, languageSwitch] of pages) {
    const response = await send(app, path, { headers: HTML });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("Content-Type"), "text/html; charset=utf-8");
    assert.equal(response.headers.get("Cache-Control"), "no-store");
    assert.equal(response.headers.get("X-Robots-Tag"), "noindex");
    assert.equal(response.headers.get("Referrer-Policy"), "no-referrer");
    assert.match(response.headers.get("Content-Security-Policy") ?? "", /frame-ancestors 'none'/);
    assert.equal(response.headers.get("Set-Cookie"), null);
    const html = await response.text();
    assert.match(html, /<meta name="robots" content="noindex">/);
    assert.match(html, new RegExp(`<form method="post" action="${action}">`));
    assert.match(html, /<input id="email" name="email" type="email"/);
    // The e-mail form works without a script; the passkey form waits, hidden, for its script.
    assert.deepEqual(
      [...html.matchAll(/<script src="\/assets\/([\w.-]+)\?v=\w+" defer><\/script>/g)].map((
        match,
      ) => match[1]),
      ["simplewebauthn-browser.js", "passkeys.js"],
    );
    assert.match(
      html,
      /<form method="post" action="[^"]+" class="passkey" data-passkey="sign-in"[^>]* hidden>/,
    );
    assert.ok(html.includes(languageSwitch), "the header's switch leads to the other desk");
  }
});

test("the desk's language switch leads to the same page of the other language's desk, with the same search", async () => {
  const app = createApp();
  const cookie = await signIn(app);
  const desk = await openDesk(app, cookie);
  assert.equal(desk.response.status, 200);
  assert.ok(desk.html.includes('<a class="lang" href="/en/team" hreflang="en" lang="en">'));
  const search = await openDesk(app, cookie, "/equipa/reservas?q=Marta%40Example&show=past");
  assert.ok(
    search.html.includes(
      '<a class="lang" href="/en/team/bookings?q=marta%40example&amp;show=past" hreflang="en"',
    ),
    "the search and the filter are kept",
  );
  for (
    const [path, other] of [["/en/team/audit", "/equipa/registo"], [
      "/equipa/chaves",
      "/en/team/passkeys",
    ]]
  ) {
    const page = await openDesk(app, cookie, path);
    assert.ok(page.html.includes(`<a class="lang" href="${other}" hreflang=`), path);
  }
  const link = await askForLink(app);
  const page = await send(app, link.pathname + link.search, { headers: HTML });
  assert.equal(page.status, 200);
  assert.ok((await page.text()).includes('<a class="lang" href="/en/team" hreflang="en"'));
});

test("desk routes answer 401 to a client that does not read HTML, and the sign-in page with 401 to a browser's POST", async () => {
  const app = createApp();
  const json = await send(app, "/en/team", { headers: { Accept: "application/json" } });
  assert.equal(json.status, 401);
  assert.equal(json.headers.get("Content-Type"), "text/plain; charset=utf-8");
  assert.match(await json.text(), /Sign in first: http:\/\/localhost:8000\/en\/team/);
  const curl = await send(app, "/equipa/reserva", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "id=01KAB3N6Z9Q8W4T2R7YV5XHMJD&action=confirm",
  });
  assert.equal(curl.status, 401);
  await curl.body?.cancel();
  const browser = await postForm(app, "/equipa/pedido", { id: "x", state: "answered" });
  assert.equal(browser.status, 401);
  assert.match(await browser.text(), /action="\/equipa\/ligacao"/);
});

test("POST /equipa/ligacao answers the same page for a member and a stranger, and e-mails only the member", async () => {
  const app = createApp();
  const sentBefore = signInMails(MEMBER).length;
  const member = await postForm(app, "/equipa/ligacao", { email: " Ana@Studio.Example " });
  const stranger = await postForm(app, "/equipa/ligacao", { email: "mallory@example.com" });
  assert.equal(member.status, 200);
  assert.equal(stranger.status, 200);
  assert.deepEqual(
    [...member.headers].filter(([name]) => name !== "etag"),
    [...stranger.headers].filter(([name]) => name !== "etag"),
  );
  const [memberHtml, strangerHtml] = [await member.text(), await stranger.text()];
  assert.equal(memberHtml, strangerHtml, "one page for both");
  assert.match(memberHtml, /Veja o seu e-mail/);
  const deadline = Date.now() + 10_000;
  while (signInMails(MEMBER).length === sentBefore && Date.now() < deadline) await delay(20);
  const mail = signInMails(MEMBER).at(-1);
  assert.ok(mail, "the member's e-mail");
  assert.equal(mail.parsed.subject, "Entrar na secretária do estúdio");
  assert.match(mail.parsed.text ?? "", /15 minutos/);
  await delay(200);
  assert.equal(signInMails("mallory@example.com").length, 0, "nothing to the stranger");
});

/**
 * `inner`, whose commits that write a sign-in link wait until `release()`; `reached` resolves when
 * the first such commit starts to wait.
 */
function holdLinkCommits(inner: Store): { store: Store; reached: Promise<void>; release(): void } {
  let reach = () => {};
  let release = () => {};
  const reached = new Promise<void>((resolve) => reach = resolve);
  const released = new Promise<void>((resolve) => release = resolve);
  const store: Store = {
    ...inner,
    atomic(): AtomicOperation {
      const operation = inner.atomic();
      let writesLink = false;
      const held: AtomicOperation = {
        check(...checks) {
          operation.check(...checks);
          return this;
        },
        set(key, value, options) {
          writesLink ||= key[0] === "team_link";
          operation.set(key, value, options);
          return this;
        },
        delete(key) {
          operation.delete(key);
          return this;
        },
        async commit(): Promise<KvCommitResult> {
          if (writesLink) {
            reach();
            await released;
          }
          return await operation.commit();
        },
      };
      return held;
    },
  };
  return { store, reached, release };
}

test("POST /equipa/ligacao answers before a member's link is stored: the answer waits for no work done only for members", async () => {
  const held = holdLinkCommits(createMemoryStore());
  const app = createApp({ store: held.store });
  const sentBefore = signInMails(MEMBER).length;
  const asked = postForm(app, "/equipa/ligacao", { email: MEMBER });
  try {
    const first = await Promise.race([
      asked.then(() => "the answer"),
      held.reached.then(() => "the link's commit"),
    ]);
    assert.equal(first, "the answer", "answered before the link's commit began");
    const response = await asked;
    assert.equal(response.status, 200);
    assert.match(await response.text(), /Veja o seu e-mail/);
    assert.equal(signInMails(MEMBER).length, sentBefore);
  } finally {
    held.release();
  }
  await held.reached;
  await waitForSignInMails(MEMBER, sentBefore + 1);
});

test("POST /equipa/ligacao refuses what is not an address with the form again, 400", async () => {
  const app = createApp();
  const response = await postForm(app, "/en/team/link", { email: "not an address" });
  assert.equal(response.status, 400);
  const html = await response.text();
  assert.match(html, /aria-invalid="true"/);
  assert.match(html, /Enter a complete e-mail address/);
});

test("the e-mailed link opens a page whose button POSTs it; only the POST signs in and sets the cookie", async () => {
  const app = createApp();
  const link = await askForLink(app, MEMBER, "/en/team/link");
  assert.equal(link.origin, "http://localhost:8000");
  assert.equal(link.pathname, "/en/team/sign-in");
  for (let scan = 0; scan < 2; scan++) {
    // A mail scanner's GETs use nothing.
    const page = await send(app, link.pathname + link.search, { headers: HTML });
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("Set-Cookie"), null);
    assert.equal(page.headers.get("Referrer-Policy"), "no-referrer");
    const html = await page.text();
    assert.match(html, /Sign in as ana@studio\.example\?/);
    assert.match(html, /<form method="post" action="\/en\/team\/sign-in">/);
  }
  const response = await postLink(app, link);
  assert.equal(response.status, 303);
  assert.equal(response.headers.get("Location"), "/en/team");
  const cookie = response.headers.get("Set-Cookie") ?? "";
  assert.match(
    cookie,
    /^studio-team=[\w-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/,
  );
  const desk = await openDesk(app, cookie.split(";")[0]);
  assert.equal(desk.response.status, 200);
  assert.equal(desk.response.headers.get("Set-Cookie"), null);
  assert.match(desk.html, /Sessão de ana@studio\.example\./);
  const audit = await openDesk(app, cookie.split(";")[0], "/equipa/registo");
  assert.match(audit.html, /<li><time[^>]*>[^<]*<\/time> · ana@studio\.example entrou<\/li>/);
});

test("on https the cookie is __Host- prefixed and Secure", async () => {
  const app = createApp({ baseUrl: "https://studio.example" });
  const link = await askForLink(app);
  assert.equal(link.origin, "https://studio.example");
  const response = await postLink(app, link);
  assert.equal(response.status, 303);
  assert.match(
    response.headers.get("Set-Cookie") ?? "",
    /^__Host-studio-team=[\w-]{43}; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
  );
  assert.equal(response.headers.get("Strict-Transport-Security"), "max-age=31536000");
});

test("a link is refused when forged, replayed or expired", async () => {
  const app = createApp();
  const link = await askForLink(app);
  const token = link.searchParams.get("token") ?? "";
  const sig = link.searchParams.get("sig") ?? "";
  const forgeries = [
    { token, sig: sig.slice(0, -2) + (sig.endsWith("AA") ? "BB" : "AA") },
    { token: token.slice(0, -1) + (token.endsWith("A") ? "B" : "A"), sig },
    { token, sig: "" },
    { token: "", sig: "" },
  ];
  for (const forged of forgeries) {
    const page = await send(app, `/equipa/entrar?${new URLSearchParams(forged)}`, {
      headers: HTML,
    });
    assert.equal(page.status, 403);
    assert.match(await page.text(), /Esta ligação não é válida/);
    const posted = await postForm(app, "/equipa/entrar", forged);
    assert.equal(posted.status, 403);
    assert.equal(posted.headers.get("Set-Cookie"), null);
    await posted.body?.cancel();
  }
  const first = await postLink(app, link);
  assert.equal(first.status, 303);
  await first.body?.cancel();
  const replay = await postLink(app, link);
  assert.equal(replay.status, 410);
  assert.equal(replay.headers.get("Set-Cookie"), null);
  assert.match(await replay.text(), /já foi usada/);

  const late = await askForLink(app);
  app.clock.advance({ minutes: 15 });
  const expiredPage = await send(app, late.pathname + late.search, { headers: HTML });
  assert.equal(expiredPage.status, 410);
  assert.match(await expiredPage.text(), /caducou/);
  const expired = await postLink(app, late);
  assert.equal(expired.status, 410);
  assert.equal(expired.headers.get("Set-Cookie"), null);
  await expired.body?.cancel();
});

test("two POSTs of one link at once sign in once", async () => {
  const app = createApp();
  const link = await askForLink(app);
  const answers = await Promise.all([
    postLink(app, link),
    postLink(app, link),
    postLink(app, link),
  ]);
  const statuses = answers.map((response) => response.status).sort();
  for (const response of answers) await response.body?.cancel();
  assert.deepEqual(statuses, [303, 410, 410]);
});

test("signing out voids the session and the member's unused links; signing out everywhere voids every session too", async () => {
  const app = createApp();
  const first = await signIn(app);
  const second = await signIn(app);
  const pending = await askForLink(app);
  const desk = await openDesk(app, second);
  const out = await postForm(app, "/equipa/sair", { form_token: desk.token ?? "" }, {
    Cookie: second,
  });
  assert.equal(out.status, 303);
  assert.equal(out.headers.get("Location"), "/equipa?notice=signed-out");
  assert.match(
    out.headers.get("Set-Cookie") ?? "",
    /^studio-team=; Max-Age=0; Path=\/; HttpOnly; SameSite=Strict$/,
  );
  await out.body?.cancel();
  assert.doesNotMatch((await openDesk(app, second)).html, /Sessão de/, "this session is out");
  const still = await openDesk(app, first);
  assert.match(still.html, /Sessão de/, "the other session stays");
  const afterSignOut = await postLink(app, pending);
  assert.equal(afterSignOut.status, 410, "a link asked before the sign-out is void");
  assert.equal(afterSignOut.headers.get("Set-Cookie"), null);
  assert.match(await afterSignOut.text(), /deixou de servir/);

  // The next window of the client's quota.
  app.clock.advance({ minutes: 15 });
  const pendingEverywhere = await askForLink(app);
  const everywhere = await postForm(
    app,
    "/equipa/sair",
    { form_token: still.token ?? "", everywhere: "yes" },
    { Cookie: first },
  );
  assert.equal(everywhere.status, 303);
  await everywhere.body?.cancel();
  const signedOut = await openDesk(app, first);
  assert.doesNotMatch(signedOut.html, /Sessão de/);
  assert.match(signedOut.html, /action="\/equipa\/ligacao"/);
  const revoked = await postLink(app, pendingEverywhere);
  assert.equal(revoked.status, 410);
  assert.match(await revoked.text(), /deixou de servir/);
  // A link asked after the sign-out works.
  const again = await signIn(app);
  const audit = (await openDesk(app, again, "/equipa/registo")).html;
  assert.match(audit, /ana@studio\.example saiu em todos os dispositivos/);
  assert.match(audit, /ana@studio\.example saiu</);
});

test("a sign-in gives a new session id and forgets the one the browser held (session fixation)", async () => {
  const app = createApp();
  const planted = "studio-team=" + "A".repeat(43);
  const link = await askForLink(app);
  const response = await postLink(app, link, { Cookie: planted });
  assert.equal(response.status, 303);
  const cookie = (response.headers.get("Set-Cookie") ?? "").split(";")[0];
  await response.body?.cancel();
  assert.notEqual(cookie, planted);
  assert.doesNotMatch((await openDesk(app, planted)).html, /Sessão de/);
  // A session the browser already held is replaced, not kept beside the new one.
  const next = await postLink(app, await askForLink(app), { Cookie: cookie });
  const renewed = (next.headers.get("Set-Cookie") ?? "").split(";")[0];
  await next.body?.cancel();
  assert.notEqual(renewed, cookie);
  assert.doesNotMatch((await openDesk(app, cookie)).html, /Sessão de/, "the old id is forgotten");
  assert.match((await openDesk(app, renewed)).html, /Sessão de/);
});

test("a session ends after an hour idle, and after 12 hours whatever its use", async () => {
  const app = createApp();
  const idle = await signIn(app);
  app.clock.advance({ minutes: 59 });
  assert.match((await openDesk(app, idle)).html, /Sessão de/);
  app.clock.advance({ minutes: 59 });
  assert.match((await openDesk(app, idle)).html, /Sessão de/, "each use restarts the idle time");
  app.clock.advance({ minutes: 60 });
  assert.doesNotMatch((await openDesk(app, idle)).html, /Sessão de/);

  const busy = await signIn(app);
  for (let hour = 0; hour < 11; hour++) {
    app.clock.advance({ minutes: 59 });
    assert.match((await openDesk(app, busy)).html, /Sessão de/);
  }
  app.clock.advance({ minutes: 60 });
  assert.doesNotMatch((await openDesk(app, busy)).html, /Sessão de/);
});

test("a member removed from STUDIO_TEAM is signed out", async () => {
  const store = createMemoryStore();
  const app = createApp({ store });
  const cookie = await signIn(app, OTHER_MEMBER);
  const without = createApp({ store, team: [MEMBER] });
  assert.doesNotMatch((await openDesk(without, cookie)).html, /Sessão de/);
});

/** Asks for a link for `address` from `client`; the answer's status. */
async function askFrom(app: TestApp, client: string, address = MEMBER): Promise<number> {
  const response = await app.handler(
    buildRequest("/equipa/ligacao", {
      method: "POST",
      headers: FORM,
      body: new URLSearchParams({ email: address }),
    }),
    fromAddress(client),
  );
  await response.body?.cancel();
  return response.status;
}

/** Waits until `address` has received `count` sign-in e-mails (up to 10 s). */
async function waitForSignInMails(address: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (signInMails(address).length < count && Date.now() < deadline) await delay(20);
  assert.equal(signInMails(address).length, count, `${count} sign-in e-mails to ${address}`);
}

test("sign-in requests are limited per client and address (3 per 15 minutes, member or not), and per client", async () => {
  const app = createApp();
  const sentBefore = signInMails(MEMBER).length;
  for (const address of [MEMBER, "mallory@example.com"]) {
    for (let index = 0; index < 3; index++) {
      const response = await postForm(app, "/equipa/ligacao", { email: address });
      assert.equal(response.status, 200);
      await response.body?.cancel();
    }
    const limited = await postForm(app, "/equipa/ligacao", { email: address.toUpperCase() });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("Retry-After")) > 0);
    assert.match(await limited.text(), /Demasiados pedidos/);
  }
  app.clock.advance({ minutes: 15 });
  const later = await postForm(app, "/equipa/ligacao", { email: MEMBER });
  assert.equal(later.status, 200);
  await later.body?.cancel();
  // Four links were sent: wait for them, so that no later test reads one of them as its own.
  await waitForSignInMails(MEMBER, sentBefore + 4);

  const quota = createApp({ rateLimits: { write: 2 } });
  for (let index = 0; index < 2; index++) {
    const response = await postForm(quota, "/en/team/link", { email: `x${index}@example.com` });
    assert.equal(response.status, 200);
    await response.body?.cancel();
  }
  const refused = await postForm(quota, "/en/team/link", { email: "y@example.com" });
  assert.equal(refused.status, 429);
  assert.match(await refused.text(), /Too many requests/);
});

test("no one locks a member out of e-mail sign-in: strangers' clients leave the member's own client its links, and past 30 requests for an address every client is told to wait, never sent nothing silently", async () => {
  const app = createApp();
  const sentBefore = signInMails(MEMBER).length;
  const [attacker, member] = ["203.0.113.10", "203.0.113.11"];
  for (let index = 0; index < 3; index++) assert.equal(await askFrom(app, attacker), 200);
  assert.equal(await askFrom(app, attacker), 429, "one client cannot flood the address");
  await waitForSignInMails(MEMBER, sentBefore + 3);
  // Three more strangers' clients ask nine times (13 in all, past the former budget of 10).
  for (const client of ["203.0.113.12", "203.0.113.13", "203.0.113.14"]) {
    for (let index = 0; index < 3; index++) assert.equal(await askFrom(app, client), 200);
  }
  await waitForSignInMails(MEMBER, sentBefore + 12);
  assert.equal(await askFrom(app, member), 200, "the member's own client is not limited");
  await waitForSignInMails(MEMBER, sentBefore + 13);
  const link = await askForLink(app);
  const signedIn = await postLink(app, link);
  assert.equal(signedIn.status, 303, "and its link signs in");
  await signedIn.body?.cancel();

  // Many clients together: 30 requests for the address in the window, then every client, the
  // member's too, is answered 429 with when to try again, for a member's address as for any.
  let asked = 14; // 3 + 9 + 1 above, and askForLink's
  for (let client = 20; asked < 30; client++) {
    for (let index = 0; index < 3 && asked < 30; index++, asked++) {
      assert.equal(await askFrom(app, `203.0.113.${client}`), 200);
    }
  }
  await waitForSignInMails(MEMBER, sentBefore + 30);
  for (const client of [member, "203.0.113.99"]) {
    const limited = await app.handler(
      buildRequest("/equipa/ligacao", {
        method: "POST",
        headers: FORM,
        body: new URLSearchParams({ email: MEMBER }),
      }),
      fromAddress(client),
    );
    assert.equal(limited.status, 429, client);
    assert.ok(Number(limited.headers.get("Retry-After")) > 0);
    assert.match(await limited.text(), /Demasiados pedidos/);
  }
  const stranger = await postForm(app, "/equipa/ligacao", { email: "x@example.com" });
  assert.equal(stranger.status, 200, "another address is not limited by this one's count");
  await stranger.body?.cancel();
  await delay(200);
  assert.equal(signInMails(MEMBER).length, sentBefore + 30, "and nothing more was sent");
  app.clock.advance({ minutes: 15 });
  assert.equal(await askFrom(app, member), 200);
  await waitForSignInMails(MEMBER, sentBefore + 31);
});

/** The e-mails whose Message-ID starts with `kind`, sent to `address`. */
function mailsOf(kind: string, address: string): ReceivedMail[] {
  return smtp.messages.filter((mail) =>
    (mail.parsed.messageId ?? "").startsWith(`<${kind}-`) && mail.envelopeTo.join() === address
  );
}

/** Waits up to 10 s for `find` to return something. */
async function waitFor<T>(find: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 10_000;
  let found = find();
  while (found === undefined && Date.now() < deadline) {
    await delay(20);
    found = find();
  }
  assert.ok(found !== undefined, "the awaited e-mail arrives");
  return found;
}

async function receive(kind: string, address: string, count = 1): Promise<ReceivedMail> {
  const deadline = Date.now() + 10_000;
  while (mailsOf(kind, address).length < count && Date.now() < deadline) await delay(20);
  const found = mailsOf(kind, address);
  assert.equal(found.length, count, `${count} ${kind} e-mail(s) to ${address}`);
  return found[count - 1];
}

/** Books the first free slot of December 2026 for `email` (a pending request, manual mode). */
async function bookPending(app: TestApp, email: string, skip = 0): Promise<string> {
  const listing = await send(app, "/api/v1/booking/slots?month=2026-12");
  const body: { slots: Record<string, Array<{ start: string }>> } = await listing.json();
  const start = Object.values(body.slots).flat()[skip].start;
  const response = await send(app, "/api/v1/booking", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(buildBookingBody(start, { email, name: "Marta Reis", locale: "en" })),
  });
  assert.equal(response.status, 201, await response.clone().text());
  await response.body?.cancel();
  return start;
}

/** The id of the booking or inquiry a row of a desk's list shows for `email`. */
function findArticle(html: string, kind: "booking" | "inquiry", email: string): string {
  const pattern = new RegExp(
    `<li id="${kind}-([0-9A-Z]{26})" class="row">(?:(?!</li>)[\\s\\S])*${
      email.replace(/\./g, "\\.")
    }`,
  );
  const id = pattern.exec(html)?.[1];
  assert.ok(id, `a ${kind} of ${email} on the desk`);
  return id;
}

/** The status badge of a record's page. */
function readBadge(html: string): string | undefined {
  return /<div class="record-head"><h1>[^<]*<\/h1><span class="badge badge-[\w-]+">([^<]+)<\/span>/
    .exec(html)?.[1];
}

test("the desk confirms a pending booking (REQUEST to the attendee) and cancels it with a note (CANCEL), as the signed links do", async () => {
  const app = createApp();
  const attendee = "marta@example.com";
  await bookPending(app, attendee);
  await receive("attendee-pending", attendee);
  const cookie = await signIn(app);
  const desk = await openDesk(app, cookie, "/equipa/reservas?show=pending");
  assert.match(desk.html, /<p class="list-summary">1 resultado/);
  assert.match(desk.html, /data-section="bookings"[^>]*>Reservas <span class="count">1</);
  const id = findArticle(desk.html, "booking", attendee);
  const page = await openDesk(app, cookie, `/equipa/reservas/${id}`);
  assert.equal(readBadge(page.html), "a confirmar");
  assert.match(page.html, new RegExp(`href="/equipa/reservas/${id}/cancelar"`));
  assert.match(page.html, new RegExp(`href="/equipa/reservas/${id}/recusar"`));

  const confirmed = await postForm(
    app,
    "/equipa/reserva",
    { form_token: desk.token ?? "", id, action: "confirm" },
    { Cookie: cookie },
  );
  assert.equal(confirmed.status, 303);
  assert.equal(confirmed.headers.get("Location"), `/equipa/reservas/${id}?notice=confirmed`);
  assert.equal(confirmed.headers.get("Set-Cookie"), null);
  await confirmed.body?.cancel();
  const invite = readInvite(await receive("attendee-booked", attendee), "REQUEST");
  assert.equal(invite.attendee.toLowerCase(), `mailto:${attendee}`);
  const after = await openDesk(app, cookie, `/equipa/reservas/${id}?notice=confirmed`);
  assert.match(after.html, /<p class="notice ok" role="status">Conversa confirmada/);
  assert.equal(readBadge(after.html), "confirmada");
  assert.match(after.html, /<p class="event-title">ana@studio\.example confirmou a reserva<\/p>/);
  assert.doesNotMatch(after.html, /\/recusar"/, "a confirmed booking is not declined");
  assert.match((await openDesk(app, cookie, "/equipa/reservas?show=upcoming")).html, /1 resultado/);
  assert.match(
    (await openDesk(app, cookie, "/equipa/registo")).html,
    new RegExp(
      `ana@studio\\.example confirmou a reserva <a href="/equipa/reservas/${id}"><code>${id}</code></a>`,
    ),
  );

  const again = await postForm(
    app,
    "/equipa/reserva",
    { form_token: desk.token ?? "", id, action: "confirm" },
    { Cookie: cookie },
  );
  assert.equal(again.headers.get("Location"), `/equipa/reservas/${id}?notice=already`);
  await again.body?.cancel();

  const note = "We have to move this one.\r\nPlease pick another time.\u0007";
  const cancelled = await postForm(
    app,
    "/equipa/reserva",
    { form_token: desk.token ?? "", id, action: "cancel", note },
    { Cookie: cookie },
  );
  assert.equal(cancelled.headers.get("Location"), `/equipa/reservas/${id}?notice=cancelled`);
  await cancelled.body?.cancel();
  const mail = await receive("attendee-cancelled", attendee);
  const cancel = readInvite(mail, "CANCEL");
  assert.equal(cancel.uid, invite.uid);
  assert.equal(cancel.sequence, invite.sequence + 1);
  assert.match(
    mail.parsed.text ?? "",
    /A message from the team:\nWe have to move this one\.\nPlease pick another time\.\n/,
  );
  const studioCopy = await waitFor(() =>
    smtp.messages.find((mail) =>
      (mail.parsed.messageId ?? "").startsWith(`<studio-cancelled-${id}-`)
    )
  );
  assert.equal(readInvite(studioCopy, "CANCEL").uid, invite.uid);
  assert.match(
    studioCopy.parsed.text ?? "",
    /^Esta conversa foi cancelada e o horário ficou livre\.\n\nMensagem da equipa à pessoa:\nWe have to move this one\.\nPlease pick another time\.\n\nNome: Marta Reis\n/,
  );
  const past = await openDesk(app, cookie, "/equipa/reservas?show=past");
  assert.match(past.html, /1 resultado/);
  assert.match(past.html, /<span class="badge badge-cancelled">cancelada<\/span>/);
  const last = await openDesk(app, cookie, `/equipa/reservas/${id}`);
  assert.equal(readBadge(last.html), "cancelada");
  assert.match(last.html, /ana@studio\.example cancelou a reserva/);
  // The history: the e-mails about it with their delivery, the invite's SEQUENCE now 1.
  assert.match(last.html, /UID [^,]+, SEQUENCE 1/);
  assert.match(last.html, /Para marta@example\.com · (?:Aceite pelo servidor|Envio previsto)/);
  const step = await send(app, `/equipa/reservas/${id}/cancelar`, {
    headers: { ...HTML, Cookie: cookie },
  });
  assert.equal(step.status, 409, "a cancelled booking's cancel step says it is not possible");
  assert.match(await step.text(), /Esta ação já não é possível/);
});

test("the desk declines a request with a note; a lapsed request answers lapsed and sends nothing", async () => {
  const app = createApp();
  const attendee = "joao@example.com";
  await bookPending(app, attendee, 1);
  const cookie = await signIn(app);
  const desk = await openDesk(app, cookie, "/en/team/bookings");
  const id = findArticle(desk.html, "booking", attendee);
  const step = await openDesk(app, cookie, `/en/team/bookings/${id}/decline`);
  assert.equal(step.response.status, 200);
  assert.match(step.html, /<h1>Decline the request from Marta Reis\?<\/h1>/);
  assert.match(step.html, /<form method="post" action="\/en\/team\/booking" class="confirm-step">/);
  assert.match(step.html, /<input type="hidden" name="action" value="decline">/);
  assert.match(step.html, /<button type="submit" class="danger">Decline the request<\/button>/);
  assert.match(step.html, new RegExp(`<a href="/en/team/bookings/${id}">No, keep the request</a>`));
  const kept = await app.store.get<{ status: string }>(["booking", id]);
  assert.equal(kept.value?.status, "pending", "showing the step changes nothing");
  const declined = await postForm(
    app,
    "/en/team/booking",
    { form_token: desk.token ?? "", id, action: "decline", note: "Fully booked that week." },
    { Cookie: cookie },
  );
  assert.equal(declined.headers.get("Location"), `/en/team/bookings/${id}?notice=declined`);
  await declined.body?.cancel();
  const mail = await receive("attendee-declined", attendee);
  assert.match(mail.parsed.text ?? "", /A message from the team:\nFully booked that week\./);

  const late = "late@example.com";
  await bookPending(app, late, 2);
  app.clock.advance({ hours: 49 });
  const fresh = await signIn(app);
  const view = await openDesk(app, fresh, "/equipa/reservas?q=late%40");
  const lapsedId = findArticle(view.html, "booking", late);
  assert.match(view.html, /<span class="badge badge-lapsed">caducou sem confirmação<\/span>/);
  const lapsed = await postForm(
    app,
    "/equipa/reserva",
    { form_token: view.token ?? "", id: lapsedId, action: "confirm" },
    { Cookie: fresh },
  );
  assert.equal(lapsed.headers.get("Location"), `/equipa/reservas/${lapsedId}?notice=lapsed`);
  await lapsed.body?.cancel();
  await delay(200);
  assert.equal(mailsOf("attendee-booked", late).length, 0);
});

test("the desk lists inquiries newest first, marks one answered and open again, and replies by mailto with the message quoted", async () => {
  const app = createApp();
  for (
    const [name, email] of [["Rita Lopes", "rita@example.pt"], ["Pedro Alves", "pedro@example.pt"]]
  ) {
    const response = await send(app, "/api/v1/contact", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ Name: name, Email: email, Message: `Olá,\nUm site para ${name}.` }),
    });
    assert.equal(response.status, 200);
    await response.body?.cancel();
    app.clock.advance({ seconds: 1 });
  }
  const cookie = await signIn(app);
  const desk = await openDesk(app, cookie, "/equipa/pedidos");
  assert.match(desk.html, /<h1>Pedidos de contacto<\/h1>/);
  assert.match(desk.html, /<p class="list-summary">2 resultados/);
  assert.match(
    desk.html,
    /data-section="inquiries"[^>]*>Pedidos de contacto <span class="count">2</,
  );
  assert.ok(desk.html.indexOf("Pedro Alves") < desk.html.indexOf("Rita Lopes"), "newest first");
  const id = findArticle(desk.html, "inquiry", "rita@example.pt");
  assert.match(
    desk.html,
    new RegExp(`<a class="row-title" href="/equipa/pedidos/${id}">Rita Lopes</a>`),
  );
  const record = await openDesk(app, cookie, `/equipa/pedidos/${id}`);
  assert.equal(readBadge(record.html), "por responder");
  assert.match(
    record.html,
    /<blockquote class="record-message">Olá,<br>Um site para Rita Lopes\.<\/blockquote>/,
  );
  assert.match(
    record.html,
    /href="mailto:rita@example\.pt\?subject=Re%3A%20o%20seu%20pedido[^"]*%3E%20Um%20site%20para%20Rita%20Lopes\."/,
  );
  assert.match(record.html, /<p class="event-title">Pedido recebido<\/p>/);
  const answered = await postForm(
    app,
    "/equipa/pedido",
    { form_token: desk.token ?? "", id, state: "answered" },
    { Cookie: cookie },
  );
  assert.equal(answered.headers.get("Location"), `/equipa/pedidos/${id}?notice=answered`);
  await answered.body?.cancel();
  const after = await openDesk(app, cookie, `/equipa/pedidos/${id}?notice=answered`);
  assert.equal(readBadge(after.html), "respondido");
  assert.match(after.html, /role="status">Pedido marcado como respondido\./);
  assert.match(after.html, /Respondido por ana@studio\.example em /);
  assert.match(
    after.html,
    /<p class="event-title">ana@studio\.example marcou como respondido o pedido<\/p>/,
  );
  const open = await openDesk(app, cookie, "/equipa/pedidos?show=open");
  assert.match(open.html, /1 resultado/);
  assert.doesNotMatch(open.html, /Rita Lopes/);
  assert.match(
    (await openDesk(app, cookie, "/equipa/registo")).html,
    new RegExp(
      `marcou como respondido o pedido <a href="/equipa/pedidos/${id}"><code>${id}</code></a>`,
    ),
  );
  const stored = await app.store.get<{ state: string; answeredBy: string }>(["inquiry", id]);
  assert.equal(stored.value?.state, "answered");
  assert.equal(stored.value?.answeredBy, MEMBER);
  const reopened = await postForm(
    app,
    "/equipa/pedido",
    { form_token: desk.token ?? "", id, state: "open" },
    { Cookie: cookie },
  );
  assert.equal(reopened.headers.get("Location"), `/equipa/pedidos/${id}?notice=reopened`);
  await reopened.body?.cancel();

  const search = await openDesk(app, cookie, "/equipa/pedidos?q=PEDRO@");
  assert.match(search.html, /1 resultado/);
  assert.match(search.html, /Pedro Alves/);
  assert.doesNotMatch(search.html, /Rita Lopes/);
  // The search reads names and messages too, and finds nothing where nothing matches.
  assert.match((await openDesk(app, cookie, "/equipa/pedidos?q=site+rita")).html, /1 resultado/);
  const none = await openDesk(app, cookie, "/equipa/pedidos?q=nobody");
  assert.match(none.html, /<p class="empty">Nada encontrado\.<\/p>/);
});

test("the lists page by 25 with ?page=, keeping the search and the filter in the pager's links", async () => {
  const app = createApp();
  for (let index = 0; index < 30; index++) {
    const response = await send(app, "/api/v1/contact", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        Name: `Person ${String(index).padStart(2, "0")}`,
        Email: `person${index}@example.pt`,
        Message: "A site, please.",
      }),
    });
    assert.equal(response.status, 200);
    await response.body?.cancel();
    app.clock.advance({ seconds: 1 });
  }
  const cookie = await signIn(app);
  const first = await openDesk(app, cookie, "/en/team/inquiries?q=site&show=open");
  assert.match(first.html, /30 results/);
  assert.equal([...first.html.matchAll(/<li id="inquiry-/g)].length, 25);
  assert.match(first.html, /Person 29/);
  assert.match(
    first.html,
    /<a rel="next" href="\/en\/team\/inquiries\?q=site&amp;show=open&amp;page=2">/,
  );
  assert.match(first.html, /<span aria-current="page">Page 1 of 2<\/span>/);
  const second = await openDesk(app, cookie, "/en/team/inquiries?q=site&show=open&page=2");
  assert.equal([...second.html.matchAll(/<li id="inquiry-/g)].length, 5);
  assert.match(second.html, /Person 00/);
  assert.doesNotMatch(second.html, /Person 29/);
  assert.match(second.html, /<a rel="prev" href="\/en\/team\/inquiries\?q=site&amp;show=open">/);
  // A page past the last shows the last; a page that is not a number, the first.
  assert.match((await openDesk(app, cookie, "/en/team/inquiries?page=9")).html, /Page 2 of 2/);
  assert.match((await openDesk(app, cookie, "/en/team/inquiries?page=x")).html, /Page 1 of 2/);
});

test("a record's page answers 404 for an id that is not stored or not a ULID, in the desk's frame", async () => {
  const app = createApp();
  const cookie = await signIn(app);
  for (const path of ["/en/team/bookings/" + "0".repeat(26), "/en/team/inquiries/not-an-id"]) {
    const page = await openDesk(app, cookie, path);
    assert.equal(page.response.status, 404, path);
    assert.match(page.html, /There is no such record/);
    assert.match(page.html, /<nav class="desk-nav"/);
  }
});

test("a desk POST from another site, or without the session's form token, is refused and changes nothing", async () => {
  const app = createApp();
  const attendee = "victim@example.com";
  await bookPending(app, attendee);
  const cookie = await signIn(app);
  const desk = await openDesk(app, cookie);
  const id = findArticle(desk.html, "booking", attendee);
  const crossSite = await postForm(
    app,
    "/equipa/reserva",
    { form_token: desk.token ?? "", id, action: "decline" },
    { Cookie: cookie, Origin: "https://evil.example" },
  );
  assert.equal(crossSite.status, 403);
  await crossSite.body?.cancel();
  for (const token of ["", "A".repeat(43)]) {
    const forged = await postForm(
      app,
      "/equipa/reserva",
      { form_token: token, id, action: "decline" },
      { Cookie: cookie },
    );
    assert.equal(forged.status, 403);
    assert.match(await forged.text(), /sessão anterior/);
  }
  const signOut = await postForm(app, "/equipa/sair", { everywhere: "yes" }, {
    Cookie: cookie,
    Origin: "https://evil.example",
  });
  assert.equal(signOut.status, 403);
  await signOut.body?.cancel();
  const record = await app.store.get<{ status: string }>(["booking", id]);
  assert.equal(record.value?.status, "pending");
  assert.match((await openDesk(app, cookie)).html, /Sessão de/);
});

test("no GET of the team's routes sets a cookie", async () => {
  const app = createApp();
  const cookie = await signIn(app);
  const link = await askForLink(app);
  for (const path of ["/equipa", "/en/team", "/equipa?q=x", link.pathname + link.search]) {
    for (const headers of [HTML, { ...HTML, Cookie: cookie }, { Cookie: "studio-team=bad" }]) {
      const response = await send(app, path, { headers });
      assert.equal(response.headers.get("Set-Cookie"), null, path);
      await response.body?.cancel();
    }
  }
});

test("the desk is in neither the sitemap nor llms.txt", async () => {
  const app = createApp();
  for (const path of ["/sitemap.xml", "/llms.txt", "/en/llms.txt", "/llms-full.txt"]) {
    const response = await send(app, path);
    assert.equal(response.status, 200, path);
    assert.doesNotMatch(await response.text(), /\/equipa|\/en\/team/, path);
  }
});

/** A browser's answer to a ceremony whose client data carries `challenge`, not signed. */
function forgeAnswer(challenge: string, type: "webauthn.create" | "webauthn.get"): string {
  const clientData = btoa(
    JSON.stringify({ type, challenge, origin: "http://localhost:8000", crossOrigin: false }),
  ).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return JSON.stringify({
    id: "bm90LWEtcGFzc2tleQ",
    rawId: "bm90LWEtcGFzc2tleQ",
    type: "public-key",
    clientExtensionResults: {},
    response: type === "webauthn.create"
      ? { clientDataJSON: clientData, attestationObject: "o2NmbXRkbm9uZQ" }
      : {
        clientDataJSON: clientData,
        authenticatorData: "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ",
        signature: "MEUCIQ",
      },
  });
}

/** A ceremony's options, as the page script asks for them. */
async function askOptions(app: TestApp, path: string, headers: Record<string, string> = {}) {
  const response = await send(app, path, {
    method: "POST",
    headers: { Accept: "application/json", ...headers },
    body: new URLSearchParams(),
  });
  return response;
}

test("passkey options: a registration's need the member's session and form token; a sign-in's name no credential", async () => {
  const app = createApp();
  const refused = await askOptions(app, "/en/team/passkey/options");
  assert.equal(refused.status, 401);
  await refused.body?.cancel();
  const cookie = await signIn(app);
  const desk = await openDesk(app, cookie, "/equipa/chaves");
  assert.match(desk.html, /<h1 id="passkeys">Chaves de acesso<\/h1>/);
  assert.match(desk.html, /<form method="post" action="\/equipa\/chave" class="passkey"/);
  assert.deepEqual(
    [...desk.html.matchAll(/<script src="\/assets\/([\w.-]+)\?v=\w+" defer><\/script>/g)].map((
      match,
    ) => match[1]),
    ["simplewebauthn-browser.js", "passkeys.js"],
    "the passkeys' page runs the passkey script",
  );
  assert.doesNotMatch((await openDesk(app, cookie)).html, /<script src=/, "the others run none");
  const noToken = await postForm(app, "/en/team/passkey/options", {}, { Cookie: cookie });
  assert.equal(noToken.status, 403);
  await noToken.body?.cancel();
  const options = await postForm(app, "/en/team/passkey/options", {
    form_token: desk.token ?? "",
  }, { Cookie: cookie, Accept: "application/json" });
  assert.equal(options.status, 200);
  assert.equal(options.headers.get("Cache-Control"), "no-store");
  assert.equal(options.headers.get("Set-Cookie"), null);
  const registration = await options.json();
  assert.equal(registration.rp.id, "localhost");
  assert.equal(registration.user.name, MEMBER);
  assert.doesNotMatch(atob(registration.user.id.replace(/-/g, "+").replace(/_/g, "/")), /@/);
  assert.equal(registration.authenticatorSelection.residentKey, "required");
  assert.deepEqual(registration.excludeCredentials, []);
  assert.match(registration.challenge, /^[\w-]{43}$/);

  const signInOptions = await askOptions(app, "/en/team/passkey-sign-in/options");
  assert.equal(signInOptions.status, 200);
  assert.equal(signInOptions.headers.get("Set-Cookie"), null);
  const authentication = await signInOptions.json();
  assert.equal(authentication.rpId, "localhost");
  assert.equal(authentication.allowCredentials, undefined, "no credential, no member named");
  assert.notEqual(authentication.challenge, registration.challenge);
});

test("a passkey answer's challenge works once and for 5 minutes, for its own ceremony only; a refusal sets no cookie", async () => {
  const app = createApp();
  const signInWith = (answer: string, headers: Record<string, string> = {}) =>
    postForm(app, "/en/team/passkey-sign-in", { response: answer }, headers);
  const challengeOf = async (path: string, headers: Record<string, string> = {}, form = {}) => {
    const response = await postForm(app, path, form, { Accept: "application/json", ...headers });
    assert.equal(response.status, 200);
    return (await response.json()).challenge as string;
  };

  const first = forgeAnswer(await challengeOf("/en/team/passkey-sign-in/options"), "webauthn.get");
  const unknown = await signInWith(first);
  assert.equal(unknown.status, 401);
  assert.equal(unknown.headers.get("Set-Cookie"), null);
  assert.match(await unknown.text(), /This passkey is not known/);
  const replayed = await signInWith(first);
  assert.equal(replayed.status, 410, "the challenge was used up by the first answer");
  assert.match(await replayed.text(), /The request expired/);

  const late = forgeAnswer(await challengeOf("/en/team/passkey-sign-in/options"), "webauthn.get");
  app.clock.advance({ minutes: 5, seconds: 1 });
  const expired = await signInWith(late);
  assert.equal(expired.status, 410);
  await expired.body?.cancel();

  const cookie = await signIn(app);
  const desk = await openDesk(app, cookie);
  const registration = await challengeOf("/en/team/passkey/options", { Cookie: cookie }, {
    form_token: desk.token ?? "",
  });
  const crossed = await signInWith(forgeAnswer(registration, "webauthn.get"));
  assert.equal(crossed.status, 410, "a registration's challenge does not sign in");
  await crossed.body?.cancel();

  const forged = await postForm(app, "/en/team/passkey", {
    form_token: desk.token ?? "",
    action: "register",
    response: forgeAnswer(
      await challengeOf("/en/team/passkey/options", { Cookie: cookie }, {
        form_token: desk.token ?? "",
      }),
      "webauthn.create",
    ),
  }, { Cookie: cookie });
  assert.equal(forged.status, 303);
  assert.equal(forged.headers.get("Location"), "/en/team/passkeys?notice=passkey-refused");
  await forged.body?.cancel();
  assert.match(
    (await openDesk(app, cookie, "/equipa/chaves")).html,
    /Ainda não guardou nenhuma chave de acesso/,
  );

  const crossSite = await signInWith(first, { Origin: "https://evil.example" });
  assert.equal(crossSite.status, 403);
  await crossSite.body?.cancel();
  const garbage = await signInWith("{not json");
  assert.equal(garbage.status, 401);
  await garbage.body?.cancel();
});

test("a passkey id that is not base64url of at most 1,366 characters is refused with a 400 page, on removal and at sign-in", async () => {
  const app = createApp();
  const cookie = await signIn(app);
  const desk = await openDesk(app, cookie);
  for (const id of ["a".repeat(1367), "a".repeat(3000), "not base64url!", ""]) {
    const removed = await postForm(app, "/en/team/passkey", {
      form_token: desk.token ?? "",
      action: "remove",
      id,
    }, { Cookie: cookie });
    assert.equal(removed.status, 400, `remove ${id.slice(0, 20)}`);
    assert.match(await removed.text(), /The form did not arrive whole/);
  }
  const unknown = await postForm(app, "/en/team/passkey", {
    form_token: desk.token ?? "",
    action: "remove",
    id: "a".repeat(1366),
  }, { Cookie: cookie });
  assert.equal(unknown.status, 303, "an id of the longest shape is looked up");
  assert.equal(unknown.headers.get("Location"), "/en/team/passkeys?notice=not-found");
  await unknown.body?.cancel();

  const options = await postForm(app, "/en/team/passkey-sign-in/options", {}, {
    Accept: "application/json",
  });
  const { challenge } = await options.json();
  const answer = JSON.parse(forgeAnswer(challenge, "webauthn.get"));
  const tooLong = JSON.stringify({ ...answer, id: "a".repeat(3000), rawId: "a".repeat(3000) });
  const signedIn = await postForm(app, "/en/team/passkey-sign-in", { response: tooLong });
  assert.equal(signedIn.status, 400);
  assert.equal(signedIn.headers.get("Set-Cookie"), null);
  assert.match(await signedIn.text(), /The form did not arrive whole/);
  const saved = await postForm(app, "/en/team/passkey", {
    form_token: desk.token ?? "",
    action: "register",
    response: JSON.stringify({ ...JSON.parse(forgeAnswer(challenge, "webauthn.create")), id: "=" }),
  }, { Cookie: cookie });
  assert.equal(saved.status, 400);
  await saved.body?.cancel();
});
