/**
 * The pages behind the signed links of booking e-mails. `GET /booking/<action>?id=…&sig=…`
 * exchanges the link for a cookie: `303 See Other` to `/booking/<action>?id=…`, the same page
 * without its signature, which only that cookie opens (see {@linkcode answerLinkExchange}), so the
 * page needs no `noindex` and a crawler at its URL reads only the page that asks for the e-mail's
 * link. The page shows the booking and one button; only the `POST` that button sends (to the
 * signed URL) confirms, declines or cancels, so mail scanners that prefetch links change nothing.
 * The attendee's cancel page also offers to keep the booking or to change its time instead. Two
 * links only read: `GET /booking/view` is the booking as the attendee sees it (where the booking
 * form's `303` leads: what, when in their zone and the studio's, where, with whom, "add to
 * calendar", what happens next, the reschedule and cancel links), and `GET /booking/invite` its
 * calendar file (`text/calendar`, `METHOD:PUBLISH`, the UID of the e-mailed invite), answered at
 * its signed URL as a download.
 *
 * @module
 */
import { parse, serialize } from "cookie";
import { BOOKING_PREFIX } from "../lib/booking/booking_store.ts";
import type { BookingRecord } from "../lib/booking/booking_mail.ts";
import { escapeHtml } from "../lib/mail/mail.ts";
import {
  type HeaderPair,
  type Representation,
  respond,
  toRepresentation,
} from "../lib/http/representation.ts";
import type { RouteHandlers } from "../lib/http/route.ts";
import { buildDocumentPage, type Site } from "../lib/site/site.ts";
import type { SiteServices } from "../lib/services.ts";
import {
  ACTION_PATH_PREFIX,
  type BookingAction,
  type BookingLinkAction,
  type BookingView,
  isBookingTransition,
  LINK_COOKIE_MAX_AGE_SECONDS,
  type LinkSigner,
  toLinkCookieName,
} from "../lib/booking/signed_links.ts";
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
    what: "O quê",
    who: "Com",
    when: "Quando",
    studioTime: "Hora do estúdio",
    where: "Onde",
    topic: "Tema",
    conversation: (minutes: number) => `Conversa, ${minutes} min`,
    withStudio: (studio: string, name: string, email: string) => `${studio} e ${name} (${email})`,
    cancelLead: "Se cancelar, o horário fica livre e enviamos o cancelamento a si e ao estúdio.",
    keep: "Manter a conversa",
    changeInstead: "Mudar a hora em vez de cancelar",
    notAllowedView: "Esta ligação só funciona com o método GET.",
    linkNeededTitle: "Abra a ligação do e-mail",
    linkNeeded:
      "Por segurança, esta página só abre a partir da ligação do e-mail, e durante uma hora depois de a abrir. Abra de novo a ligação do e-mail mais recente sobre esta conversa.",
    linkNeededCookies: "Se acabou de a abrir, confirme que o navegador aceita cookies deste site.",
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
    what: "What",
    who: "With",
    when: "When",
    studioTime: "Studio time",
    where: "Where",
    topic: "Topic",
    conversation: (minutes: number) => `Conversation, ${minutes} min`,
    withStudio: (studio: string, name: string, email: string) => `${studio} and ${name} (${email})`,
    cancelLead:
      "If you cancel, the time is free again and we send the cancellation to you and to the studio.",
    keep: "Keep the conversation",
    changeInstead: "Change the time instead",
    notAllowedView: "This link works with the GET method only.",
    linkNeededTitle: "Open the link from your e-mail",
    linkNeeded:
      "For your security, this page opens only from the link in the e-mail, and for an hour after you open it. Open the link in the latest e-mail about this conversation again.",
    linkNeededCookies:
      "If you have just opened it, check that your browser accepts cookies from this site.",
  },
} as const;

/** The words of the attendee's booking page (`/booking/view`). */
const VIEW_WORDS = {
  pt: {
    title: {
      accepted: "A sua conversa está marcada",
      pending: "Recebemos o seu pedido",
      cancelled: "Esta conversa foi cancelada",
      declined: "Este pedido foi recusado",
      lapsed: "Este pedido caducou",
    },
    lead: {
      accepted: (email: string) => `Enviámos o convite para ${email}.`,
      pending: (email: string) =>
        `A equipa confirma a conversa por e-mail, para ${email}. Até lá, a hora fica reservada para si.`,
      cancelled: () => "O horário ficou livre. Pode marcar outra conversa quando quiser.",
      declined: () => "Não conseguimos confirmar esta hora. Escolha outra quando quiser.",
      lapsed: () => "Não foi confirmado a tempo e o horário ficou livre. Escolha outra hora.",
    },
    calendar: "Adicionar ao calendário",
    ics: "Ficheiro de calendário (.ics)",
    icsHint: "Apple Calendar, Outlook e outros",
    next: "O que acontece a seguir",
    nextAccepted: (place: string, reminder: string) =>
      `O convite já está no seu e-mail, com ${place}${reminder}`,
    reminder: (hours: string) => `. Enviamos um lembrete ${hours} antes.`,
    nextPending: (until: string) =>
      `A equipa confirma até ${until}. Quando confirmar, recebe o convite por e-mail; se não confirmar a tempo, a hora fica livre e avisamos.`,
    change: "Mudar ou cancelar",
    reschedule: "Mudar a hora",
    cancel: "Cancelar a conversa",
    bookAgain: "Marcar uma nova conversa",
    place: { video: "a ligação da videochamada", studio: "a morada do estúdio" },
  },
  en: {
    title: {
      accepted: "Your conversation is booked",
      pending: "Your request is in",
      cancelled: "This conversation was cancelled",
      declined: "This request was declined",
      lapsed: "This request has lapsed",
    },
    lead: {
      accepted: (email: string) => `We sent the invitation to ${email}.`,
      pending: (email: string) =>
        `The team confirms the conversation by email, to ${email}. Until then, the time is held for you.`,
      cancelled: () => "The time is free again. You can book another conversation any time.",
      declined: () => "We could not confirm this time. Please choose another one.",
      lapsed: () => "It was not confirmed in time and the time is free again. Choose another.",
    },
    calendar: "Add to calendar",
    ics: "Calendar file (.ics)",
    icsHint: "Apple Calendar, Outlook and others",
    next: "What happens next",
    nextAccepted: (place: string, reminder: string) =>
      `The invitation is in your email, with ${place}${reminder}`,
    reminder: (hours: string) => `. We send a reminder ${hours} before.`,
    nextPending: (until: string) =>
      `The team confirms by ${until}. Once confirmed, the invitation arrives by email; if it is not confirmed in time, the time is released and we tell you.`,
    change: "Change or cancel",
    reschedule: "Change the time",
    cancel: "Cancel the conversation",
    bookAgain: "Book a new conversation",
    place: { video: "the video call link", studio: "the studio's address" },
  },
} as const;

/** The booking engine, its mail and its invites (the view's calendar links). */
type BookingModules = [
  typeof import("../lib/booking/bookings.ts"),
  typeof import("../lib/booking/booking_mail.ts"),
  typeof import("../lib/booking/invites.ts"),
];

/** What the summary of a booking is written with. */
export interface SummaryOptions {
  /** The language. */
  locale: Locale;
  /** The schedule's zone. */
  timeZone: string;
  /** The meeting's length, in minutes. */
  meetingMinutes: number;
  /** Where meetings take place, per language. */
  meetingPlace: Record<string, string>;
  /** The studio's name. */
  studio: string;
  /** The booking mail's words: {@linkcode describeSlot} and the attendee's zone. */
  mail: BookingModules[1];
}

/**
 * A booking as its pages show it, a list of terms: what (the conversation and its length), when in
 * the attendee's zone (and in the studio's, when it differs), where, with whom, the topic.
 *
 * @param record The booking.
 * @param options The language, the schedule and the mail's words.
 * @returns The `<dl class="booking-summary">`.
 */
export function renderBookingSummary(record: BookingRecord, options: SummaryOptions): string {
  const words = WORDS[options.locale];
  const { describeSlot, toAttendeeZone } = options.mail;
  const zone = toAttendeeZone(record, options.timeZone);
  const row = (term: string, value: string, className = "") =>
    `<div${className ? ` class="${className}"` : ""}><dt>${escapeHtml(term)}</dt><dd>${
      escapeHtml(value)
    }</dd></div>`;
  return [
    '<dl class="booking-summary">',
    row(words.what, words.conversation(options.meetingMinutes)),
    row(words.when, describeSlot(record, zone ?? options.timeZone, options.locale), "when"),
    zone ? row(words.studioTime, describeSlot(record, options.timeZone, options.locale)) : "",
    row(words.where, options.meetingPlace[options.locale] ?? options.meetingPlace.en ?? ""),
    row(words.who, words.withStudio(options.studio, record.name, record.email)),
    row(words.topic, record.topic),
    "</dl>",
  ].join("");
}

/**
 * Fields of every action page besides the site's but the pages a link's cookie opens (see
 * {@linkcode OPENED_PAGE_HEADERS}): the signed URL carries a signature, which no `Referer` may
 * pass on, and no crawler should index it, nor an error page.
 */
export const ACTION_PAGE_HEADERS = [
  ["Referrer-Policy", "no-referrer"],
  ["X-Robots-Tag", "noindex"],
] as const;

/**
 * Fields of a page that a link's cookie opened: personal, so kept by no shared cache and by no
 * browser cache (`private, no-store`), an answer that depends on the `Cookie` field (`Vary`), and
 * no `Referer` to pass on to the sites it links to.
 */
export const OPENED_PAGE_HEADERS = [
  ["Cache-Control", "private, no-store"],
  ["Vary", "Cookie"],
  ["Referrer-Policy", "no-referrer"],
] as const satisfies readonly HeaderPair[];

/**
 * The fields of a page that asks for the e-mail's link again: as every action page's, and
 * depending on the `Cookie` field.
 */
const LINK_NEEDED_HEADERS: readonly HeaderPair[] = [...ACTION_PAGE_HEADERS, ["Vary", "Cookie"]];

/**
 * A signed link to exchange for its cookie: the cookie's name (see `toLinkCookieName`) and the
 * signature it carries.
 */
export interface LinkExchange {
  /** The cookie's name: the page's and the booking's (and the SEQUENCE's). */
  cookieName: string;
  /** The link's signature, already verified, base64url. */
  signature: string;
  /** Whether the site is served over https (`Secure`). */
  secure: boolean;
}

/**
 * Answers the `GET` of a valid signed link: `303 See Other` to the same page's URL without its
 * `sig` (the rest of the query kept), with `Set-Cookie` carrying the signature: named for the page
 * and the booking, `Path` the page's own path, `HttpOnly`, `SameSite=Lax` (the e-mail's link is a
 * cross-site top-level navigation, and a `Strict` cookie would not be sent with the redirect's
 * follow-up), `Secure` over https, and `Max-Age` an hour (`LINK_COOKIE_MAX_AGE_SECONDS`, where the
 * choice is explained). The signature then leaves the address bar, the history and any `Referer`,
 * and the page's own URL is useless to whoever does not hold the cookie. RFC 9110, section
 * 15.4.4; RFC 6265, section 4.1.
 *
 * @param request The link's request.
 * @param link The cookie's name and the verified signature.
 * @returns The `303`, never stored, with no `Referer` sent on.
 */
export function answerLinkExchange(request: Request, link: LinkExchange): Response {
  const url = new URL(request.url);
  url.searchParams.delete("sig");
  const cookie = serialize(link.cookieName, link.signature, {
    path: url.pathname,
    maxAge: LINK_COOKIE_MAX_AGE_SECONDS,
    httpOnly: true,
    sameSite: "lax",
    secure: link.secure,
  });
  return new Response(null, {
    status: 303,
    headers: {
      Location: url.pathname + url.search,
      "Set-Cookie": cookie,
      "Cache-Control": "no-store",
      "Referrer-Policy": "no-referrer",
    },
  });
}

/**
 * The signature a link's cookie carries for a page, if the request has that cookie.
 *
 * @param request The request.
 * @param cookieName The cookie's name (see `toLinkCookieName`).
 * @returns The signature as the cookie holds it (to verify), or `undefined`.
 */
export function readLinkCookie(request: Request, cookieName: string): string | undefined {
  const header = request.headers.get("Cookie");
  // Most requests carry no cookie of this page: skip parsing then.
  if (!header || !header.includes(cookieName + "=")) return undefined;
  return parse(header)[cookieName];
}

/**
 * Builds the page that a link's cookie opened, in the site's template, with
 * {@linkcode OPENED_PAGE_HEADERS}. A `200` is a plain page to robots (no `X-Robots-Tag`, no robots
 * meta): only a browser holding the cookie ever reads it, and a crawler at its URL gets the page
 * that asks for the link (`noindex`). Any other status keeps `noindex`.
 *
 * @param site The site.
 * @param locale The page's language.
 * @param page Its title, the content of `<main>` (already HTML), its scripts, and its status.
 * @returns The HTML representation.
 */
export function buildOpenedPage(
  site: Site,
  locale: Locale,
  page: { title: string; mainHtml: string; scripts?: readonly string[]; status: number },
): Representation {
  const view = {
    title: page.title,
    mainHtml: page.mainHtml,
    ...(page.scripts ? { scripts: page.scripts } : {}),
  };
  if (page.status !== 200) {
    return buildDocumentPage(site, locale, view, [
      ...OPENED_PAGE_HEADERS,
      ["X-Robots-Tag", "noindex"],
    ]);
  }
  return buildDocumentPage(site, locale, { ...view, indexable: true }, OPENED_PAGE_HEADERS);
}

/**
 * The status of the page that asks for the e-mail's link again: `403 Forbidden`, not `200`. The
 * request lacks the capability the page needs, and the server refuses it (RFC 9110, section
 * 15.5.4; a `401` would need an authentication scheme, which a link is not); a `4xx` also tells
 * crawlers and link checkers that this URL has no content of its own.
 */
export const LINK_NEEDED_STATUS = 403;

/**
 * Builds the page that asks for the e-mail's link again: a page's URL opened without its cookie
 * (another browser, more than an hour later, or a crawler), in the page's language, never indexed.
 * Answer it with {@linkcode LINK_NEEDED_STATUS}.
 *
 * @param site The site.
 * @param locale The page's language.
 * @returns The HTML representation.
 */
export function buildLinkNeededPage(site: Site, locale: Locale): Representation {
  const words = WORDS[locale];
  const title = words.linkNeededTitle;
  const mainHtml = `<h1>${escapeHtml(title)}</h1>\n<p class="notice" role="status">${
    escapeHtml(words.linkNeeded)
  }</p>\n<p>${escapeHtml(words.linkNeededCookies)}</p>`;
  return buildDocumentPage(site, locale, { title, mainHtml }, LINK_NEEDED_HEADERS);
}

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
  /** The answer of a page that the link's cookie opened (see {@linkcode buildOpenedPage}). */
  openedPage(
    request: Request,
    locale: Locale,
    page: { title: string; body: string },
  ): Promise<Response>;
}

/** One action page being answered: its request, action, language, title and link's signature. */
interface ActionView {
  request: Request;
  action: BookingAction;
  locale: Locale;
  title: string;
  /** The link's signature, which the page's form posts back in its query. */
  signature: string;
}

/** A link whose signature checked out: the booking's id and the signature. */
interface VerifiedLink {
  id: string;
  signature: string;
}

/**
 * The page's language: the attendee's for cancel and the attendee's own pages, the studio's
 * (Portuguese) otherwise.
 */
function localeOf(action: BookingLinkAction, record?: BookingRecord): Locale {
  return action !== "confirm" && action !== "decline" && record ? record.locale : "pt";
}

/** Whether `id` reads as a booking's id (a ULID). */
function isBookingId(id: string): boolean {
  return /^[0-9A-Z]{26}$/.test(id);
}

/** The signed link of the request's query: its id, signature, and whether they check out. */
async function readLink(linkSigner: LinkSigner, request: Request, action: BookingLinkAction) {
  const url = new URL(request.url);
  const id = url.searchParams.get("id") ?? "";
  const signature = url.searchParams.get("sig") ?? "";
  const valid = isBookingId(id) && await linkSigner.verify(action, id, signature);
  return { id, signature, valid };
}

/**
 * The link a page's cookie carries for the booking the query names (`?id=`, no `sig`), if the
 * cookie is there and its signature is that of this action on this booking.
 */
async function readOpenedLink(
  linkSigner: LinkSigner,
  request: Request,
  action: BookingLinkAction,
): Promise<VerifiedLink | undefined> {
  const id = new URL(request.url).searchParams.get("id") ?? "";
  if (!isBookingId(id)) return undefined;
  const signature = readLinkCookie(request, toLinkCookieName(action, id));
  if (!signature || !await linkSigner.verify(action, id, signature)) return undefined;
  return { id, signature };
}

/** The booking a link names, `null` when there is none, `undefined` when the store failed. */
async function readRecord(store: Store, id: string): Promise<BookingRecord | null | undefined> {
  try {
    return (await store.get<BookingRecord>([...BOOKING_PREFIX, id])).value;
  } catch {
    return undefined;
  }
}

/** The 429 page, in the page's language: for a valid attendee's link, the attendee's. */
async function answerRateLimited(
  pages: ActionPages,
  request: Request,
  action: BookingLinkAction,
): Promise<Response> {
  const { linkSigner, store } = pages.services;
  const { id, valid } = await readLink(linkSigner, request, action);
  const record = valid ? await readRecord(store, id) : undefined;
  const locale = localeOf(action, record ?? undefined);
  const words = WORDS[locale];
  const title = isBookingTransition(action) ? words.title[action] : VIEW_WORDS[locale].calendar;
  return pages.page(request, locale, 429, title, `<p>${words.limited}</p>`);
}

/** The summary options of the services, in a language. */
function summaryOptions(
  services: SiteServices,
  locale: Locale,
  mail: BookingModules[1],
): SummaryOptions {
  const { timeZone, meetingMinutes, meetingPlace } = services.schedule;
  return { locale, timeZone, meetingMinutes, meetingPlace, studio: services.content.name, mail };
}

/**
 * The cancel page's way out: keep the booking (its page) or change its time instead (the
 * reschedule page, while the booking may move).
 */
async function renderCancelChoices(services: SiteServices, record: BookingRecord, locale: Locale) {
  const words = WORDS[locale];
  const keep = await services.linkSigner.buildUrl("", "view", record.id);
  const move = await services.linkSigner.buildRescheduleUrl("", record.id, record.sequence);
  return `<p class="action-choices"><a href="${escapeHtml(keep)}">${
    escapeHtml(words.keep)
  }</a><a href="${escapeHtml(move)}">${escapeHtml(words.changeInstead)}</a></p>`;
}

/** The GET: the booking and its one button, or why the action is no longer possible. */
async function showBooking(
  pages: ActionPages,
  view: ActionView,
  record: BookingRecord,
  [{ hasLapsed }, mail]: BookingModules,
): Promise<Response> {
  const { services } = pages;
  const { request, action, locale, title } = view;
  const words = WORDS[locale];
  const open = record.status === "pending" || record.status === "accepted";
  const lapsed = action !== "cancel" && hasLapsed(record, services.clock.now().epochMilliseconds);
  // The page's URL has no signature (the cookie opened it): the POST carries it in its query.
  const signed = `${ACTION_PATH_PREFIX}${action}?${new URLSearchParams({
    id: record.id,
    sig: view.signature,
  })}`;
  const button = `<form method="post" action="${
    escapeHtml(signed)
  }" class="action-form"><button type="submit">${words.button[action]}</button></form>`;
  const state = lapsed
    ? `<p class="notice">${words.lapsed}</p>`
    : !open
    ? `<p class="notice">${words.already[record.status === "declined" ? "decline" : "cancel"]}</p>`
    : action === "cancel"
    ? `<p>${escapeHtml(words.cancelLead)}</p>${button}${await renderCancelChoices(
      services,
      record,
      locale,
    )}`
    : button;
  const summary = renderBookingSummary(record, summaryOptions(services, locale, mail));
  return pages.openedPage(request, locale, {
    title,
    body:
      `<div class="action-page"><div class="action-summary">${summary}</div><div class="action-do">${state}</div></div>`,
  });
}

/** The POST: applies the action to the booking and says how it went. */
async function applyAction(
  pages: ActionPages,
  view: ActionView,
  bookingId: string,
  [{ applyBookingAction }, mail]: BookingModules,
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
    return page(request, locale, 503, title, `<p class="notice">${words.busy}</p>`);
  }
  if (outcome.kind === "not-found") {
    return page(request, locale, 404, title, `<p class="notice">${words.missing}</p>`);
  }
  const summary = renderBookingSummary(outcome.record, summaryOptions(services, locale, mail));
  if (outcome.kind === "done" || outcome.kind === "already") {
    const said = outcome.kind === "done" ? words.done[action] : words.already[action];
    return page(
      request,
      locale,
      200,
      title,
      `<p class="notice ok" role="status">${said}</p>${summary}`,
    );
  }
  const refusal = outcome.kind === "lapsed" ? words.lapsed : words.notAllowed;
  return page(request, locale, 409, title, `<p class="notice">${refusal}</p>${summary}`);
}

/** The booking's calendar file: the e-mailed invite's event, to add to a calendar. */
async function answerInvite(
  pages: ActionPages,
  request: Request,
  record: BookingRecord,
  [{ toBookingMailContext }, mail]: BookingModules,
): Promise<Response> {
  const { services } = pages;
  const context = toBookingMailContext(services, await services.loadInvites());
  const ics = mail.buildBookingInvite(record, "PUBLISH", record.locale, context);
  const name = `conversation-${record.start.slice(0, 10)}.ics`;
  return respond(
    request,
    toRepresentation(ics, [
      ["Content-Type", "text/calendar; charset=utf-8"],
      ["Content-Disposition", `attachment; filename="${name}"`],
      ["Cache-Control", "no-store"],
      ...ACTION_PAGE_HEADERS,
    ]),
  );
}

/** The state of a booking as its page says it: lapsed is a pending request past its hold. */
function viewState(
  record: BookingRecord,
  nowEpochMs: number,
  hasLapsed: BookingModules[0]["hasLapsed"],
): keyof typeof VIEW_WORDS["en"]["title"] {
  return hasLapsed(record, nowEpochMs) ? "lapsed" : record.status;
}

/** The "add to calendar" links: the `.ics` file, Google Calendar, Outlook.com, Microsoft 365. */
async function renderCalendarLinks(
  services: SiteServices,
  record: BookingRecord,
  [, mail, { buildCalendarLinks }]: BookingModules,
): Promise<string> {
  const words = VIEW_WORDS[record.locale];
  const event = mail.buildBookingEvent(record, record.locale, {
    timeZone: services.schedule.timeZone,
    durationMinutes: services.schedule.meetingMinutes,
    meetingPlace: services.schedule.meetingPlace,
  });
  const links = buildCalendarLinks({
    ...event,
    start: event.start.toInstant(),
    end: event.end.toInstant(),
  });
  const ics = await services.linkSigner.buildUrl("", "invite", record.id);
  const link = (href: string, label: string, extra = "") =>
    `<li><a href="${escapeHtml(href)}"${extra}>${escapeHtml(label)}</a></li>`;
  return [
    `<section class="view-calendar" aria-labelledby="v-calendar"><h2 id="v-calendar">${
      escapeHtml(words.calendar)
    }</h2><ul class="calendar-links">`,
    link(ics, words.ics, ` download type="text/calendar" title="${escapeHtml(words.icsHint)}"`),
    link(links.google, "Google Calendar", ' rel="noopener"'),
    link(links.outlook, "Outlook.com", ' rel="noopener"'),
    link(links.office, "Microsoft 365", ' rel="noopener"'),
    "</ul></section>",
  ].join("");
}

/** What happens next: the invitation (and the reminder), or the team's confirmation by when. */
function renderNext(services: SiteServices, record: BookingRecord, state: string): string {
  const words = VIEW_WORDS[record.locale];
  const place = services.schedule.meetingPlace[record.locale] ?? "";
  const minutes = services.booking.reminderLeadMinutes;
  const hours = minutes >= 120 && minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`;
  const text = state === "accepted"
    ? words.nextAccepted(
      /https?:\/\//.test(place) ? words.place.video : words.place.studio,
      minutes > 0 ? words.reminder(hours) : ".",
    )
    : words.nextPending(
      new Intl.DateTimeFormat(record.locale === "pt" ? "pt-PT" : "en-GB", {
        timeZone: record.timeZone ?? services.schedule.timeZone,
        dateStyle: "full",
        timeStyle: "short",
      }).format(new Date(record.holdUntilEpochMs ?? record.startEpochMs)),
    );
  return `<section class="view-next" aria-labelledby="v-next"><h2 id="v-next">${
    escapeHtml(words.next)
  }</h2><p>${escapeHtml(text)}</p></section>`;
}

/** The attendee's links while the booking stands: change its time, cancel it. */
async function renderChangeLinks(services: SiteServices, record: BookingRecord): Promise<string> {
  const words = VIEW_WORDS[record.locale];
  const move = await services.linkSigner.buildRescheduleUrl("", record.id, record.sequence);
  const cancel = await services.linkSigner.buildUrl("", "cancel", record.id);
  return `<section class="view-change" aria-labelledby="v-change"><h2 id="v-change">${
    escapeHtml(words.change)
  }</h2><p class="action-choices"><a href="${escapeHtml(move)}">${
    escapeHtml(words.reschedule)
  }</a><a href="${escapeHtml(cancel)}">${escapeHtml(words.cancel)}</a></p></section>`;
}

/** The attendee's booking page: the booking as it stands, and what they can do with it. */
async function answerView(
  pages: ActionPages,
  request: Request,
  record: BookingRecord,
  modules: BookingModules,
): Promise<Response> {
  const [{ hasLapsed }, mail] = modules;
  const { services } = pages;
  const locale = record.locale;
  const words = VIEW_WORDS[locale];
  const state = viewState(record, services.clock.now().epochMilliseconds, hasLapsed);
  const standing = state === "accepted" || state === "pending";
  const summary = renderBookingSummary(record, summaryOptions(services, locale, mail));
  const bookingPage = services.content.pages.find((page) =>
    page.layout === "booking" && page.language === locale
  );
  const side = standing
    ? [
      await renderCalendarLinks(services, record, modules),
      renderNext(services, record, state),
      await renderChangeLinks(services, record),
    ].join("")
    : bookingPage
    ? `<p><a href="${escapeHtml(bookingPage.path)}">${escapeHtml(words.bookAgain)}</a></p>`
    : "";
  const body = `<p class="view-lead" role="status">${
    escapeHtml(words.lead[state](record.email))
  }</p><div class="view-page"><div class="view-summary">${summary}</div><div class="view-side">${side}</div></div>`;
  return pages.openedPage(request, locale, { title: words.title[state], body });
}

/** Answers a view link's GET: the booking's page or its calendar file. */
function answerViewLink(
  pages: ActionPages,
  view: BookingView,
  request: Request,
  record: BookingRecord,
  modules: BookingModules,
): Promise<Response> {
  return view === "invite"
    ? answerInvite(pages, request, record, modules)
    : answerView(pages, request, record, modules);
}

/** The title of an action's page before its booking tells the language: the studio's. */
function toFallbackTitle(action: BookingLinkAction): string {
  return isBookingTransition(action) ? WORDS.pt.title[action] : VIEW_WORDS.pt.title.accepted;
}

/** The page that asks for the e-mail's link again, in the language of the booking's page. */
async function answerLinkNeeded(
  pages: ActionPages,
  request: Request,
  action: BookingLinkAction,
): Promise<Response> {
  const { services } = pages;
  const id = new URL(request.url).searchParams.get("id") ?? "";
  // The attendee's pages speak the booking's language; the studio's speak Portuguese.
  const attendee = action === "view" || action === "cancel";
  const record = attendee && isBookingId(id) ? await readRecord(services.store, id) : undefined;
  const locale = localeOf(action, record ?? undefined);
  const page = buildLinkNeededPage(await services.site(), locale);
  return respond(request, page, { status: LINK_NEEDED_STATUS });
}

/** Answers a verified link: reads the booking, then shows or applies. */
async function answerBooking(
  pages: ActionPages,
  asked: { method: "GET" | "POST"; action: BookingLinkAction; request: Request },
  link: VerifiedLink,
): Promise<Response> {
  const { services, page } = pages;
  const { method, action, request } = asked;
  const modules = await pages.loadBooking();
  const fallbackTitle = toFallbackTitle(action);
  const record = await readRecord(services.store, link.id);
  if (record === undefined) {
    return page(request, "pt", 503, fallbackTitle, `<p>${WORDS.pt.busy}</p>`);
  }
  const locale = localeOf(action, record ?? undefined);
  const words = WORDS[locale];
  if (!isBookingTransition(action)) {
    if (!record) return page(request, locale, 404, fallbackTitle, `<p>${words.missing}</p>`);
    if (method === "POST") {
      const response = await page(
        request,
        locale,
        405,
        fallbackTitle,
        `<p>${words.notAllowedView}</p>`,
      );
      response.headers.set("Allow", "GET, HEAD");
      return response;
    }
    return answerViewLink(pages, action, request, record, modules);
  }
  const title = words.title[action];
  if (!record) return page(request, locale, 404, title, `<p>${words.missing}</p>`);
  const view: ActionView = { request, action, locale, title, signature: link.signature };
  return method === "GET"
    ? showBooking(pages, view, record, modules)
    : applyAction(pages, view, link.id, modules);
}

/**
 * Answers an action link. The `GET` of a page (every action but the calendar file): with `sig`,
 * a valid link is exchanged for its cookie (`303`), a forged one answers `403`; without, the
 * page's cookie opens the page, and its absence answers the page that asks for the link. A `POST`
 * and the calendar file check the query's signature, as the e-mails carry it.
 */
async function answerAction(
  pages: ActionPages,
  method: "GET" | "POST",
  action: BookingLinkAction,
  request: Request,
): Promise<Response> {
  const { services } = pages;
  const page = method === "GET" && action !== "invite";
  if (page && !new URL(request.url).searchParams.has("sig")) {
    const opened = await readOpenedLink(services.linkSigner, request, action);
    return opened
      ? answerBooking(pages, { method, action, request }, opened)
      : answerLinkNeeded(pages, request, action);
  }
  const { id, signature, valid } = await readLink(services.linkSigner, request, action);
  if (!valid) {
    return pages.page(request, "pt", 403, toFallbackTitle(action), `<p>${WORDS.pt.invalid}</p>`);
  }
  if (page) {
    const secure = services.baseUrl.startsWith("https:");
    return answerLinkExchange(request, {
      cookieName: toLinkCookieName(action, id),
      signature,
      secure,
    });
  }
  return answerBooking(pages, { method, action, request }, { id, signature });
}

/**
 * The handlers of the booking action pages (their routes are entries of `routes/mod.ts`): a GET
 * and a POST per action. The POST of a transition changes a booking; the table counts it against
 * the write quota. The views answer only their GET (a POST is a 405).
 *
 * @param services The site's services.
 * @returns A function giving the handlers of one method and action.
 */
export function createBookingActions(
  services: SiteServices,
): (method: "GET" | "POST", action: BookingLinkAction) => RouteHandlers {
  const pages: ActionPages = {
    services,
    // Loaded by the first action link rather than at start-up.
    loadBooking: loadOnce(() =>
      Promise.all([
        import("../lib/booking/bookings.ts"),
        import("../lib/booking/booking_mail.ts"),
        import("../lib/booking/invites.ts"),
      ])
    ),
    async page(request, locale, status, title, body) {
      const document = buildDocumentPage(await services.site(), locale, {
        title,
        mainHtml: `<h1>${escapeHtml(title)}</h1>\n${body}`,
      }, ACTION_PAGE_HEADERS);
      return respond(request, document, { status });
    },
    async openedPage(request, locale, { title, body }) {
      const document = buildOpenedPage(await services.site(), locale, {
        title,
        mainHtml: `<h1>${escapeHtml(title)}</h1>\n${body}`,
        status: 200,
      });
      return respond(request, document);
    },
  };
  return (method, action) => ({
    answerRateLimited: (request) => answerRateLimited(pages, request, action),
    handle: (request) => answerAction(pages, method, action, request),
  });
}
