/**
 * The desk's page of one record: a booking or an inquiry, whole (the person, the topic or message,
 * the times, the invite's UID and SEQUENCE), its history (when it arrived, the audit trail's
 * entries about it, the e-mails sent about it and their delivery) and its actions; and the second
 * step of a booking's decline or cancel, a page whose form does it and whose link keeps it.
 *
 * @module
 */
import { escapeHtml } from "../mail/mail.ts";
import type { BookingRecord } from "../booking/booking_mail.ts";
import { type InquiryRecord, readInquiryState } from "../contact/inquiries.ts";
import type { AuditEntry } from "./audit_trail.ts";
import { isWaiting, type MailHistoryItem } from "./desk_data.ts";
import { DESK_WORDS, type DeskWords } from "./desk_words.ts";
import {
  type DeskView,
  formatTime,
  hidden,
  postForm,
  renderBadge,
  renderNotice,
  renderTime,
  toLines,
} from "./render_desk.ts";
import { renderBookingBadge, renderInquiryBadge } from "./render_desk_lists.ts";
import { TEAM_PATHS, toRecordPath } from "./team.ts";

/** What is known of a record's past: the audit trail's entries and the e-mails about it. */
export interface RecordHistory {
  /** The audit trail's entries whose subject is the record, oldest first. */
  audit: AuditEntry[];
  /** The e-mails of the record, in the order they were queued. */
  mails: MailHistoryItem[];
}

/** The second steps of a booking's actions that undo it. */
export type BookingStep = "decline" | "cancel";

/** A booking's time: its day, and its start and end in the schedule's zone. */
function formatRange(view: DeskView, record: BookingRecord): string {
  return new Intl.DateTimeFormat(DESK_WORDS[view.locale].intlLocale, {
    timeZone: view.timeZone,
    dateStyle: "full",
    timeStyle: "short",
  }).formatRange(new Date(record.startEpochMs), new Date(record.endEpochMs));
}

/** A list of facts: a `<dl>` of the pairs whose value is not empty. */
function renderFacts(pairs: ReadonlyArray<[string, string | undefined]>): string {
  const items = pairs.filter(([, value]) => value).map(([term, value]) =>
    `<div><dt>${term}</dt><dd>${value}</dd></div>`
  );
  return `<dl class="record-facts">${items.join("")}</dl>`;
}

/** A link to write to an address. */
function mailtoLink(email: string): string {
  return `<a href="mailto:${escapeHtml(email)}">${escapeHtml(email)}</a>`;
}

/** The `mailto:` link that replies to an inquiry with its message quoted. */
function buildReplyLink(record: InquiryRecord, words: DeskWords, when: string): string {
  // Mail clients cut long mailto: URLs; the quote keeps its first 1,500 characters.
  const quoted = record.fields.Message.slice(0, 1500).split(/\r?\n/).map((line) => `> ${line}`);
  const body = ["", "", words.replyQuote(record.fields.Name, when), ...quoted].join("\r\n");
  const query = `subject=${encodeURIComponent(words.replySubject)}&body=${
    encodeURIComponent(body)
  }`;
  return `mailto:${encodeURIComponent(record.fields.Email).replace(/%40/g, "@")}?${query}`;
}

/** One event of a history: when, and what. */
interface HistoryEvent {
  at: string;
  html: string;
}

/** An e-mail's event: its subject, delivery badge, recipients, state and Message-ID's kind. */
function toMailEvent(view: DeskView, mail: MailHistoryItem): HistoryEvent {
  const words = DESK_WORDS[view.locale];
  const when = formatTime(Date.parse(mail.at), view.locale, view.timeZone);
  const state = mail.state === "sent"
    ? words.mailSent(when, mail.attempts)
    : mail.state === "retrying"
    ? words.mailRetrying(when, mail.attempts, mail.lastError ?? "")
    : words.mailDue(when);
  const tone = { sent: "accepted", waiting: "pending", retrying: "declined" }[mail.state];
  return {
    at: mail.at,
    html: `<p class="event-title">${words.mail}: ${escapeHtml(mail.subject)} ${
      renderBadge(tone, words.mailState[mail.state])
    }</p><p class="event-detail">${escapeHtml(words.mailTo(mail.to.join(", ")))} · ${
      escapeHtml(state)
    }${
      mail.kind ? ` · <code>${escapeHtml(words.mailSequence(mail.kind, mail.sequence))}</code>` : ""
    }</p>`,
  };
}

/** An audit entry's event: who did what. */
function toAuditEvent(view: DeskView, entry: AuditEntry): HistoryEvent {
  const words = DESK_WORDS[view.locale];
  return {
    at: entry.at,
    html: `<p class="event-title">${escapeHtml(entry.actor)} ${
      words.auditActions[entry.action]
    }</p>`,
  };
}

/** A record's history, oldest first: its first event, its audit entries and its e-mails. */
function renderHistory(view: DeskView, first: HistoryEvent, history: RecordHistory): string {
  const words = DESK_WORDS[view.locale];
  const events = [
    first,
    ...history.audit.map((entry) => toAuditEvent(view, entry)),
    ...history.mails.map((mail) => toMailEvent(view, mail)),
  ].map((event) => ({ ...event, epochMs: Temporal.Instant.from(event.at).epochMilliseconds }))
    .sort((a, b) => a.epochMs - b.epochMs);
  return [
    '<section class="record-history" aria-labelledby="history">',
    `<h2 id="history">${words.history}</h2>`,
    `<ol class="timeline">${
      events.map((event) =>
        `<li><span class="event-when">${
          renderTime(event.at, view)
        }</span><div>${event.html}</div></li>`
      ).join("\n")
    }</ol>`,
    history.mails.length ? "" : `<p class="small">${words.noMails}</p>`,
    "</section>",
  ].filter(Boolean).join("\n");
}

/** The way back from a record to its list. */
function renderBack(href: string, text: string): string {
  return `<p class="back"><a href="${href}">← ${escapeHtml(text)}</a></p>`;
}

/** A booking's actions: confirm while it waits; decline and cancel lead to their second step. */
function renderBookingActions(view: DeskView, record: BookingRecord): string {
  const words = DESK_WORDS[view.locale];
  const waiting = isWaiting(record, view.nowEpochMs);
  const actions: string[] = [];
  if (waiting) {
    actions.push(postForm(
      view,
      TEAM_PATHS[view.locale].booking,
      `${hidden("id", record.id)}${
        hidden("action", "confirm")
      }<button type="submit">${words.confirm}</button>`,
    ));
    actions.push(
      `<a class="button danger" href="${
        toRecordPath(view.locale, "bookingDecline", record.id)
      }">${words.decline}</a>`,
    );
  }
  if ((waiting || record.status === "accepted") && view.nowEpochMs < record.startEpochMs) {
    actions.push(
      `<a class="button danger" href="${
        toRecordPath(view.locale, "bookingCancel", record.id)
      }">${words.cancel}</a>`,
    );
  }
  if (!actions.length) return "";
  return `<section class="record-actions" aria-labelledby="actions"><h2 id="actions">${words.actions}</h2><div class="desk-actions">${
    actions.join("")
  }</div></section>`;
}

/** A booking's facts: the person, the topic, the times, the invite and its moves. */
function renderBookingFacts(view: DeskView, record: BookingRecord): string {
  const words = DESK_WORDS[view.locale];
  const at = (epochMs: number) => escapeHtml(formatTime(epochMs, view.locale, view.timeZone));
  return renderFacts([
    [words.email, mailtoLink(record.email)],
    [words.company, record.company && escapeHtml(record.company)],
    [words.topic, toLines(record.topic)],
    [
      words.movedFrom,
      record.previousStartEpochMs === undefined ? undefined : at(record.previousStartEpochMs),
    ],
    [
      words.holdUntil,
      isWaiting(record, view.nowEpochMs) && record.holdUntilEpochMs !== undefined
        ? at(record.holdUntilEpochMs)
        : undefined,
    ],
    [words.booked, renderTime(record.createdAt, view)],
    [words.language, words.languages[record.locale]],
    [words.attendeeZone, record.timeZone && escapeHtml(record.timeZone)],
    [words.invite, `<code>${escapeHtml(words.inviteSequence(record.uid, record.sequence))}</code>`],
  ]);
}

/**
 * A booking's page: the person and badge, its facts, its actions and its history.
 *
 * @param view The language, zone, member, form token, notice and time.
 * @param record The booking.
 * @param history Its audit entries and e-mails.
 * @returns The page's content.
 */
export function renderBookingPage(
  view: DeskView,
  record: BookingRecord,
  history: RecordHistory,
): string {
  const words = DESK_WORDS[view.locale];
  return [
    renderBack(TEAM_PATHS[view.locale].bookings, words.backTo(words.bookings)),
    `<div class="record-head"><h1>${escapeHtml(record.name)}</h1>${
      renderBookingBadge(view, record)
    }</div>`,
    `<p class="record-sub">${escapeHtml(formatRange(view, record))}</p>`,
    renderNotice(view),
    '<div class="record-body">',
    renderBookingFacts(view, record),
    renderBookingActions(view, record),
    "</div>",
    renderHistory(view, {
      at: record.createdAt,
      html: `<p class="event-title">${words.historyBooked}</p>`,
    }, history),
  ].filter(Boolean).join("\n");
}

/**
 * An inquiry's page: the person and badge, the message, its facts, its actions (reply by e-mail,
 * mark answered or open) and its history.
 *
 * @param view The language, zone, member, form token, notice and time.
 * @param record The inquiry.
 * @param history Its audit entries and e-mails.
 * @returns The page's content.
 */
export function renderInquiryPage(
  view: DeskView,
  record: InquiryRecord,
  history: RecordHistory,
): string {
  const words = DESK_WORDS[view.locale];
  const when = formatTime(Date.parse(record.receivedAt), view.locale, view.timeZone);
  const state = readInquiryState(record);
  const toggle = postForm(
    view,
    TEAM_PATHS[view.locale].inquiry,
    `${hidden("id", record.id)}${hidden("state", state === "open" ? "answered" : "open")}` +
      `<button type="submit"${state === "open" ? "" : ' class="secondary"'}>${
        state === "open" ? words.markAnswered : words.reopen
      }</button>`,
  );
  const answered = record.answeredAt && record.answeredBy
    ? escapeHtml(
      words.answeredBy(
        record.answeredBy,
        formatTime(Date.parse(record.answeredAt), view.locale, view.timeZone),
      ),
    )
    : undefined;
  return [
    renderBack(TEAM_PATHS[view.locale].inquiries, words.backTo(words.inquiries)),
    `<div class="record-head"><h1>${escapeHtml(record.fields.Name)}</h1>${
      renderInquiryBadge(view, record)
    }</div>`,
    `<p class="record-sub">${escapeHtml(words.received)} ${escapeHtml(when)}</p>`,
    renderNotice(view),
    '<div class="record-body">',
    `<div>${
      renderFacts([
        [words.email, mailtoLink(record.fields.Email)],
        [words.category, record.fields.Category && escapeHtml(record.fields.Category)],
        [words.answeredFact, answered],
      ])
    }<h2 class="visually-hidden">${words.message}</h2><blockquote class="record-message">${
      toLines(record.fields.Message)
    }</blockquote></div>`,
    `<section class="record-actions" aria-labelledby="actions"><h2 id="actions">${words.actions}</h2><div class="desk-actions"><a class="button" href="${
      escapeHtml(buildReplyLink(record, words, when))
    }">${words.reply}</a>${toggle}</div></section>`,
    "</div>",
    renderHistory(view, {
      at: record.receivedAt,
      html: `<p class="event-title">${words.historyReceived}</p>`,
    }, history),
  ].join("\n");
}

/**
 * The second step of a booking's decline or cancel: what it does, the note to the person, the
 * button that does it and the link that keeps the booking; or, when the step is no longer
 * possible, the words that say so and the way back.
 *
 * @param view The language, zone, member, form token and time.
 * @param record The booking.
 * @param step Which action.
 * @returns The page's content.
 */
export function renderBookingStep(view: DeskView, record: BookingRecord, step: BookingStep) {
  const words = DESK_WORDS[view.locale];
  const back = toRecordPath(view.locale, "bookingRecord", record.id);
  const title = step === "decline"
    ? words.declineTitle(record.name)
    : words.cancelTitle(record.name);
  const id = `note-${step}`;
  return [
    renderBack(back, record.name),
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="record-sub">${escapeHtml(formatRange(view, record))} · ${
      escapeHtml(record.email)
    }</p>`,
    `<p class="lead">${step === "decline" ? words.declineLead : words.cancelLead}</p>`,
    postForm(
      view,
      TEAM_PATHS[view.locale].booking,
      [
        hidden("id", record.id),
        hidden("action", step),
        `<div class="field"><label for="${id}">${words.note}</label>`,
        `<span class="hint" id="${id}-hint">${words.noteHint}</span>`,
        `<textarea id="${id}" name="note" maxlength="1000" aria-describedby="${id}-hint"></textarea></div>`,
        `<div class="desk-actions"><button type="submit" class="danger">${
          step === "decline" ? words.declineButton : words.cancelButton
        }</button><a href="${back}">${
          step === "decline" ? words.keepRequest : words.keepBooking
        }</a></div>`,
      ].join(""),
      "confirm-step",
    ),
  ].join("\n");
}

/**
 * Whether a booking's decline or cancel is still possible at the view's time: a decline while the
 * request waits, a cancel while it waits or stands and has not begun.
 */
export function isStepPossible(view: DeskView, record: BookingRecord, step: BookingStep): boolean {
  const waiting = isWaiting(record, view.nowEpochMs);
  return step === "decline"
    ? waiting
    : (waiting || record.status === "accepted") && view.nowEpochMs < record.startEpochMs;
}
