/**
 * The desk's page and actions, behind a session (see `_team_pages.ts`): `GET /equipa` (and
 * `/en/team`) lists inquiries, bookings and the audit trail, searched by e-mail with `?q=`; its
 * forms POST to confirm, decline or cancel a booking (through the same transitions and e-mails as
 * the signed links), mark an inquiry answered or open, export or erase an address's personal data,
 * renew the calendar feed's secret, and sign out. Each action is recorded in the audit trail (in
 * the action's own commit where it commits to the store) and answered by a redirect to the desk
 * with a notice (POST, redirect, GET), or by a page of its own. An action's refusal (an
 * `ApiError`) is shown with its message, hint and status; any other failure answers 503.
 *
 * @module
 */
import { ApiError } from "../lib/contract/api_error.ts";
import { isEmailAddress } from "../lib/contract/fields.ts";
import { escapeHtml } from "../lib/mail/mail.ts";
import { loadOnce } from "../lib/load_once.ts";
import type { BookingAction } from "../lib/booking/signed_links.ts";
import { addAuditEntry, recordAudit } from "../lib/team/audit_trail.ts";
import { readDesk } from "../lib/team/desk_data.ts";
import { DESK_NOTICES, DESK_WORDS, type DeskNotice } from "../lib/team/desk_words.ts";
import { type DeskView, renderDesk, renderMessage } from "../lib/team/render_desk.ts";
import { buildClearedCookie, signOut } from "../lib/team/sessions.ts";
import { TEAM_PATHS, type TeamLocale, type TeamRoute } from "../lib/team/team.ts";
import { answerProblem, type DeskRequest, type TeamPages, withSession } from "./_team_pages.ts";
import type { PasskeyHandlers } from "./team_passkeys.ts";
import { listPasskeys } from "../lib/team/passkey_records.ts";

/** The booking engine and inquiries' store, loaded by the desk's first action. */
type DeskModules = [
  typeof import("../lib/booking/bookings.ts"),
  typeof import("../lib/contact/inquiries.ts"),
];

/** Where a desk action leads: the desk, with a notice and the section to show. */
function redirectToDesk(locale: TeamLocale, notice: DeskNotice, section: string): Response {
  return new Response(null, {
    status: 303,
    headers: {
      Location: `${TEAM_PATHS[locale].desk}?notice=${notice}#${section}`,
      "Cache-Control": "no-store",
    },
  });
}

/** A booking's or an inquiry's id: a ULID. */
function isRecordId(value: string): boolean {
  return /^[0-9A-Z]{26}$/.test(value);
}

/** The team's note, as plain text: control characters but line breaks removed, 1,000 at most. */
function cleanNote(value: string | null): string | undefined {
  // deno-lint-ignore no-control-regex -- removing control characters is the point
  const controls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;
  const note = (value ?? "").replace(/\r\n?/g, "\n").replace(controls, "").trim().slice(0, 1000);
  return note || undefined;
}

/** `GET /equipa`: the desk. */
async function answerDesk(pages: TeamPages, desk: DeskRequest): Promise<Response> {
  const { services } = pages;
  const { request, locale, session } = desk;
  const query = new URL(request.url).searchParams;
  const notice = DESK_NOTICES.find((name) => name === query.get("notice"));
  const nowEpochMs = services.clock.now().epochMilliseconds;
  try {
    const [data, actions, passkeys] = await Promise.all([
      readDesk(services.store, { nowEpochMs, search: query.get("q")?.slice(0, 254) }),
      pages.loadActions(),
      listPasskeys(services.store, session.email),
    ]);
    const view: DeskView = {
      locale,
      timeZone: services.schedule.timeZone,
      email: session.email,
      formToken: session.formToken,
      passkeys,
      ...(notice ? { notice } : {}),
      personalData: {
        canExport: actions.exportPersonalData !== undefined,
        canErase: actions.erasePersonalData !== undefined,
      },
      ...(actions.renewCalendarFeed
        ? { calendarFeed: { url: await actions.readCalendarFeedUrl?.() } }
        : {}),
    };
    const other = TEAM_PATHS[locale === "pt" ? "en" : "pt"].desk;
    return await pages.page(request, locale, {
      status: 200,
      title: DESK_WORDS[locale].deskTitle,
      mainHtml: renderDesk(view, data, nowEpochMs),
      // The same search in the other language.
      otherLanguagePath: data.search
        ? `${other}?${new URLSearchParams({ q: data.search })}`
        : other,
      passkeys: true,
    });
  } catch (error) {
    services.logger.error("The desk could not be read", { error: String(error) });
    const text = DESK_WORDS[locale].busy;
    return answerProblem(pages, request, { locale, status: 503, text });
  }
}

/** `POST /equipa/reserva`: confirm, decline or cancel (with a note), as the signed links do. */
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
  return redirectToDesk(locale, notice, "bookings");
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
  return redirectToDesk(locale, notice, "inquiries");
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
  // POST, redirect, GET: a reload or a second click shows the desk, and renews nothing again.
  return redirectToDesk(locale, "feed-renewed", "calendar-feed");
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
  const answer = async (route: TeamRoute, desk: DeskRequest): Promise<Response> => {
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
      default:
        return answerDesk(pages, desk);
    }
  };
  return (route, locale) =>
    withSession(pages, { route, locale }, async (desk) => {
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
        const text = DESK_WORDS[locale].busy;
        return answerProblem(pages, desk.request, { locale, status: 503, text });
      }
    });
}
