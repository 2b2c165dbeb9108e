/**
 * The booking pages for people without JavaScript: `GET /marcar-conversa` and
 * `GET /en/book` render a month's free times on the server as a form (`?month=YYYY-MM` picks the
 * month, from the current one to six ahead), and `POST` to the same paths books through the same
 * service, validation, quotas (write and booking), Origin rule and honeypot as
 * `POST /api/v1/booking`, answering with a page in the form's language: booked or awaiting
 * confirmation, or the booking page again, in the site's design, with the person's values (the
 * chosen time still selected while it is free) and what happened: what to fix (400), the other
 * free times (409), or why the form was refused (400 unreadable, 403 refused Origin, 413 too
 * large, 429 limited, with `Retry-After`, 500, 503 unavailable or uncertain). Never JSON.
 *
 * @module
 */
import { ApiError } from "../lib/contract/api_error.ts";
import {
  BOOKING_FIELDS,
  BOOKING_NOTHING_BOOKED_HINT,
  IDEMPOTENCY_KEY_PATTERN,
  MAX_BODY_BYTES,
} from "../lib/contract/contract.ts";
import { requireFields } from "../lib/contract/require_fields.ts";
import { BookingRequest } from "../lib/contract/request_structs.ts";
import { readMediaType } from "../lib/http/read_body.ts";
import {
  type BodyPrefix,
  parseFormValues,
  readBodyPrefix,
  readFormValues,
} from "../lib/http/read_form_values.ts";
import { buildNoticePage, fillNotice, type Site, type SitePage } from "../lib/site/site.ts";
import type { BookingFormState, SlotsByDate } from "../lib/site/render_booking_widget.ts";
import { isKnownTimeZone } from "../lib/booking/bookings.ts";
import { type HeaderPair, respond, toRepresentation } from "../lib/http/representation.ts";
import type { RequestContext, RouteHandlers } from "../lib/http/route.ts";
import type { Services, SiteServices } from "../lib/services.ts";
import type { Language } from "../lib/site/corpus.ts";
import type { BookingResult } from "../lib/contract/responses.ts";
import type { IdempotencyRecord } from "../lib/booking/bookings.ts";
import { checkMonth, listSlots, MONTHS_AHEAD } from "./booking.ts";
import { loadOnce } from "../lib/load_once.ts";

/** The booking form's renderer. */
type BookingWidget = typeof import("../lib/site/render_booking_widget.ts");

/** The booking engine. */
type Bookings = typeof import("../lib/booking/bookings.ts");

/**
 * The largest form body, in bytes: percent-encoding writes a character outside ASCII in up to
 * twelve bytes, so a form holds about three times the JSON body's bound.
 */
const MAX_FORM_BYTES = 3 * MAX_BODY_BYTES.createBooking;

/**
 * The month a booking page shows: the month of the time the person chose, else `?month=`, when
 * valid; else the current month.
 */
export function pickMonth(
  services: Services,
  url: URL,
  options: { start?: string; displayTimeZone?: string } = {},
): Pick<BookingFormState, "month" | "previousMonth" | "nextMonth"> {
  const { timeZone } = services.schedule;
  const { start } = options;
  const now = services.clock.now();
  const current = now.toZonedDateTimeISO(timeZone).toPlainDate().toPlainYearMonth();
  let month = current;
  const asked = isInstant(start)
    ? [
      Temporal.Instant.from(start).toZonedDateTimeISO(options.displayTimeZone ?? timeZone)
        .toPlainDate().toPlainYearMonth().toString(),
    ]
    : url.searchParams.getAll("month");
  if (asked.length) {
    try {
      month = Temporal.PlainYearMonth.from(checkMonth(asked, now, timeZone));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
  const latest = current.add({ months: MONTHS_AHEAD });
  return {
    month: month.toString(),
    ...(Temporal.PlainYearMonth.compare(month, current) > 0
      ? { previousMonth: month.subtract({ months: 1 }).toString() }
      : {}),
    ...(Temporal.PlainYearMonth.compare(month, latest) < 0
      ? { nextMonth: month.add({ months: 1 }).toString() }
      : {}),
  };
}

/** The free times of a month, or `undefined` when a calendar cannot be read. */
export async function readSlots(
  services: Services,
  month: string,
): Promise<BookingFormState["slots"]> {
  try {
    return (await listSlots(services, month)).slots;
  } catch (error) {
    if (error instanceof ApiError && error.status === 503) return undefined;
    throw error;
  }
}

/**
 * The free times of a month counted in another zone than the schedule's (`displayTimeZone`), by
 * date in that zone: the schedule's months that overlap it (within the months a listing may ask
 * for) are read and their starts regrouped, so a day at the month's edge keeps all its times.
 *
 * @param services The schedule, the clock and the slot finder.
 * @param month The month, `YYYY-MM`, in `displayTimeZone`.
 * @param displayTimeZone A zone `Intl` knows.
 * @returns The free starts by date, or `undefined` when a calendar cannot be read.
 */
export async function readZoneSlots(
  services: Services,
  month: string,
  displayTimeZone: string,
): Promise<SlotsByDate | undefined> {
  const { timeZone } = services.schedule;
  if (displayTimeZone === timeZone) return readSlots(services, month);
  const shown = Temporal.PlainYearMonth.from(month);
  const from = shown.toPlainDate({ day: 1 }).toZonedDateTime(displayTimeZone).toInstant();
  const until = shown.add({ months: 1 }).toPlainDate({ day: 1 }).toZonedDateTime(displayTimeZone)
    .toInstant().subtract({ nanoseconds: 1 });
  const months = new Set(
    [from, until].map((at) =>
      at.toZonedDateTimeISO(timeZone).toPlainDate().toPlainYearMonth().toString()
    ),
  );
  const slots: SlotsByDate = {};
  for (const listed of [...months].sort()) {
    try {
      checkMonth([listed], services.clock.now(), timeZone);
    } catch (error) {
      if (error instanceof ApiError) continue;
      throw error;
    }
    const read = await readSlots(services, listed);
    if (!read) return undefined;
    for (const { start } of Object.values(read).flat()) {
      const date = Temporal.Instant.from(start).toZonedDateTimeISO(displayTimeZone).toPlainDate();
      if (date.toPlainYearMonth().toString() === month) {
        (slots[date.toString()] ??= []).push({ start });
      }
    }
  }
  return slots;
}

/**
 * The zone a booking page writes its times in, from its `tz` (an IANA zone, as `?tz=` or the
 * form's field sends it): that zone, in its canonical spelling, when `Intl` knows it; else the
 * schedule's, with the unknown zone kept to say so on the page.
 *
 * @param asked The `tz` sent, if any.
 * @returns The zone to show (absent: the schedule's), or the unknown zone asked for.
 */
export function readDisplayZone(
  asked: string | null | undefined,
): Pick<BookingFormState, "displayTimeZone" | "unknownTimeZone"> {
  const zone = asked?.trim();
  if (!zone) return {};
  if (!isKnownTimeZone(zone)) return { unknownTimeZone: zone };
  // Another spelling of a known zone's case is written as Intl writes it; a link (Asia/Kolkata)
  // stays as asked rather than become the zone it links to (Asia/Calcutta).
  const resolved = new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone;
  return { displayTimeZone: resolved.toLowerCase() === zone.toLowerCase() ? resolved : zone };
}

/**
 * A page's body split where its first thematic break (`<hr>`) is: the text before it introduces
 * the picker; the text after it follows the form.
 */
function splitBody(bodyHtml: string): [string, string] {
  const at = bodyHtml.search(/<hr\s*\/?>/);
  if (at < 0) return [bodyHtml, ""];
  const end = bodyHtml.indexOf(">", at) + 1;
  return [bodyHtml.slice(0, at), bodyHtml.slice(end)];
}

/** What a booking page shows again after a refused submission, its status and added fields. */
export type BookingPageOptions =
  & {
    status?: number;
    /** Fields added to the answer, e.g. `Retry-After`. */
    headers?: readonly HeaderPair[];
  }
  & Pick<BookingFormState, "values" | "problems" | "notice" | "idempotencyKey">
  & {
    /** The zone the form was shown in (its `tz` field), to show it in again. */
    timeZone?: string;
  };

/** The booking page, answered per request with the free times of the moment. */
export interface BookingPage {
  /** Loads the form's renderer once, with the first booking page rather than at start-up. */
  loadWidget(): Promise<BookingWidget>;
  /**
   * Answers a booking page with its form: the month asked for (or the current one) and its free
   * times, and after a refused submission the person's values and what happened.
   *
   * @param site The site. @param entry The booking page. @param request The request.
   * @param options The status, and what to show again.
   * @returns The page, never cached.
   */
  answer(
    site: Site,
    entry: SitePage,
    request: Request,
    options?: BookingPageOptions,
  ): Promise<Response>;
}

/**
 * Creates the booking page's answers for the routes that serve it (the page's `GET`, and the
 * form's `POST`), with a renderer of their own.
 *
 * @param services The resolved services.
 * @returns The booking page.
 */
export function createBookingPage(services: Services): BookingPage {
  const loadWidget = loadOnce(() => import("../lib/site/render_booking_widget.ts"));
  return {
    loadWidget,
    async answer(site, entry, request, options = {}) {
      const { renderBookingWidget } = await loadWidget();
      const url = new URL(request.url);
      const zone = readDisplayZone(options.timeZone ?? url.searchParams.get("tz"));
      const shown = zone.displayTimeZone ?? services.schedule.timeZone;
      const months = pickMonth(services, url, {
        start: options.values?.start,
        displayTimeZone: shown,
      });
      const state: BookingFormState = {
        path: entry.page.path,
        ...months,
        timeZone: services.schedule.timeZone,
        ...zone,
        day: url.searchParams.get("day") ?? undefined,
        meetingMinutes: services.schedule.meetingMinutes,
        slots: await readZoneSlots(services, months.month, shown),
        values: options.values,
        problems: options.problems,
        notice: options.notice,
        // A form shown again keeps its key: sent again, it books once, whatever came before.
        idempotencyKey: options.idempotencyKey ?? FORM_KEY_PREFIX + crypto.randomUUID(),
      };
      const [intro, after] = splitBody(entry.bodyHtml);
      const html = site.renderHtml({
        language: entry.page.language,
        title: entry.page.title,
        description: entry.page.description,
        mainHtml: intro + renderBookingWidget(site.corpus, entry.page.language, state) +
          (after ? `\n<div class="booking-after">${after}</div>` : ""),
        page: entry.page,
        translation: entry.translation,
        markdownPath: entry.markdownPath,
        scripts: ["booking.js"],
      });
      const headers: HeaderPair[] = entry.html.headers.filter(([name]) =>
        name !== "ETag" && name !== "Cache-Control"
      );
      return respond(
        request,
        toRepresentation(html, [...headers, ["Cache-Control", "no-store"]]),
        { status: options.status ?? 200, headers: options.headers },
      );
    },
  };
}

/**
 * Parses the form's body strictly: `application/x-www-form-urlencoded` in UTF-8, or
 * `multipart/form-data` (its text fields); `undefined` when it is neither or does not parse.
 */
async function parseFormFields(
  request: Request,
  prefix: BodyPrefix,
): Promise<URLSearchParams | undefined> {
  const { mediaType } = readMediaType(request);
  if (mediaType === "multipart/form-data") {
    try {
      const form = await new Response(prefix.bytes, {
        headers: { "Content-Type": request.headers.get("Content-Type") ?? "" },
      }).formData();
      const params = new URLSearchParams();
      for (const [name, value] of form) if (typeof value === "string") params.append(name, value);
      return params;
    } catch {
      return undefined;
    }
  }
  if (mediaType !== "application/x-www-form-urlencoded") return undefined;
  try {
    return new URLSearchParams(new TextDecoder("utf-8", { fatal: true }).decode(prefix.bytes));
  } catch {
    return undefined;
  }
}

/** What the booking form's submissions share: the services, the page, the booking engine. */
interface BookingForm {
  services: SiteServices;
  bookingPage: BookingPage;
  /** Loads the booking engine and its mail once, with the form's first submission. */
  loadBookings(): Promise<Bookings>;
  /**
   * The fields of each submission whose body was read, until it is answered: a failure its
   * handler did not expect is answered by `answerRefused`, which shows them again.
   */
  typed: WeakMap<Request, () => URLSearchParams>;
}

/** The person's values as the form sent them, trimmed. */
type BookingValues = Required<NonNullable<BookingFormState["values"]>>;

/** Reads the person's values, and the BookingRequest the API would get from them. */
function readBookingInput(
  form: URLSearchParams,
  language: Language,
): { values: BookingValues; input: Record<string, unknown> } {
  const read = (name: string) => (form.get(name) ?? "").trim();
  const values: BookingValues = {
    start: read("start"),
    name: read("name"),
    email: read("email"),
    company: read("company"),
    topic: read("topic"),
  };
  const input: Record<string, unknown> = { locale: language };
  for (const name of ["start", "name", "email", "topic"] as const) {
    if (values[name]) input[name] = values[name];
  }
  if (values.company) input.company = values.company;
  // The honeypot goes to the validation as the API gets it: filled in, the booking is refused.
  const website = form.get("website");
  if (website) input.website = website;
  return { values, input };
}

/** One submission of the booking form: where it was sent, what it held, and how to answer. */
interface BookingSubmission {
  bookingPage: BookingPage;
  site: Site;
  entry: SitePage;
  request: Request;
  values: BookingValues;
  /** The BookingRequest the API would get from the values, not yet validated. */
  input: Record<string, unknown>;
  /** The form's idempotency key, when it sent one of the form's own. */
  idempotencyKey?: string;
  /** The zone the form showed its times in (its `tz` field), if any. */
  timeZone?: string;
  /** Fills a text of the page: the site's base, the time asked for, the attendee, and `extra`. */
  fill(template: string, extra?: Record<string, string>): string;
}

/** Reads a submission from the fields that arrived (all of them, or what could be read). */
async function readSubmission(
  form: BookingForm,
  page: { site: Site; entry: SitePage; request: Request },
  fields: URLSearchParams,
): Promise<BookingSubmission> {
  const { site, entry } = page;
  const settings = site.corpus.languages[entry.page.language];
  const { formatStart } = await form.bookingPage.loadWidget();
  const { values, input } = readBookingInput(fields, entry.page.language);
  const zone = readDisplayZone(fields.get("tz")).displayTimeZone;
  const timeZone = zone ?? form.services.schedule.timeZone;
  // The start as sent may be anything (the form's own values, or a forged post): it is shown as a
  // time only once it reads as an instant, and answered by validation otherwise.
  const time = isInstant(values.start) ? formatStart(values.start, settings.tag, timeZone) : "";
  const fill = (template: string, extra: Record<string, string> = {}) =>
    fillNotice(template, site.baseUrl, { time, attendee: values.email, ...extra });
  return {
    ...page,
    bookingPage: form.bookingPage,
    values,
    input,
    idempotencyKey: readFormKey(fields),
    ...(fields.get("tz") ? { timeZone: fields.get("tz") ?? "" } : {}),
    fill,
  };
}

/**
 * Answers the booking page again with the person's values (the chosen time selected while it is
 * free), the form's key, and a notice of what happened.
 */
function answerWithForm(
  submission: BookingSubmission,
  text: string,
  options: {
    status: number;
    headers?: HeaderPair[];
    values?: BookingValues;
    /** Values of the text's placeholders besides the time and the attendee. */
    extra?: Record<string, string>;
  },
): Promise<Response> {
  const { site, entry, request, fill } = submission;
  return submission.bookingPage.answer(site, entry, request, {
    status: options.status,
    headers: options.headers,
    values: options.values ?? submission.values,
    notice: { text: fill(text, options.extra), kind: "bad" },
    idempotencyKey: submission.idempotencyKey,
    timeZone: submission.timeZone,
  });
}

/** Answers the form again with the problems of the fields the validation refused (400). */
function answerInvalid(submission: BookingSubmission, error: ApiError): Promise<Response> {
  const { site, entry, request, values, fill } = submission;
  const text = site.corpus.languages[entry.page.language].booking;
  const problems = error.details ?? [];
  const labels: Record<string, string> = {
    start: text.chooseTime,
    name: text.name,
    email: text.email,
    company: text.company,
    topic: text.topic,
  };
  const named = problems.map((problem) => labels[problem.field] ?? problem.field);
  return submission.bookingPage.answer(site, entry, request, {
    status: 400,
    values,
    problems,
    notice: { text: fill(text.invalid, { fields: named.join(", ") }), kind: "bad" },
    idempotencyKey: submission.idempotencyKey,
    timeZone: submission.timeZone,
  });
}

/**
 * Answers a booking the service refused: taken (409), the attendee's day full (429), unavailable
 * or uncertain (503), or another refusal.
 */
function answerRefused(submission: BookingSubmission, error: ApiError): Promise<Response> {
  const { site, entry } = submission;
  const text = site.corpus.languages[entry.page.language].booking;
  if (error.status === 409) {
    return answerWithForm(submission, text.conflict, {
      status: 409,
      values: { ...submission.values, start: "" },
    });
  }
  if (error.status === 429) {
    const seconds = error.headers["Retry-After"] ?? "60";
    return answerWithForm(submission, text.attendeeLimited, {
      status: 429,
      headers: [["Retry-After", seconds]],
    });
  }
  if (error.status === 503) {
    // Only a 503 that says nothing was booked invites a retry (as the page's script decides):
    // any other may hide a booking.
    const uncertain = error.hint !== BOOKING_NOTHING_BOOKED_HINT;
    return answerWithForm(submission, uncertain ? text.uncertain : text.unavailable, {
      status: 503,
    });
  }
  // Another refusal (a key the API saw with another booking): a new form, a new key.
  return answerWithForm({ ...submission, idempotencyKey: undefined }, text.failed, {
    status: error.status,
  });
}

/** Books what the form holds, answering with a page in the form's language. */
async function submitBookingForm(
  form: BookingForm,
  page: { site: Site; entry: SitePage; request: Request },
  context: RequestContext,
): Promise<Response> {
  const { services } = form;
  const { site, entry, request } = page;
  const settings = site.corpus.languages[entry.page.language];
  const bookings = await form.loadBookings();
  const prefix = await readBodyPrefix(request, { maxBytes: MAX_FORM_BYTES });
  // Read leniently when the strict reading fails: a body too large keeps what arrived of it.
  const readTyped = () =>
    parseFormValues(prefix.bytes, {
      contentType: request.headers.get("Content-Type") ?? "",
      outcome: prefix.outcome,
    }).fields;
  const strict = prefix.outcome === "complete" ? await parseFormFields(request, prefix) : undefined;
  const fields = strict ?? readTyped();
  form.typed.set(request, () => fields);
  const submission = await readSubmission(form, page, fields);
  if (prefix.outcome === "too-large") {
    return answerWithForm(submission, settings.booking.tooLarge, {
      status: 413,
      extra: { max: String(MAX_FORM_BYTES / 1024) },
    });
  }
  if (!strict) return answerWithForm(submission, settings.booking.unreadable, { status: 400 });
  let booking: BookingRequest;
  try {
    booking = requireFields(BOOKING_FIELDS, BookingRequest, submission.input);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return answerInvalid(submission, error);
  }
  // The form's key, or one of this submission's own: its record names the booking made.
  const idempotencyKey = submission.idempotencyKey ?? FORM_KEY_PREFIX + crypto.randomUUID();
  const timeZone = readDisplayZone(submission.timeZone).displayTimeZone;
  let result;
  try {
    result = await bookings.createBooking(services, booking, {
      origin: { clientAddress: context.clientKey, ...(timeZone ? { timeZone } : {}) },
      idempotencyKey,
    });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return answerRefused(submission, error);
  }
  return answerBooked(form, submission, { result, idempotencyKey });
}

/**
 * Answers a booking made (or replayed): `303 See Other` to the booking's page (its signed
 * `/booking/view` link: what, when, where, the calendar, the attendee's links), so that reloading
 * the page sends nothing again; when the booking's record cannot be read, a page that says it was
 * booked instead. The signed link answers its own `303` to the page's URL without `sig`, with the
 * cookie that opens it (`answerLinkExchange` in `booking_actions.ts`): one more redirect, which
 * browsers and the booking script's `fetch` follow with the cookie, and one place that sets it.
 */
async function answerBooked(
  form: BookingForm,
  submission: BookingSubmission,
  booked: { result: BookingResult; idempotencyKey: string },
): Promise<Response> {
  const { services } = form;
  const { site, entry, request } = submission;
  const bookings = await form.loadBookings();
  try {
    const kept = await services.store.get<IdempotencyRecord>([
      ...bookings.IDEMPOTENCY_PREFIX,
      booked.idempotencyKey,
    ]);
    const bookingId = kept.value?.bookingId;
    if (bookingId) {
      const location = await services.linkSigner.buildUrl("", "view", bookingId);
      return new Response(null, {
        status: 303,
        headers: { Location: location, "Cache-Control": "no-store" },
      });
    }
  } catch (error) {
    services.logger.warn("Booked, but its page could not be linked", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  const settings = site.corpus.languages[entry.page.language];
  const text = settings.booking;
  const message = booked.result.status === "pending" ? text.pending : text.accepted;
  const { formatStart } = await form.bookingPage.loadWidget();
  const zone = readDisplayZone(submission.timeZone).displayTimeZone ?? services.schedule.timeZone;
  const time = formatStart(booked.result.start, settings.tag, zone);
  const notice = submission.fill(message, { time }).replace(/\*/g, "\\*");
  return respond(
    request,
    buildNoticePage(site, entry.page.language, { title: entry.page.title, text: notice }),
  );
}

/**
 * The prefix of the idempotency keys the booking form carries, apart from the keys API clients
 * choose.
 */
const FORM_KEY_PREFIX = "form:";

/** The form's idempotency key, when it sent one that the API would take too. */
function readFormKey(fields: URLSearchParams): string | undefined {
  const key = fields.get("idempotency")?.trim();
  return key?.startsWith(FORM_KEY_PREFIX) && IDEMPOTENCY_KEY_PATTERN.test(key) ? key : undefined;
}

/** Whether a text reads as an instant with an offset (RFC 3339, as Temporal reads it). */
function isInstant(value: string | undefined): value is string {
  if (!value) return false;
  try {
    Temporal.Instant.from(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The handlers of the booking form's `POST` on a page whose layout is `booking` (their routes are
 * entries of `routes/mod.ts`, counted against the write and booking quotas like
 * `POST /api/v1/booking`); every answer is a page in the form's language, and every refusal shows
 * the form again with what the person typed.
 *
 * @param services The site's services.
 * @returns The handlers of the form on the page at a path.
 * @throws {Error} When no page has that path.
 */
export function createBookingForm(services: SiteServices): (path: string) => RouteHandlers {
  const form: BookingForm = {
    services,
    bookingPage: createBookingPage(services),
    // The booking engine and its mail are loaded by the form's first submission.
    loadBookings: loadOnce(() => import("../lib/booking/bookings.ts")),
    typed: new WeakMap(),
  };
  return (path) => {
    const page = services.content.pages.find((candidate) => candidate.path === path);
    if (!page) throw new Error(`No page at "${path}"`);
    const prepare = async (request: Request) => {
      const site = await services.site();
      const entry = site.pages.get(page.path);
      if (!entry) throw new Error(`No prepared page at "${page.path}"`);
      return { site, entry, request };
    };
    /** The submission as the handler read it, or from a body no one has read yet. */
    const readRefused = async (request: Request) => {
      const fields = form.typed.get(request)?.() ??
        (await readFormValues(request, MAX_FORM_BYTES)).fields;
      return readSubmission(form, await prepare(request), fields);
    };
    return {
      answerRefused: async (request, _context, error) => {
        const submission = await readRefused(request);
        const text = submission.site.corpus.languages[page.language].booking;
        const refused = error instanceof ApiError && error.status === 403;
        const status = error instanceof ApiError && error.status >= 400 ? error.status : 500;
        return answerWithForm(submission, refused ? text.originRejected : text.failed, { status });
      },
      answerRateLimited: async (request, _context, retryAfterSeconds) => {
        const submission = await readRefused(request);
        const seconds = String(retryAfterSeconds);
        const text = submission.site.corpus.languages[page.language].booking;
        return answerWithForm(submission, text.rateLimited, {
          status: 429,
          headers: [["Retry-After", seconds]],
          extra: { seconds },
        });
      },
      handle: async (request, context) => {
        return submitBookingForm(form, await prepare(request), context);
      },
    };
  };
}
