import { test } from "node:test";
import assert from "node:assert/strict";
import { createFixedClock, createMemoryMailer, createMemoryStore } from "../../../testing.ts";
import { resolveServices } from "../../../lib/resolve_services.ts";
import type { SiteServices } from "../../../lib/services.ts";
import type { TeamDeskActions } from "../../../lib/team/desk_actions.ts";
import { createSession } from "../../../lib/team/sessions.ts";
import type { TeamLocale, TeamRoute } from "../../../lib/team/team.ts";
import { createTeamDesk } from "../../../routes/team.ts";
import { buildRequest } from "../_support.ts";
import { STUDIO_DEFAULTS } from "../_studio_defaults.ts";

const MEMBER = "ana@studio.example";
const HTML = { Accept: "text/html" };

/** The calls an implementation of the desk's actions received. */
type Calls = string[];

/**
 * An implementation of the desk's actions for these tests: the desk's side of the interface
 * (its forms, checks, audit entries and answers) is what is under test here; the personal-data
 * and calendar modules test their own side.
 */
function createActions(calls: Calls): TeamDeskActions {
  return {
    exportPersonalData(email, actor) {
      calls.push(`export ${email} by ${actor}`);
      return Promise.resolve({
        filename: "personal-data 2026.json",
        json: JSON.stringify({ email, inquiries: [] }),
      });
    },
    erasePersonalData(email, actor) {
      calls.push(`erase ${email} by ${actor}`);
      return Promise.resolve({ counts: { inquiries: 2, bookings: 1, mail: 0 } });
    },
    renewCalendarFeed(actor) {
      calls.push(`renew by ${actor}`);
      return Promise.resolve({ url: "http://localhost:8000/calendar/new-secret.ics" });
    },
    readCalendarFeedUrl: () => Promise.resolve("http://localhost:8000/calendar/old-secret.ics"),
  };
}

/** The desk's handlers over a store where `MEMBER` has a session, and that session's cookie. */
async function createDesk(actions: TeamDeskActions) {
  const store = createMemoryStore();
  const clock = createFixedClock("2026-11-21T10:00:00Z");
  const services = resolveServices({
    store,
    clock,
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
  const desk = createTeamDesk(site, () => Promise.resolve(actions));
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
  return { call, store };
}

test("the desk shows the personal-data and calendar sections when their actions are given", async () => {
  const { call } = await createDesk(createActions([]));
  const html = await (await call("desk", "GET", { path: "/equipa" })).text();
  assert.match(html, /<h2 id="personal-data">Dados pessoais<\/h2>/);
  assert.match(html, /<form method="post" action="\/equipa\/dados">/);
  assert.match(html, /<input type="checkbox" name="confirm" value="yes" required>/);
  assert.match(html, /<h2 id="calendar-feed">Calendário da equipa<\/h2>/);
  assert.match(html, /<code>http:\/\/localhost:8000\/calendar\/old-secret\.ics<\/code>/);
  assert.match(html, /<form method="post" action="\/equipa\/agenda">/);
});

test("without the actions the desk hides their sections and refuses their forms", async () => {
  const { call } = await createDesk({});
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
});

test("POST /equipa/dados exports an address as a JSON download and records it", async () => {
  const calls: Calls = [];
  const { call } = await createDesk(createActions(calls));
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
  const desk = await (await call("desk", "GET", { path: "/equipa" })).text();
  assert.match(desk, /ana@studio\.example exportou os dados de um endereço/);
  assert.doesNotMatch(desk, /rita@example\.pt/, "the trail names no visitor");
});

test("POST /equipa/dados erases only once confirmed, and records the counts without the address", async () => {
  const calls: Calls = [];
  const { call } = await createDesk(createActions(calls));
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
  const desk = await (await call("desk", "GET", { path: "/en/team", locale: "en" })).text();
  assert.match(
    desk,
    /ana@studio\.example erased the data of an address \(inquiries: 2, bookings: 1, mail: 0\)/,
  );
  assert.doesNotMatch(desk, /rita@example\.pt/);
});

test("POST /equipa/agenda renews the feed's secret, shows the new address once and records it", async () => {
  const calls: Calls = [];
  const { call } = await createDesk(createActions(calls));
  const response = await call("calendarFeed", "POST", { path: "/equipa/agenda" });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.match(
    await response.text(),
    /<code>http:\/\/localhost:8000\/calendar\/new-secret\.ics<\/code>/,
  );
  assert.deepEqual(calls, ["renew by ana@studio.example"]);
  const desk = await (await call("desk", "GET", { path: "/equipa" })).text();
  assert.match(desk, /ana@studio\.example renovou o segredo do calendário/);
});
