/**
 * The pages behind the signed links of booking e-mails: `GET /booking/<action>?id=…&sig=…` shows
 * the booking and one button; only the `POST` that button sends confirms, declines or cancels, so
 * mail scanners that prefetch links change nothing.
 *
 * @module
 */
import { BOOKING_PREFIX } from "../lib/booking/booking_store.ts";
import type { BookingRecord } from "../lib/booking/booking_mail.ts";
import { escapeHtml } from "../lib/mail/mail.ts";
import { respond } from "../lib/http/representation.ts";
import type { RouteHandlers } from "../lib/http/route.ts";
import { buildDocumentPage } from "../lib/site/site.ts";
import type { SiteServices } from "../lib/services.ts";
import type { BookingAction, LinkSigner } from "../lib/booking/signed_links.ts";
import type { Store } from "../lib/store/store.ts";
import { loadOnce } from "../lib/load_once.ts";

type Locale = "pt" | "en";

const WORDS = {
  pt: {
    title: {
      confirm: "Confirmar conversa",
      decline: "Recusar conversa",
      cancel: "Cancelar conversa",
    },
    button: { confirm: "Confirmar", decline: "Recusar", cancel: "Cancelar a conversa" },
    done: {
      confirm: "Conversa confirmada. O convite foi enviado.",
      decline: "Pedido recusado. A pessoa foi avisada e o horário ficou livre.",
      cancel: "Conversa cancelada. O horário ficou livre e enviámos o cancelamento.",
    },
    already: {
      confirm: "Esta conversa já estava confirmada.",
      decline: "Este pedido já tinha sido recusado.",
      cancel: "Esta conversa já estava cancelada.",
    },
    notAllowed: "Esta ação já não é possível para esta conversa.",
    lapsed:
      "Este pedido caducou: não foi confirmado a tempo e o horário ficou livre. A pessoa pode marcar outro horário no site.",
    invalid: "Esta ligação não é válida. Use a ligação completa do e-mail.",
    missing: "Não encontrámos esta conversa.",
    busy: "Não foi possível concluir agora. Tente de novo dentro de um minuto.",
    limited: "Demasiados pedidos. Tente de novo dentro de um minuto.",
    who: "Com",
    when: "Quando",
    topic: "Tema",
  },
  en: {
    title: {
      confirm: "Confirm conversation",
      decline: "Decline conversation",
      cancel: "Cancel conversation",
    },
    button: { confirm: "Confirm", decline: "Decline", cancel: "Cancel the conversation" },
    done: {
      confirm: "Conversation confirmed. The invite has been sent.",
      decline: "Request declined. The person has been told and the time is free.",
      cancel: "Conversation cancelled. The time is free again and the cancellation has been sent.",
    },
    already: {
      confirm: "This conversation was already confirmed.",
      decline: "This request was already declined.",
      cancel: "This conversation was already cancelled.",
    },
    notAllowed: "This action is no longer possible for this conversation.",
    lapsed:
      "This request has lapsed: it was not confirmed in time and the time is free again. The person can book another time on the site.",
    invalid: "This link is not valid. Use the complete link from the e-mail.",
    missing: "We could not find this conversation.",
    busy: "This could not be done right now. Please try again in a minute.",
    limited: "Too many requests. Please try again in a minute.",
    who: "With",
    when: "When",
    topic: "Topic",
  },
} as const;

/** The booking engine and its mail. */
type BookingModules = [
  typeof import("../lib/booking/bookings.ts"),
  typeof import("../lib/booking/booking_mail.ts"),
];

function details(
  record: BookingRecord,
  locale: Locale,
  timeZone: string,
  describeStart: (record: BookingRecord, locale: Locale, timeZone: string) => string,
): string {
  const words = WORDS[locale];
  return `<dl>
<dt>${words.who}</dt><dd>${escapeHtml(record.name)} (${escapeHtml(record.email)})</dd>
<dt>${words.when}</dt><dd>${escapeHtml(describeStart(record, locale, timeZone))}</dd>
<dt>${words.topic}</dt><dd>${escapeHtml(record.topic)}</dd>
</dl>`;
}

/**
 * Fields of every action page besides the site's: the link carries a signature, which no
 * `Referer` may pass on, and no crawler should index.
 */
export const ACTION_PAGE_HEADERS = [
  ["Referrer-Policy", "no-referrer"],
  ["X-Robots-Tag", "noindex"],
] as const;

/**
 * What the action pages share: the services, the booking's modules, and the answer of a page in
 * the site's template.
 */
interface ActionPages {
  services: SiteServices;
  /** Loads the booking engine and its mail once, with the first action link. */
  loadBooking(): Promise<BookingModules>;
  page(
    request: Request,
    locale: Locale,
    status: number,
    title: string,
    body: string,
  ): Promise<Response>;
}

/** One action page being answered: its request, action, language and title. */
interface ActionView {
  request: Request;
  action: BookingAction;
  locale: Locale;
  title: string;
}

/** The page's language: the attendee's for cancel, the studio's (Portuguese) otherwise. */
function localeOf(action: BookingAction, record?: BookingRecord): Locale {
  return action === "cancel" && record ? record.locale : "pt";
}

async function readLink(linkSigner: LinkSigner, request: Request, action: BookingAction) {
  const url = new URL(request.url);
  const id = url.searchParams.get("id") ?? "";
  const signature = url.searchParams.get("sig") ?? "";
  const valid = /^[0-9A-Z]{26}$/.test(id) && await linkSigner.verify(action, id, signature);
  return { id, valid };
}

/** The booking a link names, `null` when there is none, `undefined` when the store failed. */
async function readRecord(store: Store, id: string): Promise<BookingRecord | null | undefined> {
  try {
    return (await store.get<BookingRecord>([...BOOKING_PREFIX, id])).value;
  } catch {
    return undefined;
  }
}

/** The 429 page, in the page's language: for a valid cancel link, the attendee's. */
async function answerRateLimited(
  pages: ActionPages,
  request: Request,
  action: BookingAction,
): Promise<Response> {
  const { linkSigner, store } = pages.services;
  const { id, valid } = await readLink(linkSigner, request, action);
  const record = valid ? await readRecord(store, id) : undefined;
  const locale = localeOf(action, record ?? undefined);
  const words = WORDS[locale];
  return pages.page(request, locale, 429, words.title[action], `<p>${words.limited}</p>`);
}

/** The GET: the booking and its one button, or why the action is no longer possible. */
function showBooking(
  pages: ActionPages,
  view: ActionView,
  record: BookingRecord,
  [{ hasLapsed }, { describeStart }]: BookingModules,
): Promise<Response> {
  const { services } = pages;
  const { request, action, locale, title } = view;
  const words = WORDS[locale];
  const state = action !== "cancel" && hasLapsed(record, services.clock.now().epochMilliseconds)
    ? `<p>${words.lapsed}</p>`
    : record.status === "pending" || record.status === "accepted"
    ? `<form method="post"><button type="submit">${words.button[action]}</button></form>`
    : `<p>${words.already[record.status === "declined" ? "decline" : "cancel"]}</p>`;
  const summary = details(record, locale, services.schedule.timeZone, describeStart);
  return pages.page(request, locale, 200, title, summary + state);
}

/** The POST: applies the action to the booking and says how it went. */
async function applyAction(
  pages: ActionPages,
  view: ActionView,
  bookingId: string,
  [{ applyBookingAction }, { describeStart }]: BookingModules,
): Promise<Response> {
  const { services, page } = pages;
  const { request, action, locale, title } = view;
  const words = WORDS[locale];
  let outcome;
  try {
    outcome = await applyBookingAction(services, action, bookingId);
  } catch (error) {
    services.logger.error("Booking action failed", {
      action,
      error: error instanceof Error ? error.message : String(error),
    });
    return page(request, locale, 503, title, `<p>${words.busy}</p>`);
  }
  if (outcome.kind === "not-found") {
    return page(request, locale, 404, title, `<p>${words.missing}</p>`);
  }
  const summary = details(outcome.record, locale, services.schedule.timeZone, describeStart);
  if (outcome.kind === "done") {
    return page(
      request,
      locale,
      200,
      title,
      `<p role="status">${words.done[action]}</p>${summary}`,
    );
  }
  if (outcome.kind === "already") {
    const already = words.already[action];
    return page(request, locale, 200, title, `<p role="status">${already}</p>${summary}`);
  }
  const refusal = outcome.kind === "lapsed" ? words.lapsed : words.notAllowed;
  return page(request, locale, 409, title, `<p>${refusal}</p>${summary}`);
}

/** Answers an action link: checks its signature, reads the booking, then shows or applies. */
async function answerAction(
  pages: ActionPages,
  method: "GET" | "POST",
  action: BookingAction,
  request: Request,
): Promise<Response> {
  const { services, page } = pages;
  const modules = await pages.loadBooking();
  const { id, valid } = await readLink(services.linkSigner, request, action);
  if (!valid) {
    return page(request, "pt", 403, WORDS.pt.title[action], `<p>${WORDS.pt.invalid}</p>`);
  }
  const record = await readRecord(services.store, id);
  if (record === undefined) {
    return page(request, "pt", 503, WORDS.pt.title[action], `<p>${WORDS.pt.busy}</p>`);
  }
  const locale = localeOf(action, record ?? undefined);
  const words = WORDS[locale];
  const title = words.title[action];
  if (!record) return page(request, locale, 404, title, `<p>${words.missing}</p>`);
  const view: ActionView = { request, action, locale, title };
  return method === "GET"
    ? showBooking(pages, view, record, modules)
    : applyAction(pages, view, id, modules);
}

/**
 * The handlers of the booking action pages (their routes are entries of `routes/mod.ts`): a GET
 * and a POST per action. The POST changes a booking; the table counts it against the write quota.
 *
 * @param services The site's services.
 * @returns A function giving the handlers of one method and action.
 */
export function createBookingActions(
  services: SiteServices,
): (method: "GET" | "POST", action: BookingAction) => RouteHandlers {
  const pages: ActionPages = {
    services,
    // Loaded by the first action link rather than at start-up.
    loadBooking: loadOnce(() =>
      Promise.all([import("../lib/booking/bookings.ts"), import("../lib/booking/booking_mail.ts")])
    ),
    async page(request, locale, status, title, body) {
      const document = buildDocumentPage(await services.site(), locale, {
        title,
        mainHtml: `<h1>${escapeHtml(title)}</h1>\n${body}`,
      }, ACTION_PAGE_HEADERS);
      return respond(request, document, { status });
    },
  };
  return (method, action) => ({
    answerRateLimited: (request) => answerRateLimited(pages, request, action),
    handle: (request) => answerAction(pages, method, action, request),
  });
}
