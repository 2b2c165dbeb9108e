/**
 * The booking form of the booking pages, rendered on the server so it works without JavaScript:
 * the month's free times as a radio group per day (in the schedule's zone), month navigation by
 * link, the attendee's details and a honeypot, posting to the page's own path. After a refused
 * submission it is shown again with the person's values, a message per field and the notice of
 * what happened. Its script (`lib/site/browser/booking.js`) only enhances it: it books through the
 * API without leaving the page and refreshes the times after a 409.
 *
 * @module
 */
import { paramAttribute, toolAttributes } from "./webmcp.ts";
import {
  BOOKING_FIELDS,
  BOOKING_NOTHING_BOOKED_HINT,
  buildParameterDescription,
  getOperation,
  getParameter,
} from "../contract/contract.ts";
import type { FieldProblem } from "../contract/fields.ts";
import type { BookingText, Corpus, Language } from "./corpus.ts";
import { escapeHtml } from "../mail/mail.ts";
import { toZoneName } from "../availability/to_zone_name.ts";

/** What the booking form shows. */
export interface BookingFormState {
  /** The page's path, where the form posts and the month links point. */
  path: string;
  /** The month shown, `YYYY-MM`. */
  month: string;
  /** The months before and after it that may be shown, if any. */
  previousMonth?: string;
  nextMonth?: string;
  /** The schedule's zone, in which days and times are written. */
  timeZone: string;
  /** The free starts by date, or `undefined` when the calendar could not be read. */
  slots?: Record<string, Array<{ start: string }>>;
  /** The person's values after a refused submission. */
  values?: Partial<Record<"start" | "name" | "email" | "company" | "topic", string>>;
  /** Problems to show, one per field at most. */
  problems?: readonly FieldProblem[];
  /** A notice above the form: what happened to the last submission. */
  notice?: { text: string; kind: "ok" | "bad" };
  /**
   * The key this rendering of the form sends as its booking's idempotency key (a hidden field), so
   * that the same form posted twice (a double click, a browser's retry, back and resend) books once
   * and answers the second post as the first; a new one for every rendering.
   */
  idempotencyKey?: string;
}

/** Upper-cases the first letter only ("segunda-feira, 23 de novembro" → "Segunda-feira, …"). */
function capitalize(text: string, tag: string): string {
  return text.charAt(0).toLocaleUpperCase(tag) + text.slice(1);
}

/**
 * Writes an instant as the booking pages do: the full date and the 24-hour time in the zone.
 *
 * @param start An ISO 8601 instant. @param tag The language's BCP 47 tag. @param timeZone The zone.
 */
export function formatStart(start: string, tag: string, timeZone: string): string {
  return new Intl.DateTimeFormat(tag, {
    timeZone,
    dateStyle: "full",
    timeStyle: "short",
    hourCycle: "h23",
  }).format(new Date(Temporal.Instant.from(start).epochMilliseconds));
}

/** The person's values after a refused submission. */
type BookingValues = NonNullable<BookingFormState["values"]>;

/** The message of each field with a problem, the first problem of a field only. */
type FieldMessages = ReadonlyMap<string, string>;

/** The messages of the problems to show, in the form's language. */
function describeProblems(
  corpus: Corpus,
  language: Language,
  state: BookingFormState,
): FieldMessages {
  const settings = corpus.languages[language];
  const messages = new Map<string, string>();
  for (const problem of state.problems ?? []) {
    if (messages.has(problem.field)) continue;
    // The contact form's messages say what each kind of problem means; bounds are booking's.
    const field = BOOKING_FIELDS[problem.field as keyof typeof BOOKING_FIELDS];
    const message = problem.field === "start"
      ? settings.booking.missingTime
      : settings.form.problems[problem.problem]
        .replace("{min}", String(field && "minLength" in field ? field.minLength : 0))
        .replace("{max}", String(field?.maxLength ?? ""));
    messages.set(problem.field, message);
  }
  return messages;
}

/** A field's error message, or nothing. */
function renderError(messages: FieldMessages, name: string): string {
  return messages.has(name)
    ? `<span class="error" id="b-${name}-error">${escapeHtml(messages.get(name) ?? "")}</span>`
    : "";
}

/** The attributes that mark an input invalid and tie it to its hint and error. */
function invalidAttributes(messages: FieldMessages, name: string, hint?: string): string {
  const described = [hint, messages.has(name) ? `b-${name}-error` : ""].filter(Boolean);
  return (messages.has(name) ? ' aria-invalid="true"' : "") +
    (described.length ? ` aria-describedby="${described.join(" ")}"` : "");
}

/**
 * The navigation between months: the one before, the one shown, the one after. A `path` with a
 * query (HTML-escaped) keeps it, with `month` added.
 */
export function renderMonthBar(state: BookingFormState, text: BookingText, tag: string): string[] {
  const monthName = capitalize(
    new Intl.DateTimeFormat(tag, { timeZone: "UTC", month: "long", year: "numeric" })
      .format(new Date(`${state.month}-01T12:00:00Z`)),
    tag,
  );
  const joint = state.path.includes("?") ? "&amp;" : "?";
  const monthLink = (month: string | undefined, label: string, rel: string) =>
    month
      ? `<a href="${state.path}${joint}month=${month}#booking" rel="${rel}">${
        escapeHtml(label)
      }</a>`
      : `<span aria-hidden="true"></span>`;
  return [
    `<nav class="month-bar" aria-label="${escapeHtml(text.month)}">`,
    monthLink(state.previousMonth, `← ${text.previousMonth}`, "prev"),
    `<p class="month-name">${escapeHtml(monthName)}</p>`,
    monthLink(state.nextMonth, `${text.nextMonth} →`, "next"),
    "</nav>",
  ];
}

/**
 * The time the person chose, as the only one to show when the free times cannot be read: it
 * stays selected, so that the form can be sent again once the calendar answers.
 */
function keepChosen(values: BookingValues): string | undefined {
  try {
    Temporal.Instant.from(values.start ?? "");
    return values.start;
  } catch {
    return undefined;
  }
}

/**
 * The `Date` of an instant's text: the listing's own, or any form Temporal reads (a time the
 * person sent, annotations included).
 */
function toDate(start: string): Date {
  const date = new Date(start);
  return Number.isNaN(date.getTime())
    ? new Date(Temporal.Instant.from(start).epochMilliseconds)
    : date;
}

/** The month's free times, a radio group per day; or why there are none. */
export function renderDays(
  state: BookingFormState,
  text: BookingText,
  { tag, values }: { tag: string; values: BookingValues },
): string {
  if (!state.slots) {
    const start = keepChosen(values);
    const status = `<p class="slots-status notice">${escapeHtml(text.slotsFailed)}</p>`;
    return start
      ? status + renderDays({ ...state, slots: { [start]: [{ start }] } }, text, { tag, values })
      : status;
  }
  if (Object.keys(state.slots).length === 0) {
    return `<p class="slots-status">${escapeHtml(text.noSlots)}</p>`;
  }
  const dayFormat = new Intl.DateTimeFormat(tag, {
    timeZone: state.timeZone,
    weekday: "long",
    day: "numeric",
    month: "long",
  });
  const timeFormat = new Intl.DateTimeFormat(tag, {
    timeZone: state.timeZone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  const startParam = paramAttribute(BOOKING_FIELDS, "start");
  const days = Object.entries(state.slots).map(([date, starts], index) => {
    const legend = capitalize(
      dayFormat.format(starts[0] ? toDate(starts[0].start) : new Date(date)),
      tag,
    );
    const radios = starts.map(({ start }) =>
      `<label><input type="radio" name="start" value="${escapeHtml(start)}"${
        values.start === start ? " checked" : ""
      }${index === 0 ? " required" : ""}${startParam}><span>${
        timeFormat.format(toDate(start))
      }</span></label>`
    ).join("");
    return `<fieldset><legend>${
      escapeHtml(legend)
    }</legend><div class="times">${radios}</div></fieldset>`;
  }).join("");
  return `<div class="days">${days}</div>`;
}

/** The notice above the form: what happened to the last submission, or an empty status. */
/**
 * Fills the note on the times' zone (`BookingText.timeZone`): `{zone}` with the schedule's zone
 * named for people in the page's language (in the month shown), `{timeZone}` with its IANA id.
 */
function describeTimeZone(note: string, state: BookingFormState, tag: string): string {
  const at = Temporal.PlainDate.from(`${state.month}-01`).toZonedDateTime(state.timeZone)
    .toInstant();
  return note.replaceAll("{zone}", toZoneName(state.timeZone, { locale: tag, at }))
    .replaceAll("{timeZone}", state.timeZone);
}

function renderNotice(state: BookingFormState): string {
  return state.notice
    ? `<p class="booking-result notice${
      state.notice.kind === "ok" ? " ok" : ""
    }" role="status" tabindex="-1">${escapeHtml(state.notice.text)}</p>`
    : '<p class="booking-result" role="status" tabindex="-1"></p>';
}

/**
 * The attendee's details (name, e-mail, company, topic), the honeypot, the form's idempotency key
 * and the button.
 */
function renderDetails(
  text: BookingText,
  values: BookingValues,
  messages: FieldMessages,
  idempotencyKey: string | undefined,
): string[] {
  const optional = ` <span class="opt">(${escapeHtml(text.optional)})</span>`;
  const value = (name: keyof BookingValues) =>
    values[name] ? ` value="${escapeHtml(values[name] ?? "")}"` : "";
  const field = (id: string, name: string, label: string, input: string, hint?: string) =>
    `<div class="field"><label for="${id}">${label}</label>${
      hint ? `<span class="hint" id="${id}-hint">${escapeHtml(hint)}</span>` : ""
    }${renderError(messages, name)}${input}</div>`;
  return [
    '<div class="booking-details">',
    '<div class="field-row">',
    field(
      "b-name",
      "name",
      escapeHtml(text.name),
      `<input id="b-name" name="name" autocomplete="name" required minlength="${BOOKING_FIELDS.name.minLength}" maxlength="${BOOKING_FIELDS.name.maxLength}"${
        value("name")
      }${invalidAttributes(messages, "name")}${paramAttribute(BOOKING_FIELDS, "name")}>`,
    ),
    field(
      "b-email",
      "email",
      escapeHtml(text.email),
      `<input id="b-email" name="email" type="email" autocomplete="email" required maxlength="${BOOKING_FIELDS.email.maxLength}"${
        value("email")
      }${invalidAttributes(messages, "email")}${paramAttribute(BOOKING_FIELDS, "email")}>`,
    ),
    "</div>",
    field(
      "b-company",
      "company",
      escapeHtml(text.company) + optional,
      `<input id="b-company" name="company" autocomplete="organization" maxlength="${BOOKING_FIELDS.company.maxLength}"${
        value("company")
      }${invalidAttributes(messages, "company")}${paramAttribute(BOOKING_FIELDS, "company")}>`,
    ),
    field(
      "b-topic",
      "topic",
      escapeHtml(text.topic),
      `<textarea id="b-topic" name="topic" rows="4" required minlength="${BOOKING_FIELDS.topic.minLength}" maxlength="${BOOKING_FIELDS.topic.maxLength}"${
        invalidAttributes(messages, "topic", "b-topic-hint")
      }${paramAttribute(BOOKING_FIELDS, "topic")}>${escapeHtml(values.topic ?? "")}</textarea>`,
      text.topicHint,
    ),
    // A field people never see: software that fills every input is refused, as by the API.
    '<div hidden><label for="b-website">Website</label>' +
    '<input id="b-website" name="website" tabindex="-1" autocomplete="off"></div>',
    ...(idempotencyKey
      ? [`<input type="hidden" name="idempotency" value="${escapeHtml(idempotencyKey)}">`]
      : []),
    `<button type="submit">${escapeHtml(text.submit)}</button>`,
    "</div>",
  ];
}

/**
 * Renders the booking form with its configuration block.
 *
 * @param corpus The corpus, for the language's text.
 * @param language The page's language, also the booking's `locale`.
 * @param state The month, its free times and what to show again.
 * @returns The form's HTML.
 */
export function renderBookingWidget(
  corpus: Corpus,
  language: Language,
  state: BookingFormState,
): string {
  const settings = corpus.languages[language];
  const text = settings.booking;
  const tag = settings.tag;
  const values = state.values ?? {};
  const messages = describeProblems(corpus, language, state);
  // A JSON data block is never executed, so the page's Content-Security-Policy allows it; "<" is
  // escaped so no text can close the element.
  // The slot listing as a WebMCP tool, registered by the script where the browser offers it;
  // its month is counted in the schedule's zone, as the API's.
  const tool = {
    name: "list_available_slots",
    description: getOperation("listBookingSlots").description,
    path: getOperation("listBookingSlots").path,
    monthDescription: buildParameterDescription(
      getParameter("listBookingSlots", "month"),
      state.timeZone,
    ),
  };
  // The script tells a 503 that booked nothing (a retry is safe) from one that may hide a booking
  // by its hint, as the page without JavaScript does.
  const nothingBookedHint = BOOKING_NOTHING_BOOKED_HINT;
  // The script writes times in the schedule's zone, as this form does (not the visitor's).
  const timeZone = state.timeZone;
  const config = JSON.stringify({ tag, locale: language, timeZone, text, tool, nothingBookedHint })
    .replace(/</g, "\\u003c");
  return [
    '<section class="booking" id="booking" aria-labelledby="booking-title">',
    `<h2 id="booking-title">${escapeHtml(text.chooseTime)}</h2>`,
    `<p class="small">${escapeHtml(describeTimeZone(text.timeZone, state, tag))}</p>`,
    ...renderMonthBar(state, text, tag),
    renderNotice(state),
    // A tool for an agent in the browser (WebMCP), which a person still submits.
    `<form method="post" action="${state.path}?month=${state.month}"${
      toolAttributes("book_call", "createBooking", false)
    }>`,
    // The free times are one parameter, `start`: Chromium describes a radio group by the
    // fieldset around all of it (a description on each radio is read only when there is one).
    `<fieldset class="slots"${paramAttribute(BOOKING_FIELDS, "start")}><legend>${
      escapeHtml(text.days)
    }</legend>`,
    renderError(messages, "start"),
    renderDays(state, text, { tag, values }),
    "</fieldset>",
    ...renderDetails(text, values, messages, state.idempotencyKey),
    "</form>",
    "</section>",
    `<script type="application/json" id="booking-config">${config}</script>`,
  ].join("\n");
}
