/**
 * The attendee's reschedule page, behind the signed link of their booking e-mails:
 * `GET /booking/reschedule?id=…&seq=…&sig=…` exchanges the link for a cookie (`303 See Other` to
 * `/booking/reschedule?id=…&seq=…`, see `answerLinkExchange` in `booking_actions.ts`), and that
 * page (and `&month=YYYY-MM`), opened by the cookie, shows the booking and a month's free times,
 * with the booking page's availability and rendering, as a form whose action keeps the signed
 * query; the `GET`s change nothing, so mail scanners that prefetch the link move nothing. The
 * form's `POST` (`start=<instant>`, form-encoded) moves the booking in one atomic commit
 * (`lib/booking/move_booking.ts`) and answers a page in the attendee's language: moved; the
 * times again when the slot was taken meanwhile (409); or why the booking can no longer be moved
 * (cancelled, declined, lapsed: 409; started, or the link of an e-mail the booking has changed
 * since: 410). The same move posted again (a double click, a browser's retry) answers the moved
 * page again, 200. A forged link is a 403, and the page's URL without its cookie a 403 page that
 * asks for the e-mail's link again. The page needs no JavaScript, and an agent reading the
 * e-mail's text part can use it as a client with cookies does (follow the `303` with its cookie),
 * or post its form to the signed URL of the e-mail as it is.
 *
 * @module
 */
import type { BookingRecord } from "../lib/booking/booking_mail.ts";
import { BOOKING_PREFIX } from "../lib/booking/booking_store.ts";
import type { MoveRefusal } from "../lib/booking/move_booking.ts";
import { RESCHEDULE_PATH, toLinkCookieName } from "../lib/booking/signed_links.ts";
import { ApiError } from "../lib/contract/api_error.ts";
import { discardBody, readBody, readMediaType } from "../lib/http/read_body.ts";
import { type HeaderPair, respond } from "../lib/http/representation.ts";
import type { RouteHandlers } from "../lib/http/route.ts";
import { escapeHtml } from "../lib/mail/mail.ts";
import type { SiteServices } from "../lib/services.ts";
import { buildDocumentPage } from "../lib/site/site.ts";
import { loadOnce } from "../lib/load_once.ts";
import {
  ACTION_PAGE_HEADERS,
  answerLinkExchange,
  buildLinkNeededPage,
  buildOpenedPage,
  LINK_NEEDED_STATUS,
  readLinkCookie,
  renderBookingSummary,
} from "./booking_actions.ts";
import { pickMonth, readDisplayZone, readZoneSlots } from "./booking_form.ts";

type Locale = "pt" | "en";

const WORDS = {
  pt: {
    title: "Mudar a hora da conversa",
    intro:
      "Escolha outra hora livre: a conversa passa para essa hora e enviamos o convite atualizado a si e ao estúdio.",
    current: "A sua conversa",
    who: "Com",
    when: "Quando",
    topic: "Tema",
    button: "Mudar para esta hora",
    moved: (time: string, email: string) =>
      `Feito: a conversa passou para ${time}. Enviámos o convite atualizado para ${email}.`,
    movedPending: (time: string, email: string) =>
      `Feito: o pedido passou para ${time}. A equipa confirma em breve por e-mail, para ${email}.`,
    again: "Escolher outra hora",
    unchanged: "A conversa já está marcada para essa hora: nada mudou.",
    refused: {
      cancelled: "Esta conversa foi cancelada e já não pode mudar de hora.",
      declined: "Este pedido foi recusado e já não pode mudar de hora.",
      lapsed:
        "Este pedido caducou: não foi confirmado a tempo e o horário ficou livre. Já não pode mudar de hora.",
      started: "Esta conversa já começou ou já passou: já não pode mudar de hora.",
      superseded:
        "Esta ligação expirou: a conversa mudou depois de este e-mail ser enviado. Use a ligação do e-mail mais recente sobre esta conversa.",
    },
    bookAgain: "Marcar uma nova conversa",
    invalid: "Esta ligação não é válida. Use a ligação completa do e-mail.",
    missing: "Não encontrámos esta conversa.",
    busy: "Não foi possível concluir agora. Tente de novo dentro de um minuto.",
    uncertain:
      "Não conseguimos confirmar se a conversa mudou de hora. Antes de tentar de novo, veja se recebeu um e-mail com a nova hora.",
    limited: (seconds: string) =>
      `Demasiados pedidos seguidos. Aguarde ${seconds} segundos e tente de novo.`,
    originRejected:
      "Não é possível mudar a conversa a partir deste endereço. Abra a ligação do e-mail.",
  },
  en: {
    title: "Change the time of your conversation",
    intro:
      "Choose another free time: the conversation moves to it and we send the updated invite to you and to the studio.",
    current: "Your conversation",
    who: "With",
    when: "When",
    topic: "Topic",
    button: "Move to this time",
    moved: (time: string, email: string) =>
      `Done: the conversation has moved to ${time}. We sent the updated invite to ${email}.`,
    movedPending: (time: string, email: string) =>
      `Done: the request has moved to ${time}. The team will confirm shortly by email, to ${email}.`,
    again: "Choose another time",
    unchanged: "The conversation is already at that time: nothing changed.",
    refused: {
      cancelled: "This conversation was cancelled and can no longer be moved.",
      declined: "This request was declined and can no longer be moved.",
      lapsed:
        "This request has lapsed: it was not confirmed in time and the time is free again. It can no longer be moved.",
      started: "This conversation has started or is over: it can no longer be moved.",
      superseded:
        "This link has expired: the conversation changed after this e-mail was sent. Use the link in the latest e-mail about this conversation.",
    },
    bookAgain: "Book a new conversation",
    invalid: "This link is not valid. Use the complete link from the e-mail.",
    missing: "We could not find this conversation.",
    busy: "This could not be done right now. Please try again in a minute.",
    uncertain:
      "We could not confirm whether the conversation moved. Before trying again, check whether an e-mail with the new time arrived.",
    limited: (seconds: string) =>
      `Too many requests in a row. Wait ${seconds} seconds, then try again.`,
    originRejected:
      "The conversation cannot be moved from this address. Open the link from the e-mail.",
  },
} as const;

/** The status of a page that says why a booking cannot be moved. */
const REFUSAL_STATUS: Record<MoveRefusal, number> = {
  cancelled: 409,
  declined: 409,
  lapsed: 409,
  started: 410,
  superseded: 410,
};

/** The largest form body, in bytes: one instant and the field's name, with room to spare. */
const MAX_FORM_BYTES = 2048;

/** The modules the page loads with its first request: the move, the mail's words, the form. */
type Modules = [
  typeof import("../lib/booking/move_booking.ts"),
  typeof import("../lib/booking/booking_mail.ts"),
  typeof import("../lib/site/render_booking_widget.ts"),
];

/** What the reschedule pages share. */
interface ReschedulePages {
  services: SiteServices;
  /** Loads the modules once, with the first reschedule link. */
  load(): Promise<Modules>;
}

/** A link whose signature checked out. */
interface SignedLink {
  id: string;
  /** The booking's SEQUENCE when the link was sent. */
  sequence: number;
  signature: string;
}

/** One visit of a valid link to a booking that exists. */
interface Visit {
  pages: ReschedulePages;
  modules: Modules;
  request: Request;
  link: SignedLink;
  record: BookingRecord;
  locale: Locale;
  /** Whether the link's cookie opened the page (a `GET` of its URL without `sig`). */
  opened: boolean;
}

/** The booking's id and SEQUENCE that the query names, if they are well formed. */
function readLinkQuery(request: Request): { id: string; sequence: number } | undefined {
  const query = new URL(request.url).searchParams;
  const id = query.get("id") ?? "";
  const seq = query.get("seq") ?? "";
  if (!/^[0-9A-Z]{26}$/.test(id) || !/^(?:0|[1-9][0-9]{0,5})$/.test(seq)) return undefined;
  return { id, sequence: Number(seq) };
}

/**
 * The link, if it is well formed and signed with the studio's secret: the signature of the
 * query's `sig`, or (`fromCookie`) of the page's cookie.
 */
async function readLink(
  services: SiteServices,
  request: Request,
  fromCookie = false,
): Promise<SignedLink | undefined> {
  const named = readLinkQuery(request);
  if (!named) return undefined;
  const { id, sequence } = named;
  const signature = fromCookie
    ? readLinkCookie(request, toLinkCookieName("reschedule", id, sequence))
    : new URL(request.url).searchParams.get("sig");
  if (!signature) return undefined;
  const valid = await services.linkSigner.verifyReschedule(id, sequence, signature);
  return valid ? { id, sequence, signature } : undefined;
}

/**
 * The path of the link's page (and `month`), as a URL path with its query: signed (`sig`), for a
 * form's `POST` and for the pages a `POST` answers, or not, for the `GET`s of a page the cookie
 * opened.
 */
function toLinkPath(link: SignedLink, options: { month?: string; signed?: boolean } = {}): string {
  const query = new URLSearchParams({ id: link.id, seq: String(link.sequence) });
  if (options.signed ?? true) query.set("sig", link.signature);
  if (options.month) query.set("month", options.month);
  return `${RESCHEDULE_PATH}?${query}`;
}

/** The booking a link names, `null` when there is none, `undefined` when the store failed. */
async function readRecord(
  services: SiteServices,
  id: string,
): Promise<BookingRecord | null | undefined> {
  try {
    return (await services.store.get<BookingRecord>([...BOOKING_PREFIX, id])).value;
  } catch {
    return undefined;
  }
}

/**
 * Answers a page in the site's template, never cached, with no `Referer` sent on; never indexed,
 * but for a page that the link's cookie opened (`opened`, see `buildOpenedPage`).
 */
async function answerPage(
  services: SiteServices,
  request: Request,
  page: {
    locale: Locale;
    status: number;
    body: string;
    headers?: HeaderPair[];
    /** The page's scripts (the picker's). */
    scripts?: readonly string[];
    /** Whether the link's cookie opened the page. */
    opened?: boolean;
  },
): Promise<Response> {
  const site = await services.site();
  const title = WORDS[page.locale].title;
  const view = {
    title,
    mainHtml: `<h1>${escapeHtml(title)}</h1>\n${page.body}`,
    ...(page.scripts ? { scripts: page.scripts } : {}),
  };
  const document = page.opened
    ? buildOpenedPage(site, page.locale, { ...view, status: page.status })
    : buildDocumentPage(site, page.locale, view, ACTION_PAGE_HEADERS);
  return respond(request, document, { status: page.status, headers: page.headers });
}

/** A notice: what happened, or why nothing can. */
function renderNotice(text: string, kind: "ok" | "bad"): string {
  return `<p class="notice${kind === "ok" ? " ok" : ""}" role="status">${escapeHtml(text)}</p>`;
}

/** The booking as it stands: what, when (in the attendee's zone too), where, with whom. */
function renderSummary(visit: Visit, record: BookingRecord = visit.record): string {
  const [, mail] = visit.modules;
  const { services } = visit.pages;
  const { timeZone, meetingMinutes, meetingPlace } = services.schedule;
  return renderBookingSummary(record, {
    locale: visit.locale,
    timeZone,
    meetingMinutes,
    meetingPlace,
    studio: services.content.name,
    mail,
  });
}

/**
 * The page with the booking and the free times of a month, laid out as the booking page: the
 * month's calendar, the chosen day's times with the booking's own time marked, and beside them
 * the booking and the button. The month is `?month=`, else the booking's own; the zone `?tz=`,
 * else the attendee's, else the schedule's; the day `?day=`, else the booking's.
 */
async function answerForm(
  visit: Visit,
  options: { status?: number; notice?: string } = {},
): Promise<Response> {
  const { services } = visit.pages;
  const [, , { renderPicker, toZoneDate, PICKER_WORDS }] = visit.modules;
  const site = await services.site();
  const words = WORDS[visit.locale];
  const url = new URL(visit.request.url);
  const { timeZone } = services.schedule;
  const zone = readDisplayZone(url.searchParams.get("tz") ?? visit.record.timeZone);
  const shown = zone.displayTimeZone ?? timeZone;
  const bookedDay = toZoneDate(visit.record.start, shown);
  if (!url.searchParams.has("month")) url.searchParams.set("month", bookedDay.slice(0, 7));
  const months = pickMonth(services, url);
  const slots = await readZoneSlots(services, months.month, shown);
  // A page the cookie opened links its GETs without the signature, which its cookie carries.
  const signed = !visit.opened;
  const state = {
    path: escapeHtml(toLinkPath(visit.link, { signed })),
    ...months,
    timeZone,
    ...zone,
    day: url.searchParams.get("day") ?? bookedDay,
    meetingMinutes: services.schedule.meetingMinutes,
    slots,
    ...(options.notice ? { notice: { text: options.notice, kind: "bad" as const } } : {}),
  };
  const free = slots !== undefined && Object.keys(slots).length > 0;
  // The button comes first, beside the times; the booking as it stands under it.
  const aside = [
    '<div class="booking-details reschedule-details">',
    free ? `<button type="submit">${escapeHtml(words.button)}</button>` : "",
    `<h2>${escapeHtml(words.current)}</h2>`,
    renderSummary(visit),
    "</div>",
  ].join("");
  const body = [
    `<p class="booking-intro">${escapeHtml(words.intro)}</p>`,
    renderPicker(site.corpus, visit.locale, state, {
      open: `<form method="post" action="${
        escapeHtml(toLinkPath(visit.link, { month: months.month }))
      }" class="booking-form">`,
      aside,
      hidden: {
        id: visit.link.id,
        seq: String(visit.link.sequence),
        ...(signed ? { sig: visit.link.signature } : {}),
      },
      markedStart: visit.record.start,
    }),
    // The picker's script switches days and zones; the move is posted as the form.
    `<script type="application/json" id="booking-config">${
      JSON.stringify({
        displayTimeZone: shown,
        zoneAsked: zone.displayTimeZone !== undefined || zone.unknownTimeZone !== undefined,
        text: site.corpus.languages[visit.locale].booking,
        words: PICKER_WORDS[visit.locale],
        submit: false,
      }).replace(/</g, "\\u003c")
    }</script>`,
  ].join("\n");
  return answerPage(services, visit.request, {
    locale: visit.locale,
    status: options.status ?? 200,
    body,
    scripts: ["booking.js"],
    opened: visit.opened,
  });
}

/** The page that says why the booking cannot be moved, with the way to book anew. */
function answerRefusal(visit: Visit, reason: MoveRefusal): Promise<Response> {
  const { services } = visit.pages;
  const words = WORDS[visit.locale];
  const bookingPage = services.content.pages.find((page) =>
    page.layout === "booking" && page.language === visit.locale
  );
  const bookAgain = reason !== "superseded" && bookingPage
    ? `<p><a href="${escapeHtml(bookingPage.path)}">${escapeHtml(words.bookAgain)}</a></p>`
    : "";
  return answerPage(services, visit.request, {
    locale: visit.locale,
    status: REFUSAL_STATUS[reason],
    body: renderNotice(words.refused[reason], "bad") + renderSummary(visit) + bookAgain,
    opened: visit.opened,
  });
}

/** The start the form sent, if it sent one that reads as an instant. */
async function readStart(request: Request): Promise<Temporal.Instant | undefined> {
  const contentType = request.headers.get("Content-Type") ?? "";
  const { mediaType } = readMediaType(request);
  if (mediaType !== "application/x-www-form-urlencoded" && mediaType !== "multipart/form-data") {
    discardBody(request);
    return undefined;
  }
  try {
    const bytes = await readBody(request, MAX_FORM_BYTES);
    const form = await new Response(bytes, { headers: { "Content-Type": contentType } })
      .formData();
    const start = form.get("start");
    return typeof start === "string" ? Temporal.Instant.from(start.trim()) : undefined;
  } catch {
    // Too large, too slow, not a form, or not an instant: the form is shown again.
    return undefined;
  }
}

/** The page after a move: what happened, the booking as it is now, and its new link. */
async function answerMoved(visit: Visit, record: BookingRecord): Promise<Response> {
  const { services } = visit.pages;
  const [, { describeStart, toAttendeeZone }] = visit.modules;
  const words = WORDS[visit.locale];
  const zone = toAttendeeZone(record, services.schedule.timeZone) ?? services.schedule.timeZone;
  const time = describeStart(record, visit.locale, zone);
  const message = record.status === "pending"
    ? words.movedPending(time, record.email)
    : words.moved(time, record.email);
  const again = await services.linkSigner.buildRescheduleUrl("", record.id, record.sequence);
  return answerPage(services, visit.request, {
    locale: visit.locale,
    status: 200,
    body: renderNotice(message, "ok") + renderSummary(visit, record) +
      `<p><a href="${escapeHtml(again)}">${escapeHtml(words.again)}</a></p>`,
  });
}

/** The POST: moves the booking to the start the form sent, and says how it went. */
async function answerMove(visit: Visit): Promise<Response> {
  const { services } = visit.pages;
  const [{ moveBooking }] = visit.modules;
  const words = WORDS[visit.locale];
  const text = (await services.site()).corpus.languages[visit.locale].booking;
  const start = await readStart(visit.request);
  if (!start) return answerForm(visit, { status: 400, notice: text.missingTime });
  let outcome;
  try {
    outcome = await moveBooking(services, {
      bookingId: visit.link.id,
      sequence: visit.link.sequence,
      start,
    });
  } catch (error) {
    const calendar = error instanceof ApiError && error.status === 503;
    if (!calendar) {
      services.logger.error("Booking move failed", {
        id: visit.link.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    const body = renderNotice(calendar ? words.busy : words.uncertain, "bad");
    return answerPage(services, visit.request, { locale: visit.locale, status: 503, body });
  }
  if (outcome.kind === "not-found") {
    const body = renderNotice(words.missing, "bad");
    return answerPage(services, visit.request, { locale: visit.locale, status: 404, body });
  }
  const current = { ...visit, record: outcome.record };
  if (outcome.kind === "moved") return answerMoved(current, outcome.record);
  if (
    outcome.kind === "refused" && outcome.reason === "superseded" &&
    isMovedByLink(outcome.record, visit.link, start)
  ) {
    // Two identical posts at once: the other one moved it.
    return answerMoved(current, outcome.record);
  }
  if (outcome.kind === "refused") return answerRefusal(current, outcome.reason);
  if (outcome.kind === "unchanged") {
    const body = renderNotice(words.unchanged, "ok") + renderSummary(current);
    return answerPage(services, visit.request, { locale: visit.locale, status: 200, body });
  }
  return answerForm(current, { status: 409, notice: text.conflict });
}

/** The page that asks for the e-mail's link again, in the booking's language when it has one. */
async function answerLinkNeeded(pages: ReschedulePages, request: Request): Promise<Response> {
  const named = readLinkQuery(request);
  const record = named ? await readRecord(pages.services, named.id) : undefined;
  const page = buildLinkNeededPage(await pages.services.site(), record?.locale ?? "pt");
  return respond(request, page, { status: LINK_NEEDED_STATUS });
}

/**
 * Opens a visit: checks the link's signature (the query's, or on a `GET` without `sig` the
 * cookie's) and reads its booking. Answers instead the `303` that exchanges a valid link's `GET`
 * for its cookie, the page that asks for the link (no valid cookie), or the page of what is wrong
 * (403 forged, 404 unknown, 503 store unavailable), in Portuguese and English since no booking
 * tells the language.
 */
async function openVisit(
  pages: ReschedulePages,
  method: "GET" | "POST",
  request: Request,
): Promise<Visit | Response> {
  const { services } = pages;
  const opened = method === "GET" && !new URL(request.url).searchParams.has("sig");
  const link = await readLink(services, request, opened);
  if (opened && !link) return answerLinkNeeded(pages, request);
  if (link && method === "GET" && !opened) {
    const cookieName = toLinkCookieName("reschedule", link.id, link.sequence);
    const secure = services.baseUrl.startsWith("https:");
    return answerLinkExchange(request, { cookieName, signature: link.signature, secure });
  }
  const modules = await pages.load();
  const record = link ? await readRecord(services, link.id) : undefined;
  if (link && record) {
    return { pages, modules, request, link, record, locale: record.locale, opened };
  }
  discardBody(request);
  const [status, key] = !link
    ? [403, "invalid"] as const
    : record === null
    ? [404, "missing"] as const
    : [503, "busy"] as const;
  const body = `<p>${escapeHtml(WORDS.pt[key])}</p>\n<p lang="en">${escapeHtml(WORDS.en[key])}</p>`;
  return answerPage(services, request, { locale: "pt", status, body });
}

/**
 * Whether `record` is the booking as this link's own move left it, posted again (a double click,
 * a browser's retry): one SEQUENCE on, moved from where it was (only a move raises the SEQUENCE
 * of a booking that is not cancelled or declined), and now at the start posted.
 */
function isMovedByLink(record: BookingRecord, link: SignedLink, start: Temporal.Instant): boolean {
  return record.sequence === link.sequence + 1 &&
    record.status !== "cancelled" && record.status !== "declined" &&
    record.previousStartEpochMs !== undefined &&
    record.previousStartEpochMs !== record.startEpochMs &&
    record.startEpochMs === start.epochMilliseconds;
}

/**
 * Answers a POST of a link the booking has changed since: the moved page again when it is the
 * same move posted twice, else why the link no longer works.
 */
async function answerStalePost(visit: Visit): Promise<Response> {
  const start = await readStart(visit.request);
  if (start && isMovedByLink(visit.record, visit.link, start)) {
    return answerMoved(visit, visit.record);
  }
  return answerRefusal(visit, "superseded");
}

/** Answers the link: the form (GET), or the move (POST); or why the booking cannot move. */
async function answerLink(
  pages: ReschedulePages,
  method: "GET" | "POST",
  request: Request,
): Promise<Response> {
  const visit = await openVisit(pages, method, request);
  if (visit instanceof Response) return visit;
  const nowEpochMs = pages.services.clock.now().epochMilliseconds;
  const [{ checkMovable }] = visit.modules;
  const reason = checkMovable(visit.record, visit.link.sequence, nowEpochMs);
  if (reason === "superseded" && method === "POST") return answerStalePost(visit);
  if (reason) {
    discardBody(request);
    return answerRefusal(visit, reason);
  }
  return method === "GET" ? answerForm(visit) : answerMove(visit);
}

/** The language of a refusal by the pipeline: the booking's, when the link is valid. */
async function readLocale(pages: ReschedulePages, request: Request): Promise<Locale> {
  const link = await readLink(pages.services, request).catch(() => undefined);
  const record = link ? await readRecord(pages.services, link.id) : undefined;
  return record?.locale ?? "pt";
}

/**
 * The handlers of the reschedule page (its routes are entries of `routes/mod.ts`): the GET that
 * shows the free times and the POST that moves the booking, counted against the write quota.
 *
 * @param services The site's services.
 * @returns A function giving the handlers of one method.
 */
export function createReschedule(
  services: SiteServices,
): (method: "GET" | "POST") => RouteHandlers {
  const pages: ReschedulePages = {
    services,
    // Loaded by the first reschedule link rather than at start-up.
    load: loadOnce(() =>
      Promise.all([
        import("../lib/booking/move_booking.ts"),
        import("../lib/booking/booking_mail.ts"),
        import("../lib/site/render_booking_widget.ts"),
      ])
    ),
  };
  return (method) => ({
    handle: (request) => answerLink(pages, method, request),
    answerRateLimited: async (request, _context, retryAfterSeconds) => {
      discardBody(request);
      const locale = await readLocale(pages, request);
      const seconds = String(retryAfterSeconds);
      return answerPage(services, request, {
        locale,
        status: 429,
        body: renderNotice(WORDS[locale].limited(seconds), "bad"),
        headers: [["Retry-After", seconds]],
      });
    },
    answerRefused: async (request, _context, error) => {
      discardBody(request);
      const locale = await readLocale(pages, request);
      const refused = error instanceof ApiError && error.status === 403;
      const words = WORDS[locale];
      return answerPage(services, request, {
        locale,
        status: refused ? 403 : 500,
        body: renderNotice(refused ? words.originRejected : words.busy, "bad"),
      });
    },
  });
}
