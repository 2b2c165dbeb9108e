/**
 * The desk's pages and actions, behind a session (see `_team_pages.ts`). Its pages (GET): the
 * overview (`/equipa`, `/en/team`), a page per section (inquiries, bookings, personal data, the
 * calendar feed, passkeys, the audit trail; paths in `TEAM_PATHS`), the lists paged by
 * `?page=`, searched by `?q=` and filtered by `?show=`, a page per booking and inquiry with its
 * history, and the second step of a booking's decline or cancel. Its forms POST to confirm,
 * decline or cancel a booking (through the same transitions and e-mails as the signed links),
 * mark an inquiry answered or open, export or erase an address's personal data, renew the
 * calendar feed's secret, and sign out. Each action is recorded in the audit trail (in the
 * action's own commit where it commits to the store) and answered by a redirect to the page of
 * what it changed with a notice (POST, redirect, GET), or by a page of its own. An action's
 * refusal (an `ApiError`) is shown with its message, hint and status; any other failure answers
 * 503.
 *
 * @module
 */
import { ApiError } from "../lib/contract/api_error.ts";
import { isEmailAddress } from "../lib/contract/fields.ts";
import { escapeHtml } from "../lib/mail/mail.ts";
import { loadOnce } from "../lib/load_once.ts";
import type { BookingAction } from "../lib/booking/signed_links.ts";
import { addAuditEntry, recordAudit } from "../lib/team/audit_trail.ts";
import {
  BOOKING_FILTERS,
  type BookingFilter,
  type DeskCounts,
  INQUIRY_FILTERS,
  readAuditFor,
  readAuditList,
  readBookingList,
  readDeskCounts,
  readInquiryList,
  readMailHistory,
  readRecord,
  toSearch,
} from "../lib/team/desk_data.ts";
import { DESK_NOTICES, DESK_WORDS, type DeskNotice } from "../lib/team/desk_words.ts";
import { type DeskView, renderMessage } from "../lib/team/render_desk.ts";
import { type DeskOffer, renderDeskFrame } from "../lib/team/desk_sections.ts";
import {
  type ListQuery,
  renderAuditList,
  renderBookingList,
  renderInquiryList,
  renderOverview,
} from "../lib/team/render_desk_lists.ts";
import {
  type BookingStep,
  isStepPossible,
  renderBookingPage,
  renderBookingStep,
  renderInquiryPage,
} from "../lib/team/render_desk_records.ts";
import {
  renderCalendarFeedPage,
  renderPasskeysPage,
  renderPersonalDataPage,
} from "../lib/team/render_desk_settings.ts";
import { buildClearedCookie, signOut } from "../lib/team/sessions.ts";
import {
  isRecordId,
  readRecordId,
  TEAM_PATHS,
  type TeamLocale,
  type TeamRecordRoute,
  type TeamRoute,
  toRecordPath,
} from "../lib/team/team.ts";
import { answerProblem, type DeskRequest, type TeamPages, withSession } from "./_team_pages.ts";
import type { PasskeyHandlers } from "./team_passkeys.ts";
import { listPasskeys, type PasskeyRecord } from "../lib/team/passkey_records.ts";
import type { TeamDeskActions } from "../lib/team/desk_actions.ts";
import type { BookingRecord } from "../lib/booking/booking_mail.ts";
import type { InquiryRecord } from "../lib/contact/inquiries.ts";
import type { WebhookDeskOutcome } from "../lib/webhooks/webhooks_desk.ts";

/** The desk's webhooks: its data and actions, and its page. */
type WebhookModules = [
  typeof import("../lib/webhooks/webhooks_desk.ts"),
  typeof import("../lib/webhooks/render_webhooks_desk.ts"),
];

/** The booking engine and inquiries' store, loaded by the desk's first action. */
type DeskModules = [
  typeof import("../lib/booking/bookings.ts"),
  typeof import("../lib/contact/inquiries.ts"),
];

/** Where a desk action leads: the page of what it changed, with a notice. */
function redirectWithNotice(path: string, notice: DeskNotice): Response {
  return new Response(null, {
    status: 303,
    headers: { Location: `${path}?notice=${notice}`, "Cache-Control": "no-store" },
  });
}

/** The team's note, as plain text: control characters but line breaks removed, 1,000 at most. */
function cleanNote(value: string | null): string | undefined {
  // deno-lint-ignore no-control-regex -- removing control characters is the point
  const controls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;
  const note = (value ?? "").replace(/\r\n?/g, "\n").replace(controls, "").trim().slice(0, 1000);
  return note || undefined;
}

/** What a page of the desk is rendered with. */
function toView(pages: TeamPages, desk: DeskRequest): DeskView {
  const query = new URL(desk.request.url).searchParams;
  const notice = DESK_NOTICES.find((name) => name === query.get("notice"));
  return {
    locale: desk.locale,
    timeZone: pages.services.schedule.timeZone,
    email: desk.session.email,
    formToken: desk.session.formToken,
    nowEpochMs: pages.services.clock.now().epochMilliseconds,
    ...(notice ? { notice } : {}),
  };
}

/** The sections the service offers, by the actions it was given and its webhook endpoints. */
function toOffer(actions: TeamDeskActions, pages: TeamPages): DeskOffer {
  return {
    personalData: actions.exportPersonalData !== undefined ||
      actions.erasePersonalData !== undefined,
    calendarFeed: actions.renewCalendarFeed !== undefined,
    webhooks: pages.services.outbox.webhookEndpoints().length > 0,
  };
}

/** What a page's content may use besides its view. */
interface DeskPageContext {
  offer: DeskOffer;
  actions: TeamDeskActions;
  passkeys: readonly PasskeyRecord[];
}

/** A page of the desk: its section, title, content, and where its language switch leads. */
interface DeskPageSpec {
  /** The section it belongs to (see `DESK_SECTIONS`). */
  section: string;
  title: string;
  content(view: DeskView, context: DeskPageContext): string | Promise<string>;
  /** Whether it is a section's own page or one of its records'. @default {"page"} */
  depth?: "page" | "record";
  /** @default {200} */
  status?: number;
  otherLanguagePath?: string;
  /** The counts, when the page has read them already. @default {read} */
  counts?: DeskCounts;
  /** The page runs the passkey script. */
  passkeys?: boolean;
}

/**
 * A page of the desk in its frame: the sections' navigation with their counts beside the page's
 * content, under the desk's header.
 */
async function answerDeskPage(
  pages: TeamPages,
  desk: DeskRequest,
  spec: DeskPageSpec,
): Promise<Response> {
  const { store } = pages.services;
  const view = toView(pages, desk);
  const [counts, passkeys, actions] = await Promise.all([
    spec.counts ?? readDeskCounts(store, view.nowEpochMs),
    listPasskeys(store, desk.session.email),
    pages.loadActions(),
  ]);
  const offer = toOffer(actions, pages);
  const content = await spec.content(view, { offer, actions, passkeys });
  return await pages.page(desk.request, desk.locale, {
    status: spec.status ?? 200,
    title: spec.title,
    mainHtml: renderDeskFrame({
      locale: desk.locale,
      current: spec.section,
      counts: { ...counts, passkeys: passkeys.length },
      offer,
      depth: spec.depth ?? "page",
    }, content),
    otherLanguagePath: spec.otherLanguagePath,
    passkeys: spec.passkeys,
    session: desk.session,
  });
}

/** What a list was asked for: its search, its filter among `filters`, its page. */
function readListQuery(
  request: Request,
  filters: readonly string[],
): ListQuery & { page: number } {
  const query = new URL(request.url).searchParams;
  const search = toSearch(query.get("q"));
  const show = query.get("show") ?? "";
  const page = Number.parseInt(query.get("page") ?? "1", 10);
  return {
    ...(search ? { search } : {}),
    ...(filters.includes(show) ? { filter: show } : {}),
    page: Number.isSafeInteger(page) && page > 0 ? page : 1,
  };
}

/** The same page in the other language: a section's, or a record's, with the list's query. */
function toOtherLanguagePath(
  locale: TeamLocale,
  target: { route: TeamRoute; id?: string; query?: ListQuery & { page?: number } },
): string {
  const other = locale === "pt" ? "en" : "pt";
  const path = target.id
    ? toRecordPath(other, target.route as TeamRecordRoute, target.id)
    : TEAM_PATHS[other][target.route];
  const fields = new URLSearchParams();
  if (target.query?.search) fields.set("q", target.query.search);
  if (target.query?.filter) fields.set("show", target.query.filter);
  if (target.query?.page && target.query.page > 1) fields.set("page", String(target.query.page));
  const text = fields.toString();
  return text ? `${path}?${text}` : path;
}

/** `GET /equipa`: the overview, what waits for the team. */
async function answerOverview(pages: TeamPages, desk: DeskRequest): Promise<Response> {
  const { store, clock } = pages.services;
  const nowEpochMs = clock.now().epochMilliseconds;
  const [pending, upcoming, open] = await Promise.all([
    readBookingList(store, { nowEpochMs, show: "pending" }),
    readBookingList(store, { nowEpochMs, show: "upcoming" }),
    readInquiryList(store, { state: "open" }),
  ]);
  return answerDeskPage(pages, desk, {
    section: "overview",
    title: DESK_WORDS[desk.locale].deskTitle,
    counts: {
      openInquiries: open.total,
      pendingBookings: pending.total,
      upcomingBookings: upcoming.total,
    },
    otherLanguagePath: toOtherLanguagePath(desk.locale, { route: "desk" }),
    content: (view) => renderOverview(view, { pending, upcoming, open }),
  });
}

/** `GET /equipa/pedidos` and `GET /equipa/reservas`: a list, paged, searched and filtered. */
async function answerList(
  pages: TeamPages,
  desk: DeskRequest,
  route: "inquiries" | "bookings",
): Promise<Response> {
  const { store, clock } = pages.services;
  const words = DESK_WORDS[desk.locale];
  const otherLanguagePath = (query: ListQuery & { page?: number }) =>
    toOtherLanguagePath(desk.locale, { route, query });
  if (route === "inquiries") {
    const query = readListQuery(desk.request, INQUIRY_FILTERS);
    const list = await readInquiryList(store, {
      ...query,
      state: query.filter as typeof INQUIRY_FILTERS[number] | undefined,
    });
    return answerDeskPage(pages, desk, {
      section: "inquiries",
      title: words.inquiries,
      otherLanguagePath: otherLanguagePath({ ...query, page: list.page }),
      content: (view) => renderInquiryList(view, list, query),
    });
  }
  const query = readListQuery(desk.request, BOOKING_FILTERS);
  const list = await readBookingList(store, {
    ...query,
    nowEpochMs: clock.now().epochMilliseconds,
    show: query.filter as BookingFilter | undefined,
  });
  return answerDeskPage(pages, desk, {
    section: "bookings",
    title: words.bookings,
    otherLanguagePath: otherLanguagePath({ ...query, page: list.page }),
    content: (view) => renderBookingList(view, list, query),
  });
}

/** A record's page that has nothing to show: 404, in the frame of its section. */
function answerMissingRecord(
  pages: TeamPages,
  desk: DeskRequest,
  section: "inquiries" | "bookings",
): Promise<Response> {
  const words = DESK_WORDS[desk.locale];
  const list = TEAM_PATHS[desk.locale][section];
  return answerDeskPage(pages, desk, {
    section,
    depth: "record",
    status: 404,
    title: words.record,
    content: () =>
      `<h1>${words.record}</h1>\n<p>${words.recordMissing}</p>\n<p><a href="${list}">${
        escapeHtml(words.backTo(words[section]))
      }</a></p>`,
  });
}

/**
 * `GET /equipa/reservas/:id` (and its decline and cancel steps) and `GET /equipa/pedidos/:id`:
 * one record, whole, with its history; or a step of a booking's undoing.
 */
async function answerRecord(
  pages: TeamPages,
  desk: DeskRequest,
  route: TeamRecordRoute,
): Promise<Response> {
  const { store } = pages.services;
  const { locale } = desk;
  const words = DESK_WORDS[locale];
  const kind = route === "inquiryRecord" ? "inquiry" : "booking";
  const section = kind === "inquiry" ? "inquiries" : "bookings";
  const id = readRecordId(locale, route, new URL(desk.request.url).pathname);
  const record = id ? await readRecord(store, kind, id) : undefined;
  if (!id || !record) return answerMissingRecord(pages, desk, section);
  const base = {
    section,
    depth: "record" as const,
    otherLanguagePath: toOtherLanguagePath(locale, { route, id }),
  };
  if (route === "bookingDecline" || route === "bookingCancel") {
    return answerBookingStep(pages, desk, {
      ...base,
      record: record as BookingRecord,
      step: route === "bookingDecline" ? "decline" : "cancel",
    });
  }
  const history = {
    audit: await readAuditFor(store, id),
    mails: await readMailHistory(store, record.mailIds),
  };
  if (kind === "inquiry") {
    const inquiry = record as InquiryRecord;
    return answerDeskPage(pages, desk, {
      ...base,
      title: `${inquiry.fields.Name} · ${words.inquiries}`,
      content: (view) => renderInquiryPage(view, inquiry, history),
    });
  }
  const booking = record as BookingRecord;
  return answerDeskPage(pages, desk, {
    ...base,
    title: `${booking.name} · ${words.bookings}`,
    content: (view) => renderBookingPage(view, booking, history),
  });
}

/** A booking's decline or cancel step: its form, or 409 when it is no longer possible. */
function answerBookingStep(
  pages: TeamPages,
  desk: DeskRequest,
  target: { record: BookingRecord; step: BookingStep; otherLanguagePath: string },
): Promise<Response> {
  const { record, step } = target;
  const words = DESK_WORDS[desk.locale];
  const possible = isStepPossible(toView(pages, desk), record, step);
  const back = toRecordPath(desk.locale, "bookingRecord", record.id);
  return answerDeskPage(pages, desk, {
    section: "bookings",
    depth: "record",
    status: possible ? 200 : 409,
    otherLanguagePath: target.otherLanguagePath,
    title: step === "decline" ? words.declineTitle(record.name) : words.cancelTitle(record.name),
    content: (view) =>
      possible
        ? renderBookingStep(view, record, step)
        : `<h1>${escapeHtml(record.name)}</h1>\n<p>${words.notPossible}</p>\n<p><a href="${back}">${
          escapeHtml(words.backTo(record.name))
        }</a></p>`,
  });
}

/** The pages of the desk's tools: personal data, the calendar feed, passkeys, the audit trail. */
async function answerToolPage(
  pages: TeamPages,
  desk: DeskRequest,
  route: "personalData" | "calendarFeed" | "passkeys" | "audit",
): Promise<Response> {
  const { locale, request } = desk;
  const words = DESK_WORDS[locale];
  const otherLanguagePath = toOtherLanguagePath(locale, { route });
  if (route === "audit") {
    const { page } = readListQuery(request, []);
    const list = await readAuditList(pages.services.store, page);
    return answerDeskPage(pages, desk, {
      section: "audit",
      title: words.audit,
      otherLanguagePath: toOtherLanguagePath(locale, { route, query: { page: list.page } }),
      content: (view) => renderAuditList(view, list),
    });
  }
  if (route === "passkeys") {
    return answerDeskPage(pages, desk, {
      section: "passkeys",
      title: words.passkeys,
      otherLanguagePath,
      passkeys: true,
      content: (view, { passkeys }) => renderPasskeysPage(view, passkeys),
    });
  }
  const offer = toOffer(await pages.loadActions(), pages);
  if (!offer[route]) {
    return answerProblem(pages, request, { locale, status: 404, text: words.badForm });
  }
  return answerDeskPage(pages, desk, {
    section: route === "personalData" ? "personal-data" : "calendar-feed",
    title: route === "personalData" ? words.personalData : words.calendarFeed,
    otherLanguagePath,
    content: async (view, { actions }) =>
      route === "personalData"
        ? renderPersonalDataPage(view, {
          canExport: actions.exportPersonalData !== undefined,
          canErase: actions.erasePersonalData !== undefined,
        })
        : renderCalendarFeedPage(view, await actions.readCalendarFeedUrl?.()),
  });
}

/**
 * `POST /equipa/reserva`: confirm, decline or cancel (with a note), as the signed links do; the
 * decline's and cancel's forms are on their second step's page.
 */
async function answerBookingAction(
  pages: TeamPages,
  desk: DeskRequest,
  [{ applyBookingAction }]: DeskModules,
): Promise<Response> {
  const { services } = pages;
  const { request, locale, session, form } = desk;
  const id = form.get("id") ?? "";
  const action = form.get("action") as BookingAction;
  if (!isRecordId(id) || !["confirm", "decline", "cancel"].includes(action)) {
    const text = DESK_WORDS[locale].badForm;
    return answerProblem(pages, request, { locale, status: 400, text });
  }
  const outcome = await applyBookingAction(services, action, id, {
    note: cleanNote(form.get("note")),
    withCommit: (operation) =>
      addAuditEntry(operation, services.clock.now(), {
        actor: session.email,
        action,
        subject: id,
      }),
  });
  const done = { confirm: "confirmed", decline: "declined", cancel: "cancelled" } as const;
  const notice: DeskNotice = outcome.kind === "done" ? done[action] : outcome.kind;
  return redirectWithNotice(toRecordPath(locale, "bookingRecord", id), notice);
}

/** `POST /equipa/pedido`: marks an inquiry answered, or open again. */
async function answerInquiryState(
  pages: TeamPages,
  desk: DeskRequest,
  [, { setInquiryState }]: DeskModules,
): Promise<Response> {
  const { services } = pages;
  const { request, locale, session, form } = desk;
  const id = form.get("id") ?? "";
  const state = form.get("state");
  if (!isRecordId(id) || (state !== "answered" && state !== "open")) {
    const text = DESK_WORDS[locale].badForm;
    return answerProblem(pages, request, { locale, status: 400, text });
  }
  const outcome = await setInquiryState(services, id, {
    state,
    actor: session.email,
    withCommit: (operation) =>
      addAuditEntry(operation, services.clock.now(), {
        actor: session.email,
        action: state === "answered" ? "inquiry-answered" : "inquiry-reopened",
        subject: id,
      }),
  });
  const notice: DeskNotice = outcome.kind === "done"
    ? (state === "answered" ? "answered" : "reopened")
    : outcome.kind;
  return redirectWithNotice(toRecordPath(locale, "inquiryRecord", id), notice);
}

/** `POST /equipa/sair`: signs out this session, or every session of the member. */
async function answerSignOut(pages: TeamPages, desk: DeskRequest): Promise<Response> {
  const { services } = pages;
  await signOut(services, desk.session, { everywhere: desk.form.get("everywhere") === "yes" });
  return new Response(null, {
    status: 303,
    headers: {
      Location: `${TEAM_PATHS[desk.locale].desk}?notice=signed-out`,
      "Set-Cookie": buildClearedCookie(services.baseUrl),
      "Cache-Control": "no-store",
    },
  });
}

/** `POST /equipa/dados`: exports (a JSON download) or erases an address's personal data. */
async function answerPersonalData(pages: TeamPages, desk: DeskRequest): Promise<Response> {
  const { services } = pages;
  const { request, locale, session, form } = desk;
  const words = DESK_WORDS[locale];
  const { exportPersonalData, erasePersonalData } = await pages.loadActions();
  const action = form.get("action");
  const email = (form.get("email") ?? "").trim().toLowerCase();
  const actor = session.email;
  if (isEmailAddress(email) && action === "export" && exportPersonalData) {
    const file = await exportPersonalData(email, actor);
    await recordAudit(services.store, services.clock.now(), { actor, action: "export" });
    return new Response(file.json, {
      headers: {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Disposition": `attachment; filename="${file.filename.replace(/[^\w.-]/g, "_")}"`,
        "Cache-Control": "no-store",
        "X-Robots-Tag": "noindex",
      },
    });
  }
  if (!isEmailAddress(email) || action !== "erase" || !erasePersonalData) {
    return answerProblem(pages, request, { locale, status: 400, text: words.badForm });
  }
  if (form.get("confirm") !== "yes") {
    return answerProblem(pages, request, { locale, status: 400, text: words.eraseUnconfirmed });
  }
  const { counts } = await erasePersonalData(email, {
    actor,
    discardUndelivered: form.get("discard") === "yes",
    withCommit: (operation, summary) =>
      addAuditEntry(operation, services.clock.now(), {
        actor,
        action: "erase",
        details: summary.counts,
      }),
  });
  const listed = Object.entries(counts).filter(([, count]) => count > 0);
  return await pages.page(request, locale, {
    status: 200,
    session,
    title: words.erasedTitle,
    mainHtml: renderMessage(locale, {
      title: words.erasedTitle,
      text: listed.length
        ? `${words.erased} ${listed.map(([kind, count]) => `${kind}: ${count}`).join(", ")}.`
        : words.nothingErased,
      back: "desk",
    }),
  });
}

/** `POST /equipa/agenda`: renews the calendar feed's secret and shows the new address once. */
async function answerCalendarFeed(pages: TeamPages, desk: DeskRequest): Promise<Response> {
  const { services } = pages;
  const { request, locale, session } = desk;
  const words = DESK_WORDS[locale];
  const actions = await pages.loadActions();
  if (!actions.renewCalendarFeed) {
    return answerProblem(pages, request, { locale, status: 404, text: words.badForm });
  }
  await actions.renewCalendarFeed({
    actor: session.email,
    withCommit: (operation) =>
      addAuditEntry(operation, services.clock.now(), {
        actor: session.email,
        action: "feed-renewed",
      }),
  });
  // POST, redirect, GET: a reload or a second click shows the page, and renews nothing again.
  return redirectWithNotice(TEAM_PATHS[locale].calendarFeed, "feed-renewed");
}

/**
 * `GET /equipa/webhooks`: the webhook endpoints, their state and the latest deliveries, with the
 * forms that send a test event and enable an endpoint a 410 disabled (404 without webhooks).
 */
async function answerWebhooksPage(
  pages: TeamPages,
  desk: DeskRequest,
  [{ readWebhooksDesk }, { renderWebhooksDesk }]: WebhookModules,
): Promise<Response> {
  const { services } = pages;
  const { locale, request } = desk;
  if (services.outbox.webhookEndpoints().length === 0) {
    return answerProblem(pages, request, { locale, status: 404, text: DESK_WORDS[locale].badForm });
  }
  const webhooks = await readWebhooksDesk(services);
  const outcome = new URL(request.url).searchParams.get("notice");
  const notice = WEBHOOK_NOTICES.find((kind) => kind === outcome);
  return answerDeskPage(pages, desk, {
    section: "webhooks",
    title: "Webhooks",
    otherLanguagePath: toOtherLanguagePath(locale, { route: "webhooks" }),
    content: (view) =>
      renderWebhooksDesk(webhooks, {
        locale,
        timeZone: view.timeZone,
        formToken: view.formToken,
        paths: { test: TEAM_PATHS[locale].webhooksTest, enable: TEAM_PATHS[locale].webhooksEnable },
        // The delivery's id is on the page's list; the notice needs only the outcome.
        ...(notice ? { notice: { kind: notice } as WebhookDeskOutcome } : {}),
      }),
  });
}

/** What a webhook action's 303 may report (`?notice=`), as `WebhookDeskOutcome`'s kinds. */
const WEBHOOK_NOTICES = ["queued", "enabled", "already-active", "disabled", "not-found"] as const;

/**
 * `POST /equipa/webhooks/teste` and `…/reativar` (field `endpoint`, the endpoint's id): sends a
 * test event, or enables an endpoint again, with its audit entry; 303 to the webhooks page.
 */
async function answerWebhookAction(
  pages: TeamPages,
  desk: DeskRequest,
  route: "webhooksTest" | "webhooksEnable",
  [{ sendTestEvent, enableWebhookEndpoint }]: WebhookModules,
): Promise<Response> {
  const { services } = pages;
  const { locale, session, form } = desk;
  const endpoint = form.get("endpoint") ?? "";
  const action = route === "webhooksTest" ? sendTestEvent : enableWebhookEndpoint;
  const outcome = await action(services, endpoint, {
    actor: session.email,
    withCommit: (operation) =>
      addAuditEntry(operation, services.clock.now(), {
        actor: session.email,
        action: route === "webhooksTest" ? "webhook-test" : "webhook-enabled",
      }),
  });
  const target = new URL(TEAM_PATHS[locale].webhooks, "http://desk.invalid");
  target.searchParams.set("notice", outcome.kind);
  return new Response(null, {
    status: 303,
    headers: { location: target.pathname + target.search, "cache-control": "no-store" },
  });
}

/**
 * A page that shows an action's refusal: its message and hint, with its status (400 for what the
 * action refuses, 503 with the hint of what to do when it cannot be done yet).
 */
function answerRefusal(pages: TeamPages, desk: DeskRequest, error: ApiError): Promise<Response> {
  const { locale, request } = desk;
  const words = DESK_WORDS[locale];
  return pages.page(request, locale, {
    status: error.status,
    session: desk.session,
    title: words.deskTitle,
    headers: Object.entries(error.headers),
    mainHtml: [
      `<h1>${escapeHtml(words.deskTitle)}</h1>`,
      `<p>${escapeHtml(error.message)}</p>`,
      `<p class="small">${escapeHtml(error.hint)}</p>`,
      `<p><a href="${TEAM_PATHS[locale].desk}">${words.backToDesk}</a></p>`,
    ].join("\n"),
  });
}

/**
 * The handlers of the desk's routes, each behind the session guard; an action's refusal (an
 * `ApiError`) is shown as it is, and any other failure of the store (or of an action) answers a
 * 503 page and is logged.
 *
 * @param pages The pages' helpers.
 * @returns The handler of a route, by its role and language.
 */
export function createDeskHandlers(
  pages: TeamPages,
  passkeys: PasskeyHandlers,
): (route: TeamRoute, locale: TeamLocale) => (request: Request) => Promise<Response> {
  const loadModules = loadOnce((): Promise<DeskModules> =>
    Promise.all([import("../lib/booking/bookings.ts"), import("../lib/contact/inquiries.ts")])
  );
  // The webhooks' page and actions, loaded by their first use (only where webhooks are set).
  const loadWebhooks = loadOnce((): Promise<WebhookModules> =>
    Promise.all([
      import("../lib/webhooks/webhooks_desk.ts"),
      import("../lib/webhooks/render_webhooks_desk.ts"),
    ])
  );
  const answerPost = async (route: TeamRoute, desk: DeskRequest): Promise<Response> => {
    switch (route) {
      case "booking":
        return answerBookingAction(pages, desk, await loadModules());
      case "inquiry":
        return answerInquiryState(pages, desk, await loadModules());
      case "signOut":
        return answerSignOut(pages, desk);
      case "personalData":
        return answerPersonalData(pages, desk);
      case "calendarFeed":
        return answerCalendarFeed(pages, desk);
      case "passkey":
        return passkeys.changePasskey(desk);
      case "passkeyOptions":
        return passkeys.registrationOptions(desk);
      case "webhooksTest":
      case "webhooksEnable":
        return answerWebhookAction(pages, desk, route, await loadWebhooks());
      default:
        return answerProblem(pages, desk.request, {
          locale: desk.locale,
          status: 400,
          text: DESK_WORDS[desk.locale].badForm,
        });
    }
  };
  const answerGet = (route: TeamRoute, desk: DeskRequest): Promise<Response> => {
    switch (route) {
      case "inquiries":
      case "bookings":
        return answerList(pages, desk, route);
      case "inquiryRecord":
      case "bookingRecord":
      case "bookingDecline":
      case "bookingCancel":
        return answerRecord(pages, desk, route);
      case "personalData":
      case "calendarFeed":
      case "passkeys":
      case "audit":
        return answerToolPage(pages, desk, route);
      case "webhooks":
        return loadWebhooks().then((modules) => answerWebhooksPage(pages, desk, modules));
      default:
        return answerOverview(pages, desk);
    }
  };
  const answer = (route: TeamRoute, desk: DeskRequest) =>
    desk.request.method === "POST" ? answerPost(route, desk) : answerGet(route, desk);
  return (route, locale) =>
    withSession(pages, { route, locale }, (desk) => answerGuarded(pages, desk, route, answer));
}

/**
 * A desk route's answer, whatever its handler throws: an action's refusal (an `ApiError`) shown
 * as it is (logged when the service could not do it), any other failure a 503 page, logged.
 */
async function answerGuarded(
  pages: TeamPages,
  desk: DeskRequest,
  route: TeamRoute,
  answer: (route: TeamRoute, desk: DeskRequest) => Promise<Response>,
): Promise<Response> {
  try {
    return await answer(route, desk);
  } catch (error) {
    if (error instanceof ApiError) {
      if (error.status >= 500) {
        pages.services.logger.warn("A desk action could not be done", {
          route,
          code: error.code,
          error: error.message,
        });
      }
      return answerRefusal(pages, desk, error);
    }
    pages.services.logger.error("A desk action failed", { route, error: String(error) });
    const { locale } = desk;
    return answerProblem(pages, desk.request, {
      locale,
      status: 503,
      text: DESK_WORDS[locale].busy,
    });
  }
}
