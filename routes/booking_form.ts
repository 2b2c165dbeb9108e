/**
 * The booking pages for people without JavaScript: `GET /marcar-conversa` and
 * `GET /en/book` render a month's free times on the server as a form (`?month=YYYY-MM` picks the
 * month, from the current one to six ahead), and `POST` to the same paths books through the same
 * service, validation, quotas (write and booking), Origin rule and honeypot as
 * `POST /api/v1/booking`, answering with a page in the form's language: booked or awaiting
 * confirmation, the form again with what to fix (400) or with the other free times (409), or a
 * page saying what happened (429, 503). Never JSON.
 *
 * @module
 */
import { ApiError } from "../lib/contract/api_error.ts";
import {
  BOOKING_FIELDS,
  IDEMPOTENCY_KEY_PATTERN,
  MAX_BODY_BYTES,
} from "../lib/contract/contract.ts";
import { requireFields } from "../lib/contract/require_fields.ts";
import { BookingRequest } from "../lib/contract/request_structs.ts";
import { BodyError, discardBody, readBody, readMediaType } from "../lib/http/read_body.ts";
import { buildNoticePage, fillBase, type Site, type SitePage } from "../lib/site/site.ts";
import type { BookingFormState } from "../lib/site/render_booking_widget.ts";
import { type HeaderPair, respond, toRepresentation } from "../lib/http/representation.ts";
import type { RequestContext, RouteHandlers } from "../lib/http/route.ts";
import type { Services, SiteServices } from "../lib/services.ts";
import type { Language } from "../lib/site/corpus.ts";
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

/** The month a booking page shows: `?month=` when valid, else the current month. */
export function pickMonth(
  services: Services,
  url: URL,
): Pick<BookingFormState, "month" | "previousMonth" | "nextMonth"> {
  const { timeZone } = services.schedule;
  const now = services.clock.now();
  const current = now.toZonedDateTimeISO(timeZone).toPlainDate().toPlainYearMonth();
  let month = current;
  const asked = url.searchParams.getAll("month");
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

/** What a booking page shows again after a refused submission, and its status. */
export type BookingPageOptions =
  & { status?: number }
  & Pick<BookingFormState, "values" | "problems" | "notice">;

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
      const months = pickMonth(services, new URL(request.url));
      const state: BookingFormState = {
        path: entry.page.path,
        ...months,
        timeZone: services.schedule.timeZone,
        slots: await readSlots(services, months.month),
        values: options.values,
        problems: options.problems,
        notice: options.notice,
        idempotencyKey: FORM_KEY_PREFIX + crypto.randomUUID(),
      };
      const html = site.renderHtml({
        language: entry.page.language,
        title: entry.page.title,
        description: entry.page.description,
        mainHtml: entry.bodyHtml + renderBookingWidget(site.corpus, entry.page.language, state),
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
        { status: options.status ?? 200 },
      );
    },
  };
}

/** Reads the form's fields: `application/x-www-form-urlencoded`, UTF-8, bounded. */
async function readFormFields(request: Request): Promise<URLSearchParams | undefined> {
  const { mediaType } = readMediaType(request);
  if (mediaType === "multipart/form-data") {
    const length = Number(request.headers.get("Content-Length") ?? "0");
    if (length > MAX_FORM_BYTES) {
      discardBody(request);
      return undefined;
    }
    try {
      const form = await request.formData();
      const params = new URLSearchParams();
      for (const [name, value] of form) if (typeof value === "string") params.append(name, value);
      return params;
    } catch {
      return undefined;
    }
  }
  if (mediaType !== "application/x-www-form-urlencoded") {
    discardBody(request);
    return undefined;
  }
  try {
    const bytes = await readBody(request, MAX_FORM_BYTES);
    return new URLSearchParams(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    if (error instanceof BodyError || error instanceof TypeError) return undefined;
    throw error;
  }
}

/** What the booking form's submissions share: the services, the page, the booking engine. */
interface BookingForm {
  services: SiteServices;
  bookingPage: BookingPage;
  /** Loads the booking engine and its mail once, with the form's first submission. */
  loadBookings(): Promise<Bookings>;
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
  /** Fills a text of the page: the site's base, the time asked for, the attendee, and `extra`. */
  fill(template: string, extra?: Record<string, string>): string;
}

/** Answers a page that says what happened, in the form's language. */
function answerNotice(
  submission: BookingSubmission,
  text: string,
  options: { status?: number; headers?: HeaderPair[] } = {},
): Promise<Response> {
  const { site, entry, request } = submission;
  const page = buildNoticePage(site, entry.page.language, { title: entry.page.title, text });
  return respond(request, page, options);
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
  });
}

/** Answers a booking the service refused: taken (409), limited (429), uncertain (503), other. */
function answerRefused(submission: BookingSubmission, error: ApiError): Promise<Response> {
  const { site, entry, request, values, fill } = submission;
  const text = site.corpus.languages[entry.page.language].booking;
  if (error.status === 409) {
    return submission.bookingPage.answer(site, entry, request, {
      status: 409,
      values: { ...values, start: "" },
      notice: { text: fill(text.conflict), kind: "bad" },
    });
  }
  if (error.status === 429) {
    const seconds = error.headers["Retry-After"] ?? "60";
    return answerNotice(submission, fill(text.rateLimited, { seconds }), {
      status: 429,
      headers: [["Retry-After", seconds]],
    });
  }
  if (error.status === 503) {
    // Never invite a blind retry: the booking may exist.
    return answerNotice(submission, fill(text.uncertain), { status: 503 });
  }
  return submission.bookingPage.answer(site, entry, request, {
    status: error.status,
    values,
    notice: { text: fill(text.failed), kind: "bad" },
  });
}

/** Books what the form holds, answering with a page in the form's language. */
async function submitBookingForm(
  form: BookingForm,
  site: Site,
  entry: SitePage,
  request: Request,
  context: RequestContext,
): Promise<Response> {
  const { services, bookingPage } = form;
  const language = entry.page.language;
  const settings = site.corpus.languages[language];
  const [{ createBooking }, { formatStart }] = await Promise.all([
    form.loadBookings(),
    bookingPage.loadWidget(),
  ]);
  const fields = await readFormFields(request);
  if (!fields) {
    return respond(request, buildNoticePage(site, language, settings.form.badForm), {
      status: 400,
    });
  }
  const { values, input } = readBookingInput(fields, language);
  const { timeZone } = services.schedule;
  // The start as sent may be anything (the form's own values, or a forged post): it is shown as a
  // time only once it reads as an instant, and answered by validation otherwise.
  const time = isInstant(values.start) ? formatStart(values.start, settings.tag, timeZone) : "";
  const fill = (template: string, extra: Record<string, string> = {}) =>
    fillBase(template, site.baseUrl).replace(
      /\{(\w+)\}/g,
      (all, name: string) => ({ time, attendee: values.email, ...extra })[name] ?? all,
    );
  const submission: BookingSubmission = { bookingPage, site, entry, request, values, fill };
  let booking: BookingRequest;
  try {
    booking = requireFields(BOOKING_FIELDS, BookingRequest, input);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return answerInvalid(submission, error);
  }
  try {
    const result = await createBooking(services, booking, {
      origin: { clientAddress: context.clientKey },
      idempotencyKey: readFormKey(fields),
    });
    const text = settings.booking;
    const message = result.status === "pending" ? text.pending : text.accepted;
    const time = formatStart(result.start, settings.tag, timeZone);
    return answerNotice(submission, fill(message, { time }).replace(/\*/g, "\\*"));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return answerRefused(submission, error);
  }
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
 * `POST /api/v1/booking`); every answer is a page in the form's language.
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
  };
  return (path) => {
    const page = services.content.pages.find((candidate) => candidate.path === path);
    if (!page) throw new Error(`No page at "${path}"`);
    const prepare = async () => {
      const site = await services.site();
      const entry = site.pages.get(page.path);
      if (!entry) throw new Error(`No prepared page at "${page.path}"`);
      return { site, entry };
    };
    return {
      answerRefused: async (request, _context, error) => {
        discardBody(request);
        const { site } = await prepare();
        const text = site.corpus.languages[page.language].booking;
        const refused = error instanceof ApiError && error.status === 403;
        return respond(
          request,
          buildNoticePage(site, page.language, {
            title: page.title,
            text: refused ? text.originRejected : text.failed,
          }),
          { status: refused ? 403 : 500 },
        );
      },
      answerRateLimited: async (request, _context, retryAfterSeconds) => {
        discardBody(request);
        const { site } = await prepare();
        const seconds = String(retryAfterSeconds);
        const text = site.corpus.languages[page.language].booking.rateLimited;
        return respond(
          request,
          buildNoticePage(site, page.language, {
            title: page.title,
            text: text.replace("{seconds}", seconds),
          }),
          { status: 429, headers: [["Retry-After", seconds]] },
        );
      },
      handle: async (request, context) => {
        const { site, entry } = await prepare();
        return submitBookingForm(form, site, entry, request, context);
      },
    };
  };
}
