import { test } from "node:test";
import assert from "node:assert/strict";
import { createFixedClock, createMemoryMailer, createMemoryStore } from "../../testing.ts";
import { resolveServices } from "../../lib/resolve_services.ts";
import { ApiError } from "../../lib/contract/api_error.ts";
import { ERASURE_PREFIX } from "../../lib/privacy/personal_data.ts";
import type { SiteServices } from "../../lib/services.ts";
import type { Store } from "../../lib/store/store.ts";
import { AUDIT_PREFIX, type AuditEntry } from "../../lib/team/audit_trail.ts";
import { FEED_SECRET_KEY } from "../../lib/team/calendar_feed.ts";
import type { TeamDeskActions } from "../../lib/team/desk_actions.ts";
import { createSession } from "../../lib/team/sessions.ts";
import type { TeamLocale, TeamRoute } from "../../lib/team/team.ts";
import { createTeamDesk } from "../../routes/team.ts";
import { createTeamDeskActions } from "../../routes/team_desk_actions.ts";
import { buildRequest, createRecordingLogger } from "../_support.ts";
import { STUDIO_DEFAULTS } from "../_studio_defaults.ts";

const MEMBER = "ana@studio.example";
const HTML = { Accept: "text/html" };

/** The calls an implementation of the desk's actions received. */
type Calls = string[];

/**
 * An implementation of the desk's actions for these tests: the desk's side of the interface
 * (its forms, checks, audit entries and answers) is what is under test here; the personal-data
 * and calendar modules test their own side. The actions that commit write the desk's additions
 * to `store` in a commit of their own, as the real ones do.
 */
function createActions(calls: Calls, store: Store): TeamDeskActions {
  const commit = async (add: (operation: ReturnType<Store["atomic"]>) => void) => {
    const operation = store.atomic().set(["test_action", calls.length], calls.length);
    add(operation);
    assert.ok((await operation.commit()).ok);
  };
  return {
    exportPersonalData(email, actor) {
      calls.push(`export ${email} by ${actor}`);
      return Promise.resolve({
        filename: "personal-data 2026.json",
        json: JSON.stringify({ email, inquiries: [] }),
      });
    },
    async erasePersonalData(email, { actor, discardUndelivered, withCommit }) {
      calls.push(`erase ${email} by ${actor}${discardUndelivered ? ", discarding" : ""}`);
      const summary = { counts: { inquiries: 2, bookings: 1, mail: 0 } };
      await commit((operation) => withCommit?.(operation, summary));
      return summary;
    },
    async renewCalendarFeed({ actor, withCommit }) {
      calls.push(`renew by ${actor}`);
      await commit((operation) => withCommit?.(operation));
      return { url: "http://localhost:8000/calendar/new-secret.ics" };
    },
    readCalendarFeedUrl: () => Promise.resolve("http://localhost:8000/calendar/old-secret.ics"),
  };
}

/**
 * The desk's handlers over a store where `MEMBER` has a session, and that session's cookie, with
 * the actions `makeActions` makes over the site's services.
 */
async function createDesk(makeActions: (site: SiteServices) => TeamDeskActions) {
  const store = createMemoryStore();
  const clock = createFixedClock("2026-11-21T10:00:00Z");
  const logger = createRecordingLogger();
  const services = resolveServices({
    store,
    clock,
    logger,
    secret: "desk-actions-secret-0123456789abcdef",
    team: [MEMBER],
    mailer: createMemoryMailer(),
  }, STUDIO_DEFAULTS);
  const site: SiteServices = { ...services, content: await services.loadContent() };
  const operation = store.atomic();
  const { sessionId, session } = await createSession(services, operation, {
    email: MEMBER,
    generation: 0,
  });
  assert.ok((await operation.commit()).ok);
  const desk = createTeamDesk(site, () => Promise.resolve(makeActions(site)));
  const call = async (
    route: TeamRoute,
    method: "GET" | "POST",
    options: { locale?: TeamLocale; path: string; form?: Record<string, string> },
  ): Promise<Response> => {
    const init: RequestInit = method === "POST"
      ? {
        method,
        headers: {
          ...HTML,
          Cookie: `studio-team=${sessionId}`,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ form_token: session.formToken, ...options.form }),
      }
      : { headers: { ...HTML, Cookie: `studio-team=${sessionId}` } };
    const handlers = desk(route, method, options.locale ?? "pt");
    const answer = await handlers.handle(buildRequest(options.path, init), {
      pathname: options.path,
      clientKey: "203.0.113.7",
    });
    assert.ok(answer instanceof Response);
    return answer;
  };
  return { call, store, logger };
}

/** The audit entries of the store, oldest first, with their versionstamps. */
async function listAudit(store: Store) {
  const entries = [];
  for await (const entry of store.list<AuditEntry>({ prefix: AUDIT_PREFIX })) entries.push(entry);
  return entries;
}

test("the desk shows the personal-data and calendar sections when their actions are given", async () => {
  const { call } = await createDesk((site) => createActions([], site.store));
  const overview = await (await call("desk", "GET", { path: "/equipa" })).text();
  assert.match(overview, /<a href="\/equipa\/dados" data-section="personal-data">/);
  assert.match(overview, /<a href="\/equipa\/agenda" data-section="calendar-feed">/);
  const html = await (await call("personalData", "GET", { path: "/equipa/dados" })).text();
  assert.match(html, /<h1>Dados pessoais<\/h1>/);
  assert.match(html, /<form method="post" action="\/equipa\/dados">/);
  assert.match(html, /<input type="checkbox" name="confirm" value="yes" required>/);
  assert.match(html, /<input type="checkbox" name="discard" value="yes"> Apagar mesmo que/);
  assert.match(html, /<button type="submit" class="danger">Apagar<\/button>/);
  const feed = await (await call("calendarFeed", "GET", { path: "/equipa/agenda" })).text();
  assert.match(feed, /<h1>Calendário da equipa<\/h1>/);
  assert.match(feed, /<code>http:\/\/localhost:8000\/calendar\/old-secret\.ics<\/code>/);
  assert.match(feed, /<form method="post" action="\/equipa\/agenda">/);
});

test("without the actions the desk hides their sections and refuses their forms", async () => {
  const { call } = await createDesk(() => ({}));
  const html = await (await call("desk", "GET", { path: "/en/team", locale: "en" })).text();
  assert.doesNotMatch(html, /personal-data|calendar-feed/);
  const exported = await call("personalData", "POST", {
    path: "/equipa/dados",
    form: { action: "export", email: "rita@example.pt" },
  });
  assert.equal(exported.status, 400);
  await exported.body?.cancel();
  const renewed = await call("calendarFeed", "POST", { path: "/equipa/agenda" });
  assert.equal(renewed.status, 404);
  await renewed.body?.cancel();
  for (const route of ["personalData", "calendarFeed"] as const) {
    const page = await call(route, "GET", { path: "/en/team/x", locale: "en" });
    assert.equal(page.status, 404, route);
    await page.body?.cancel();
  }
});

test("POST /equipa/dados exports an address as a JSON download and records it", async () => {
  const calls: Calls = [];
  const { call } = await createDesk((site) => createActions(calls, site.store));
  const response = await call("personalData", "POST", {
    path: "/equipa/dados",
    form: { action: "export", email: " Rita@Example.pt " },
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "application/json; charset=utf-8");
  assert.equal(
    response.headers.get("Content-Disposition"),
    'attachment; filename="personal-data_2026.json"',
  );
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.deepEqual(await response.json(), { email: "rita@example.pt", inquiries: [] });
  assert.deepEqual(calls, ["export rita@example.pt by ana@studio.example"]);
  const desk = await (await call("audit", "GET", { path: "/equipa/registo" })).text();
  assert.match(desk, /ana@studio\.example exportou os dados de um endereço/);
  assert.doesNotMatch(desk, /rita@example\.pt/, "the trail names no visitor");
});

test("POST /equipa/dados erases only once confirmed, and records the counts without the address", async () => {
  const calls: Calls = [];
  const { call } = await createDesk((site) => createActions(calls, site.store));
  const unconfirmed = await call("personalData", "POST", {
    path: "/equipa/dados",
    form: { action: "erase", email: "rita@example.pt" },
  });
  assert.equal(unconfirmed.status, 400);
  assert.match(await unconfirmed.text(), /Marque a confirmação/);
  assert.deepEqual(calls, []);
  const erased = await call("personalData", "POST", {
    path: "/en/team/personal-data",
    locale: "en",
    form: { action: "erase", email: "rita@example.pt", confirm: "yes" },
  });
  assert.equal(erased.status, 200);
  assert.match(await erased.text(), /These records were erased: inquiries: 2, bookings: 1\./);
  assert.deepEqual(calls, ["erase rita@example.pt by ana@studio.example"]);
  const desk = await (await call("audit", "GET", { path: "/en/team/audit", locale: "en" })).text();
  assert.match(
    desk,
    /ana@studio\.example erased the data of an address \(inquiries: 2, bookings: 1, mail: 0\)/,
  );
  assert.doesNotMatch(desk, /rita@example\.pt/);
});

test("POST /equipa/agenda renews the feed's secret, answers 303 to the desk's calendar page, and records it", async () => {
  const calls: Calls = [];
  const { call } = await createDesk((site) => createActions(calls, site.store));
  const response = await call("calendarFeed", "POST", { path: "/equipa/agenda" });
  // POST, redirect, GET: a reload of what the browser shows renews nothing a second time.
  assert.equal(response.status, 303);
  assert.equal(response.headers.get("Location"), "/equipa/agenda?notice=feed-renewed");
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  await response.body?.cancel();
  assert.deepEqual(calls, ["renew by ana@studio.example"]);
  const shown = await (await call("calendarFeed", "GET", {
    path: "/equipa/agenda?notice=feed-renewed",
  })).text();
  assert.match(shown, /role="status">Segredo renovado: o endereço antigo do calendário/);
  assert.deepEqual(calls, ["renew by ana@studio.example"], "showing the page renews nothing");
  const desk = await (await call("audit", "GET", { path: "/equipa/registo" })).text();
  assert.match(desk, /ana@studio\.example renovou o segredo do calendário/);
});

test("POST /equipa/dados shows what the erasure refuses with its message, hint and 400, and erases a neighbouring address", async () => {
  const { call, store, logger } = await createDesk(createTeamDeskActions);
  const erase = (email: string) =>
    call("personalData", "POST", {
      path: "/en/team/personal-data",
      locale: "en",
      form: { action: "erase", email, confirm: "yes" },
    });
  // Over 254 characters: a valid address for the form's check, too long for the erasure.
  const tooLong = await erase(`${"a".repeat(250)}@example.pt`);
  assert.equal(tooLong.status, 400);
  const tooLongPage = await tooLong.text();
  assert.match(tooLongPage, /is not an e-mail address/);
  assert.match(tooLongPage, /Give the address the person wrote with/);
  const own = await erase(MEMBER);
  assert.equal(own.status, 400);
  const ownPage = await own.text();
  assert.match(ownPage, /&quot;ana@studio\.example&quot; is the studio&#39;s own address/);
  assert.match(ownPage, /Export and erasure are for a visitor&#39;s data/);
  assert.equal((await listAudit(store)).filter(({ value }) => value.action === "erase").length, 0);

  // The member ana@studio.example erases na@studio.example: a different address.
  const neighbour = await erase("na@studio.example");
  assert.equal(neighbour.status, 200);
  assert.match(await neighbour.text(), /Nothing was stored about this address\./);
  const [entry] = (await listAudit(store)).filter(({ value }) => value.action === "erase");
  assert.equal(entry.value.actor, MEMBER);
  const erasures = [];
  for await (const record of store.list({ prefix: ERASURE_PREFIX })) erasures.push(record);
  assert.equal(erasures.length, 1);
  assert.equal(entry.versionstamp, erasures[0].versionstamp, "the entry commits with the record");
  assert.ok(!logger.records.some((line) => line.level === "error"), "a refusal is no failure");
});

test("POST /equipa/dados shows a 503 with the erasure's hint, and passes the desk's option to discard undelivered mail", async () => {
  const calls: Calls = [];
  const { call, store, logger } = await createDesk((site) => ({
    ...createActions(calls, site.store),
    async erasePersonalData(email, request) {
      calls.push(`erase ${email}${request.discardUndelivered ? ", discarding" : ""}`);
      if (!request.discardUndelivered) {
        throw new ApiError("no-backend", {
          status: 503,
          message: "1 e-mail(s) of upcoming bookings could not be delivered yet",
          hint: "Erase again once the mail server takes them, or erase discarding them",
        });
      }
      return await createActions([], site.store).erasePersonalData!(email, request);
    },
  }));
  const form = { action: "erase", email: "rita@example.pt", confirm: "yes" };
  const refused = await call("personalData", "POST", { path: "/equipa/dados", form });
  assert.equal(refused.status, 503);
  const page = await refused.text();
  assert.match(page, /1 e-mail\(s\) of upcoming bookings could not be delivered yet/);
  assert.match(page, /erase discarding them/);
  assert.ok(!logger.records.some((line) => line.level === "error"));
  assert.ok(logger.records.some((line) => line.message === "A desk action could not be done"));
  assert.equal((await listAudit(store)).filter(({ value }) => value.action === "erase").length, 0);
  const erased = await call("personalData", "POST", {
    path: "/equipa/dados",
    form: { ...form, discard: "yes" },
  });
  assert.equal(erased.status, 200);
  await erased.body?.cancel();
  assert.deepEqual(calls, ["erase rita@example.pt", "erase rita@example.pt, discarding"]);
  assert.equal((await listAudit(store)).filter(({ value }) => value.action === "erase").length, 1);
});

test("POST /equipa/agenda writes its audit entry in the commit of the new secret", async () => {
  const { call, store } = await createDesk(createTeamDeskActions);
  const response = await call("calendarFeed", "POST", { path: "/equipa/agenda" });
  assert.equal(response.status, 303);
  await response.body?.cancel();
  const secret = await store.get<{ secret: string }>(FEED_SECRET_KEY);
  assert.ok(secret.value);
  const desk = await (await call("calendarFeed", "GET", { path: "/equipa/agenda" })).text();
  assert.ok(desk.includes(secret.value.secret), "the calendar's page shows the new key");
  const [entry] = (await listAudit(store)).filter(({ value }) => value.action === "feed-renewed");
  assert.equal(entry.value.actor, MEMBER);
  assert.equal(entry.versionstamp, secret.versionstamp);
});
