/**
 * The booking picker of the booking pages (and of the attendee's reschedule page), rendered on
 * the server so it works without JavaScript: the month as a calendar whose days with free times
 * are links, the chosen day's free times as one radio group beside it, the form next to them,
 * and the zone the times are written in, with a chooser (`?tz=`, an IANA zone). After a refused
 * submission it is shown again with the person's values, a message per field and the notice of
 * what happened. Its script (`lib/site/browser/booking.js`) only enhances it: it writes the times
 * in the browser's zone, switches days without a round trip, and posts the page's own form.
 *
 * @module
 */
import { paramAttribute, toolAttributes } from "./webmcp.ts";
import {
  BOOKING_FIELDS,
  buildParameterDescription,
  getOperation,
  getParameter,
} from "../contract/contract.ts";
import type { FieldProblem } from "../contract/fields.ts";
import type { BookingText, Corpus, Language } from "./corpus.ts";
import { escapeHtml } from "../mail/mail.ts";
import { toZoneName } from "../availability/to_zone_name.ts";

/** The free starts of a month by date (`YYYY-MM-DD` in the zone shown), as the API lists them. */
export type SlotsByDate = Record<string, Array<{ start: string }>>;

/** What the booking picker shows. */
export interface BookingFormState {
  /** The page's path (no query), where the form posts and the month and day links point. */
  path: string;
  /** The month shown, `YYYY-MM`, counted in the zone shown. */
  month: string;
  /** The months before and after it that may be shown, if any. */
  previousMonth?: string;
  nextMonth?: string;
  /** The schedule's zone (the studio's), an IANA id. */
  timeZone: string;
  /**
   * The zone the days and times are written in (the visitor's choice, `?tz=`); the schedule's
   * zone when absent.
   */
  displayTimeZone?: string;
  /** A `tz` that was asked for but is not a zone `Intl` knows: the page says so. */
  unknownTimeZone?: string;
  /** The day whose times are shown, `YYYY-MM-DD` in the zone shown; the first free one if absent. */
  day?: string;
  /** The free starts by date in the zone shown, or `undefined` when the calendar could not be read. */
  slots?: SlotsByDate;
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
  /** The meeting's length, in minutes (the schedule's `meetingMinutes`). */
  meetingMinutes?: number;
}

/**
 * The picker's words that the corpus's {@linkcode BookingText} does not carry, per language:
 * `{zone}`, `{city}`, `{minutes}`, `{count}` and `{timeZone}` are filled in.
 */
export const PICKER_WORDS = {
  pt: {
    studioTime: "Hora do estúdio: {zone}.",
    showStudio: "Ver na hora do estúdio",
    showYours: "Ver na sua hora ({city})",
    changeZone: "Mudar de fuso horário",
    zoneLabel: "Fuso horário",
    showTimes: "Mostrar as horas",
    unknownZone:
      "Não conhecemos o fuso horário “{timeZone}”: as horas estão na hora do estúdio ({zone}).",
    minutes: "{minutes} min",
    freeTimes: "{count} horas livres",
    freeTime: "1 hora livre",
    noTimes: "Sem horas livres",
    chosenDay: "Dia escolhido",
    currentSlot: "a sua hora atual",
  },
  en: {
    studioTime: "The studio's time: {zone}.",
    showStudio: "Show in the studio's time",
    showYours: "Show in your time ({city})",
    changeZone: "Change time zone",
    zoneLabel: "Time zone",
    showTimes: "Show times",
    unknownZone:
      "We do not know the time zone “{timeZone}”: the times are in the studio's time ({zone}).",
    minutes: "{minutes} min",
    freeTimes: "{count} free times",
    freeTime: "1 free time",
    noTimes: "No free times",
    chosenDay: "Chosen day",
    currentSlot: "your current time",
  },
} as const;

/** The picker's words in one language. */
export type PickerWords = typeof PICKER_WORDS[Language];

/** Fills `{name}` placeholders of a text. */
function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (all, name) => name in values ? String(values[name]) : all);
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

/** The zone the picker writes times in. */
function shownZone(state: BookingFormState): string {
  return state.displayTimeZone ?? state.timeZone;
}

/**
 * A link of the picker to the same page: `path` (HTML-escaped, and possibly with a query of its
 * own) with the month, the zone shown and, for a day, the day; HTML-escaped.
 */
export function buildPickerHref(
  state: BookingFormState,
  query: { month: string; day?: string },
  fragment: string,
): string {
  const params = new URLSearchParams({ month: query.month, tz: shownZone(state) });
  if (query.day) params.set("day", query.day);
  const joint = state.path.includes("?") ? "&amp;" : "?";
  return `${state.path}${joint}${escapeHtml(params.toString())}#${fragment}`;
}

/** The navigation between months: the one before, the one shown, the one after. */
export function renderMonthBar(state: BookingFormState, text: BookingText, tag: string): string[] {
  const monthName = capitalize(
    new Intl.DateTimeFormat(tag, { timeZone: "UTC", month: "long", year: "numeric" })
      .format(new Date(`${state.month}-01T12:00:00Z`)),
    tag,
  );
  const monthLink = (month: string | undefined, label: string, arrow: string, rel: string) =>
    month
      ? `<a href="${buildPickerHref(state, { month }, "booking")}" rel="${rel}" aria-label="${
        escapeHtml(label)
      }" title="${escapeHtml(label)}">${arrow}</a>`
      : `<span class="month-off" aria-hidden="true">${arrow}</span>`;
  return [
    `<nav class="month-bar" aria-label="${escapeHtml(text.month)}">`,
    `<p class="month-name">${escapeHtml(monthName)}</p>`,
    monthLink(state.previousMonth, text.previousMonth, "←", "prev"),
    monthLink(state.nextMonth, text.nextMonth, "→", "next"),
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

/** The date of an instant in a zone, `YYYY-MM-DD`. */
export function toZoneDate(start: string, timeZone: string): string {
  return Temporal.Instant.from(start).toZonedDateTimeISO(timeZone).toPlainDate().toString();
}

/**
 * The day whose times the picker shows: the day asked for when it has free times, else the day
 * of the chosen time, else the first day with free times.
 */
export function pickDay(state: BookingFormState): string | undefined {
  const slots = state.slots ?? {};
  if (state.day && slots[state.day]) return state.day;
  const chosen = keepChosen(state.values ?? {});
  if (chosen) {
    const day = toZoneDate(chosen, shownZone(state));
    if (slots[day]) return day;
  }
  return Object.keys(slots).sort()[0];
}

/** A day written for people, e.g. "Wednesday, 2 December". */
function formatDay(date: string, tag: string): string {
  return capitalize(
    new Intl.DateTimeFormat(tag, {
      timeZone: "UTC",
      weekday: "long",
      day: "numeric",
      month: "long",
    }).format(new Date(`${date}T12:00:00Z`)),
    tag,
  );
}

/** The rows of the month's calendar, Monday first: each day's date, or `undefined` outside it. */
function buildWeeks(month: string): Array<Array<string | undefined>> {
  const first = Temporal.PlainDate.from(`${month}-01`);
  const cells: Array<string | undefined> = Array(first.dayOfWeek - 1).fill(undefined);
  for (let day = 1; day <= first.daysInMonth; day++) {
    cells.push(first.with({ day }).toString());
  }
  while (cells.length % 7) cells.push(undefined);
  const weeks = [];
  for (let index = 0; index < cells.length; index += 7) weeks.push(cells.slice(index, index + 7));
  return weeks;
}

/** The month as a calendar: days with free times are links to their times, the rest are not. */
export function renderCalendar(
  state: BookingFormState,
  options: { tag: string; words: PickerWords; chosenDay?: string; markedDay?: string },
): string {
  const { tag, words, chosenDay, markedDay } = options;
  const slots = state.slots ?? {};
  const weekday = new Intl.DateTimeFormat(tag, { timeZone: "UTC", weekday: "long" });
  // 2024-01-01 was a Monday. Each column is headed by three letters ("Mon", "seg"), the day's
  // name in full as the abbreviation's title.
  const heads = Array.from({ length: 7 }, (_, index) => {
    const name = weekday.format(new Date(Date.UTC(2024, 0, 1 + index, 12)));
    return `<th scope="col"><abbr title="${escapeHtml(name)}">${
      escapeHtml(name.slice(0, 3))
    }</abbr></th>`;
  }).join("");
  const cell = (date: string | undefined) => {
    if (!date) return "<td></td>";
    const count = slots[date]?.length ?? 0;
    const label = `${formatDay(date, tag)}: ${
      count === 0 ? words.noTimes : count === 1 ? words.freeTime : fill(words.freeTimes, { count })
    }`;
    const number = String(Number(date.slice(8)));
    const marked = date === markedDay ? " marked" : "";
    if (count === 0 && date !== markedDay) {
      return `<td><span class="day-off${marked}" title="${
        escapeHtml(label)
      }">${number}</span></td>`;
    }
    return `<td><a class="day${marked}" href="${
      buildPickerHref(state, { month: state.month, day: date }, "times")
    }" data-day="${date}" aria-label="${escapeHtml(label)}"${
      date === chosenDay ? ' aria-current="date"' : ""
    }>${number}</a></td>`;
  };
  const rows = buildWeeks(state.month).map((week) => `<tr>${week.map(cell).join("")}</tr>`);
  const monthName = new Intl.DateTimeFormat(tag, {
    timeZone: "UTC",
    month: "long",
    year: "numeric",
  }).format(new Date(`${state.month}-01T12:00:00Z`));
  return `<table class="month" aria-label="${
    escapeHtml(capitalize(monthName, tag))
  }"><thead><tr>${heads}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

/** Options of {@linkcode renderTimes}. */
interface TimesOptions {
  tag: string;
  values: BookingValues;
  /** The day shown. */
  chosenDay?: string;
  /** A start to mark among the times, not to choose (the booking being moved). */
  markedStart?: string;
  words: PickerWords;
}

/**
 * The month's free times, a group per day (`.days`), every group but the chosen day's hidden; one
 * radio group, `start`, whose first radio of the chosen day carries `required`.
 */
export function renderDays(state: BookingFormState, options: TimesOptions): string {
  const zone = shownZone(state);
  const { tag, values, chosenDay } = options;
  const timeFormat = new Intl.DateTimeFormat(tag, {
    timeZone: zone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  const toTime = (start: string) =>
    timeFormat.format(new Date(Temporal.Instant.from(start).epochMilliseconds));
  const marked = options.markedStart;
  const days = { ...(state.slots ?? {}) };
  const markedDay = marked ? toZoneDate(marked, zone) : undefined;
  if (markedDay && markedDay.startsWith(state.month)) days[markedDay] ??= [];
  const groups = Object.keys(days).sort().map((date) => {
    const radios = days[date].map(({ start }, index) =>
      `<label><input type="radio" name="start" value="${escapeHtml(start)}"${
        values.start === start ? " checked" : ""
      }${date === chosenDay && index === 0 ? " required" : ""}><span>${
        toTime(start)
      }</span></label>`
    );
    if (markedDay === date && marked) {
      const at = Temporal.Instant.from(marked).epochMilliseconds;
      const position = days[date].filter(({ start }) =>
        Temporal.Instant.from(start).epochMilliseconds < at
      ).length;
      radios.splice(
        position,
        0,
        `<div class="current"><span>${toTime(marked)}</span> <small>${
          escapeHtml(options.words.currentSlot)
        }</small></div>`,
      );
    }
    return `<div class="day-times" data-day="${date}" data-label="${
      escapeHtml(formatDay(date, tag))
    }"${date === chosenDay ? "" : " hidden"}><div class="times">${radios.join("")}</div></div>`;
  });
  return `<div class="days">${groups.join("")}</div>`;
}

/** The line naming the zone of the times, the studio's zone, and the ways to change the zone. */
export function renderZoneBar(
  state: BookingFormState,
  options: { tag: string; text: BookingText; words: PickerWords; hidden: Record<string, string> },
): string {
  const { tag, text, words } = options;
  const zone = shownZone(state);
  const at = Temporal.PlainDate.from(`${state.month}-01`).toZonedDateTime(zone).toInstant();
  const name = (id: string) => toZoneName(id, { locale: tag, at });
  const shown = fill(text.timeZone, { zone: name(zone), timeZone: zone });
  const studio = zone === state.timeZone
    ? ""
    : ` <span class="zone-studio">${
      escapeHtml(fill(words.studioTime, { zone: name(state.timeZone) }))
    }</span>`;
  const switchLink = zone === state.timeZone ? "" : `<a class="zone-switch" href="${
    buildPickerHref(
      { ...state, displayTimeZone: state.timeZone },
      { month: state.month },
      "booking",
    )
  }">${escapeHtml(words.showStudio)}</a>`;
  const hidden = Object.entries(options.hidden).map(([key, value]) =>
    `<input type="hidden" name="${escapeHtml(key)}" value="${escapeHtml(value)}">`
  ).join("");
  return [
    '<div class="booking-zone">',
    `<p class="zone-line"><span class="zone-shown">${escapeHtml(shown)}</span>${studio}</p>`,
    state.unknownTimeZone
      ? `<p class="notice zone-unknown" role="status">${
        escapeHtml(fill(words.unknownZone, {
          timeZone: state.unknownTimeZone.slice(0, 64),
          zone: name(state.timeZone),
        }))
      }</p>`
      : "",
    '<div class="zone-actions">',
    switchLink,
    `<details class="zone-chooser"><summary>${escapeHtml(words.changeZone)}</summary>`,
    `<form method="get" action="${state.path.split("?")[0]}#booking">${hidden}`,
    `<label for="b-tz">${escapeHtml(words.zoneLabel)}</label>`,
    `<select id="b-tz" name="tz">${renderZoneOptions(zone)}</select>`,
    // Its button is a submit by default; `type` is left to the booking form's button alone.
    `<button class="secondary">${escapeHtml(words.showTimes)}</button>`,
    "</form></details>",
    "</div>",
    "</div>",
  ].join("");
}

/** Every IANA zone `Intl` knows, by region, the zone shown selected. */
function renderZoneOptions(selected: string): string {
  const zones = new Set(Intl.supportedValuesOf("timeZone"));
  zones.add(selected);
  const regions = new Map<string, string[]>();
  for (const zone of [...zones].sort()) {
    const region = zone.includes("/") ? zone.slice(0, zone.indexOf("/")) : "UTC";
    const ids = regions.get(region);
    if (ids) ids.push(zone);
    else regions.set(region, [zone]);
  }
  return [...regions].map(([region, ids]) =>
    `<optgroup label="${escapeHtml(region)}">${
      ids.map((id) =>
        `<option value="${escapeHtml(id)}"${id === selected ? " selected" : ""}>${
          escapeHtml(id.includes("/") ? id.slice(id.indexOf("/") + 1).replace(/_/g, " ") : id)
        }</option>`
      ).join("")
    }</optgroup>`
  ).join("");
}

/** The notice above the form: what happened to the last submission, or an empty status. */
function renderNotice(state: BookingFormState): string {
  return state.notice
    ? `<p class="booking-result notice${
      state.notice.kind === "ok" ? " ok" : ""
    }" role="status" tabindex="-1">${escapeHtml(state.notice.text)}</p>`
    : '<p class="booking-result" role="status" tabindex="-1"></p>';
}

/**
 * The attendee's details (name, e-mail, company, topic), the honeypot, the zone shown, the form's
 * idempotency key and the button.
 */
function renderDetails(
  text: BookingText,
  state: BookingFormState,
  messages: FieldMessages,
): string[] {
  const values = state.values ?? {};
  const optional = ` <span class="opt">(${escapeHtml(text.optional)})</span>`;
  const value = (name: keyof BookingValues) =>
    values[name] ? ` value="${escapeHtml(values[name] ?? "")}"` : "";
  const field = (id: string, name: string, label: string, input: string, hint?: string) =>
    `<div class="field"><label for="${id}">${label}</label>${
      hint ? `<span class="hint" id="${id}-hint">${escapeHtml(hint)}</span>` : ""
    }${renderError(messages, name)}${input}</div>`;
  const input = (name: "name" | "email" | "company", attributes: string) =>
    `<input id="b-${name}" name="${name}" ${attributes} maxlength="${
      BOOKING_FIELDS[name].maxLength
    }"${value(name)}${invalidAttributes(messages, name)}${paramAttribute(BOOKING_FIELDS, name)}>`;
  return [
    '<div class="booking-details">',
    '<div class="field-row">',
    field(
      "b-name",
      "name",
      escapeHtml(text.name),
      input("name", `autocomplete="name" required minlength="${BOOKING_FIELDS.name.minLength}"`),
    ),
    field(
      "b-email",
      "email",
      escapeHtml(text.email),
      input("email", 'type="email" autocomplete="email" required'),
    ),
    "</div>",
    field(
      "b-company",
      "company",
      escapeHtml(text.company) + optional,
      input("company", 'autocomplete="organization"'),
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
    `<input type="hidden" name="tz" value="${escapeHtml(shownZone(state))}">`,
    ...(state.idempotencyKey
      ? [`<input type="hidden" name="idempotency" value="${escapeHtml(state.idempotencyKey)}">`]
      : []),
    `<button type="submit">${escapeHtml(text.submit)}</button>`,
    "</div>",
  ];
}

/** What a page puts in the picker's form besides the times: the details, or a button. */
export interface PickerForm {
  /** The form's opening tag. */
  open: string;
  /** The form's column beside the times: the details and the button. */
  aside: string;
  /** Hidden fields the zone chooser's GET form carries (e.g. a signed link's), besides `month`. */
  hidden?: Record<string, string>;
  /** A start to mark among the times, and its day in the calendar (a booking being moved). */
  markedStart?: string;
  /** Messages of the fields, for `start`. */
  messages?: FieldMessages;
}

/**
 * The times column: the chosen day as the legend, the meeting's length, and the free times of
 * `days` (the state shown, which keeps the chosen time when the free times cannot be read), or
 * why there are none.
 */
function renderTimesColumn(
  state: BookingFormState,
  days: BookingFormState,
  options: TimesOptions & { text: BookingText; messages: FieldMessages },
): string {
  const { chosenDay, tag, words, text } = options;
  const legend = chosenDay ? formatDay(chosenDay, tag) : words.chosenDay;
  const status = !state.slots
    ? `<p class="slots-status notice">${escapeHtml(text.slotsFailed)}</p>`
    : Object.keys(state.slots).length === 0 && !options.markedStart
    ? `<p class="slots-status">${escapeHtml(text.noSlots)}</p>`
    : "";
  const minutes = state.meetingMinutes
    ? `<p class="times-note">${
      escapeHtml(fill(words.minutes, { minutes: state.meetingMinutes }))
    }</p>`
    : "";
  // The free times are one parameter, `start`, described by the one fieldset around all of them
  // (no fieldset of their own per day: a radio is described by the nearest one).
  return [
    `<fieldset class="slots" id="times"${paramAttribute(BOOKING_FIELDS, "start")}>`,
    `<legend>${escapeHtml(legend)}</legend>`,
    minutes,
    status,
    renderError(options.messages, "start"),
    renderDays(days, options),
    "</fieldset>",
  ].join("");
}

/**
 * The picker: the zone bar, the month's calendar, the notice, and the form with the chosen day's
 * times beside the calendar and `form.aside` beside the times.
 */
export function renderPicker(
  corpus: Corpus,
  language: Language,
  state: BookingFormState,
  form: PickerForm,
): string {
  const settings = corpus.languages[language];
  const { tag, booking: text } = settings;
  const words = PICKER_WORDS[language];
  const values = state.values ?? {};
  // Without the free times, the time chosen stays the one to show, selected.
  const kept = keepChosen(values);
  const shown: BookingFormState = !state.slots && kept
    ? { ...state, slots: { [toZoneDate(kept, shownZone(state))]: [{ start: kept }] } }
    : state;
  const markedDay = form.markedStart ? toZoneDate(form.markedStart, shownZone(state)) : undefined;
  // The booking being moved: its day is shown when asked for, though it has no other free time.
  const markedShown = markedDay?.startsWith(state.month) ? markedDay : undefined;
  const chosenDay = markedShown && state.day === markedShown
    ? markedShown
    : pickDay(shown) ?? markedShown;
  const times = renderTimesColumn(state, shown, {
    tag,
    values,
    chosenDay,
    markedStart: form.markedStart,
    words,
    text,
    messages: form.messages ?? new Map(),
  });
  return [
    `<section class="booking" id="booking" aria-label="${escapeHtml(text.chooseTime)}">`,
    renderZoneBar(state, { tag, text, words, hidden: { month: state.month, ...form.hidden } }),
    '<div class="calendar">',
    ...renderMonthBar(state, text, tag),
    renderCalendar(shown, { tag, words, chosenDay, markedDay: markedShown }),
    "</div>",
    renderNotice(state),
    form.open,
    times,
    form.aside,
    "</form>",
    "</section>",
  ].join("\n");
}

/**
 * Renders the booking picker with its form and its configuration block.
 *
 * @param corpus The corpus, for the language's text.
 * @param language The page's language, also the booking's `locale`.
 * @param state The month, its free times and what to show again.
 * @returns The picker's HTML.
 */
export function renderBookingWidget(
  corpus: Corpus,
  language: Language,
  state: BookingFormState,
): string {
  const settings = corpus.languages[language];
  const text = settings.booking;
  const tag = settings.tag;
  const messages = describeProblems(corpus, language, state);
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
  // A JSON data block is never executed, so the page's Content-Security-Policy allows it; "<" is
  // escaped so no text can close the element.
  const config = JSON.stringify({
    tag,
    locale: language,
    timeZone: state.timeZone,
    displayTimeZone: shownZone(state),
    // The visitor's zone is the browser's only when no zone was asked for.
    zoneAsked: state.displayTimeZone !== undefined || state.unknownTimeZone !== undefined,
    text,
    words: PICKER_WORDS[language],
    tool,
  }).replace(/</g, "\\u003c");
  const picker = renderPicker(corpus, language, state, {
    // A tool for an agent in the browser (WebMCP), which a person still submits.
    open: `<form method="post" action="${state.path}" class="booking-form"${
      toolAttributes("book_call", "createBooking", false)
    }>`,
    aside: renderDetails(text, state, messages).join("\n"),
    messages,
  });
  return `${picker}\n<script type="application/json" id="booking-config">${config}</script>`;
}
