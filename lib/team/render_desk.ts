/**
 * The HTML of the team's pages, the content of `<main>` in the site's template: the sign-in form,
 * the page of an e-mailed link (one button that POSTs it), and the desk (inquiries, bookings,
 * personal data, the calendar feed, the audit trail), every action a plain form that works
 * without JavaScript.
 *
 * @module
 */
import { escapeHtml } from "../mail/mail.ts";
import type { BookingRecord } from "../booking/booking_mail.ts";
import { type InquiryRecord, readInquiryState } from "../contact/inquiries.ts";
import type { AuditEntry } from "./audit_trail.ts";
import type { PasskeyRecord } from "./passkey_records.ts";
import type { DeskData } from "./desk_data.ts";
import { DESK_WORDS, type DeskNotice, type DeskWords } from "./desk_words.ts";
import { TEAM_PATHS, type TeamLocale } from "./team.ts";

/** What every rendering of the desk needs besides its data. */
export interface DeskView {
  /** The page's language. */
  locale: TeamLocale;
  /** The schedule's zone, for times. */
  timeZone: string;
  /** The signed-in member. */
  email: string;
  /** The session's form token, carried by every form. */
  formToken: string;
  /** The outcome to report, after a redirect. */
  notice?: DeskNotice;
  /** Whether the personal-data forms are offered. */
  personalData: { canExport: boolean; canErase: boolean };
  /** The calendar feed: offered when it can be renewed, with its URL when it has one. */
  calendarFeed?: { url?: string };
  /** The member's passkeys. */
  passkeys: readonly PasskeyRecord[];
}

/**
 * A time in the desk's words: the date at medium length and the time of day.
 *
 * @param epochMilliseconds The instant, epoch milliseconds.
 * @param locale The desk's language.
 * @param timeZone The IANA zone to show it in, e.g. `Europe/Lisbon`.
 * @returns E.g. `21/11/2026, 10:00` in Portuguese, `21 Nov 2026, 10:00` in English.
 */
export function formatTime(
  epochMilliseconds: number,
  locale: TeamLocale,
  timeZone: string,
): string {
  return new Intl.DateTimeFormat(DESK_WORDS[locale].intlLocale, {
    timeZone,
    dateStyle: "medium",
    timeStyle: "short",
  }).format(new Date(epochMilliseconds));
}

/** Text whose line breaks show, escaped. */
function toLines(text: string): string {
  return escapeHtml(text).replace(/\r?\n/g, "<br>");
}

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

/** A form that POSTs to one of the desk's paths with the session's token. */
function postForm(view: DeskView, path: string, fields: string): string {
  return `<form method="post" action="${path}">${
    hidden("form_token", view.formToken)
  }${fields}</form>`;
}

/**
 * The sign-in form: one address, and the same answer whatever it is.
 *
 * @param locale The page's language.
 * @param state What was typed, and whether it was refused as no address.
 */
export function renderSignInForm(
  locale: TeamLocale,
  state: { email?: string; invalid?: boolean; notice?: DeskNotice } = {},
): string {
  const words = DESK_WORDS[locale];
  const error = state.invalid ? `<p class="error" id="email-error">${words.badEmail}</p>` : "";
  const described = state.invalid ? "email-hint email-error" : "email-hint";
  return [
    `<h1>${words.signInTitle}</h1>`,
    state.notice ? `<p class="notice ok" role="status">${words.notices[state.notice]}</p>` : "",
    `<p>${words.signInLead}</p>`,
    `<form method="post" action="${TEAM_PATHS[locale].requestLink}">`,
    '<div class="field">',
    `<label for="email">${words.email}</label>`,
    `<span class="hint" id="email-hint">${words.emailHint}</span>`,
    `<input id="email" name="email" type="email" autocomplete="email" required aria-describedby="${described}"${
      state.invalid ? ' aria-invalid="true"' : ""
    } value="${escapeHtml(state.email ?? "")}">`,
    error,
    "</div>",
    `<button type="submit">${words.sendLink}</button>`,
    "</form>",
    renderPasskeyForm(locale, {
      kind: "sign-in",
      fields: "",
      lead: `<p>${words.passkeyOr}</p>`,
      button: `<button type="submit" class="secondary">${words.passkeySignIn}</button>`,
    }),
  ].filter(Boolean).join("\n");
}

/**
 * A form that a passkey ceremony fills (`lib/site/browser/passkeys.js`): hidden until the script
 * finds WebAuthn, then its button asks the server for options, runs the ceremony and posts the
 * answer in the `response` field. Its messages for the script are in its data attributes.
 */
function renderPasskeyForm(
  locale: TeamLocale,
  form: { kind: "sign-in" | "register"; fields: string; lead?: string; button: string },
): string {
  const words = DESK_WORDS[locale];
  const paths = TEAM_PATHS[locale];
  const [action, options] = form.kind === "sign-in"
    ? [paths.passkeySignIn, paths.passkeySignInOptions]
    : [paths.passkey, paths.passkeyOptions];
  return `<form method="post" action="${action}" class="passkey" data-passkey="${form.kind}" data-options="${options}" data-failed="${
    escapeHtml(words.passkeyFailed)
  }" data-cancelled="${escapeHtml(words.passkeyCancelled)}" hidden>${
    form.lead ?? ""
  }${form.fields}${hidden("response", "")}${form.button}<p class="small" role="status"></p></form>`;
}

/**
 * The page of an e-mailed link: who it signs in, and the one button that POSTs it.
 *
 * @param locale The page's language.
 * @param link The member's address, and the token and signature to post.
 */
export function renderLinkPage(
  locale: TeamLocale,
  link: { email: string; token: string; signature: string },
): string {
  const words = DESK_WORDS[locale];
  return [
    `<h1>${words.linkPageTitle}</h1>`,
    `<p>${escapeHtml(words.linkPage(link.email))}</p>`,
    `<form method="post" action="${TEAM_PATHS[locale].signIn}">${hidden("token", link.token)}${
      hidden("sig", link.signature)
    }<button type="submit">${words.signIn}</button></form>`,
  ].join("\n");
}

/** A page that says something and leads back: to the desk, or to ask for a new link. */
export function renderMessage(
  locale: TeamLocale,
  message: { title: string; text: string; back: "desk" | "ask" },
): string {
  const words = DESK_WORDS[locale];
  const back = message.back === "desk" ? words.backToDesk : words.askAgain;
  return `<h1>${escapeHtml(message.title)}</h1>\n<p>${escapeHtml(message.text)}</p>\n<p><a href="${
    TEAM_PATHS[locale].desk
  }">${back}</a></p>`;
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

function renderInquiry(view: DeskView, record: InquiryRecord): string {
  const words = DESK_WORDS[view.locale];
  const when = formatTime(Date.parse(record.receivedAt), view.locale, view.timeZone);
  const state = readInquiryState(record);
  const next = state === "open" ? "answered" : "open";
  const toggle = postForm(
    view,
    TEAM_PATHS[view.locale].inquiry,
    `${hidden("id", record.id)}${hidden("state", next)}<button type="submit"${
      state === "open" ? "" : ' class="secondary"'
    }>${state === "open" ? words.markAnswered : words.reopen}</button>`,
  );
  return [
    `<article id="inquiry-${record.id}">`,
    `<h3>${escapeHtml(record.fields.Name)}</h3>`,
    `<p class="small">${escapeHtml(record.fields.Email)} · ${escapeHtml(when)}${
      record.fields.Category ? ` · ${escapeHtml(record.fields.Category)}` : ""
    } · <strong>${state === "open" ? words.open : words.answered}</strong></p>`,
    `<blockquote>${toLines(record.fields.Message)}</blockquote>`,
    '<div class="desk-actions">',
    `<a href="${escapeHtml(buildReplyLink(record, words, when))}">${words.reply}</a>`,
    toggle,
    "</div>",
    "</article>",
  ].join("\n");
}

/** The form of a decline or cancel, with its note, folded in a `<details>`. */
function renderNoteForm(view: DeskView, record: BookingRecord, action: "decline" | "cancel") {
  const words = DESK_WORDS[view.locale];
  const id = `note-${action}-${record.id}`;
  const fields = [
    hidden("id", record.id),
    hidden("action", action),
    `<div class="field"><label for="${id}">${words.note}</label>`,
    `<span class="hint" id="${id}-hint">${words.noteHint}</span>`,
    `<textarea id="${id}" name="note" maxlength="1000" aria-describedby="${id}-hint"></textarea></div>`,
    `<button type="submit">${
      action === "decline" ? words.declineButton : words.cancelButton
    }</button>`,
  ].join("");
  return `<details><summary>${action === "decline" ? words.decline : words.cancel}</summary>${
    postForm(view, TEAM_PATHS[view.locale].booking, fields)
  }</details>`;
}

function renderBooking(view: DeskView, record: BookingRecord, nowEpochMs: number): string {
  const words = DESK_WORDS[view.locale];
  const waiting = record.status === "pending" &&
    nowEpochMs < (record.holdUntilEpochMs ?? record.startEpochMs);
  const status = record.status === "pending" && !waiting ? "lapsed" : record.status;
  const actions: string[] = [];
  if (waiting) {
    actions.push(postForm(
      view,
      TEAM_PATHS[view.locale].booking,
      `${hidden("id", record.id)}${
        hidden("action", "confirm")
      }<button type="submit">${words.confirm}</button>`,
    ));
    actions.push(renderNoteForm(view, record, "decline"));
  }
  if ((waiting || record.status === "accepted") && nowEpochMs < record.startEpochMs) {
    actions.push(renderNoteForm(view, record, "cancel"));
  }
  return [
    `<article id="booking-${record.id}">`,
    `<h4>${escapeHtml(record.name)} · ${
      escapeHtml(formatTime(record.startEpochMs, view.locale, view.timeZone))
    }</h4>`,
    `<p class="small">${escapeHtml(record.email)}${
      record.company ? ` · ${escapeHtml(record.company)}` : ""
    } · <strong>${words.status[status]}</strong></p>`,
    `<p>${words.topic}: ${toLines(record.topic)}</p>`,
    ...(actions.length ? ['<div class="desk-actions">', ...actions, "</div>"] : []),
    "</article>",
  ].join("\n");
}

function renderBookingList(view: DeskView, title: string, records: BookingRecord[], now: number) {
  const words = DESK_WORDS[view.locale];
  return [
    `<h3>${title} (${records.length})</h3>`,
    records.length
      ? records.map((record) => renderBooking(view, record, now)).join("\n")
      : `<p>${words.noBookings}</p>`,
  ].join("\n");
}

function renderPersonalData(view: DeskView): string {
  const { canExport, canErase } = view.personalData;
  if (!canExport && !canErase) return "";
  const words = DESK_WORDS[view.locale];
  const path = TEAM_PATHS[view.locale].personalData;
  const emailField = (id: string, label: string) =>
    `<div class="field"><label for="${id}">${label}</label><input id="${id}" name="email" type="email" required></div>`;
  return [
    '<section aria-labelledby="personal-data">',
    `<h2 id="personal-data">${words.personalData}</h2>`,
    `<p>${words.personalDataLead}</p>`,
    canExport
      ? postForm(
        view,
        path,
        `${hidden("action", "export")}${emailField("export-email", words.exportLabel)}` +
          `<button type="submit">${words.exportButton}</button>`,
      )
      : "",
    canErase
      ? postForm(
        view,
        path,
        `${hidden("action", "erase")}${emailField("erase-email", words.eraseLabel)}` +
          `<div class="field check"><label><input type="checkbox" name="confirm" value="yes" required> ${words.eraseConfirm}</label></div>` +
          `<div class="field check"><label><input type="checkbox" name="discard" value="yes"> ${words.eraseDiscard}</label></div>` +
          `<button type="submit">${words.eraseButton}</button>`,
      )
      : "",
    "</section>",
  ].filter(Boolean).join("\n");
}

function renderCalendarFeed(view: DeskView): string {
  if (!view.calendarFeed) return "";
  const words = DESK_WORDS[view.locale];
  const { url } = view.calendarFeed;
  return [
    '<section aria-labelledby="calendar-feed">',
    `<h2 id="calendar-feed">${words.calendarFeed}</h2>`,
    `<p>${words.calendarLead}</p>`,
    url ? `<p><code>${escapeHtml(url)}</code></p>` : `<p>${words.noFeed}</p>`,
    postForm(
      view,
      TEAM_PATHS[view.locale].calendarFeed,
      `<button type="submit">${words.renewFeed}</button>`,
    ),
    "</section>",
  ].filter(Boolean).join("\n");
}

/** The member's passkeys, each with its remove button, and the form that saves a new one. */
function renderPasskeys(view: DeskView): string {
  const words = DESK_WORDS[view.locale];
  const path = TEAM_PATHS[view.locale].passkey;
  const at = (iso: string) => escapeHtml(formatTime(Date.parse(iso), view.locale, view.timeZone));
  const items = view.passkeys.map((passkey) =>
    `<li>${words.passkeyCreated(at(passkey.createdAt))}${
      passkey.lastUsedAt ? `, ${words.passkeyUsed(at(passkey.lastUsedAt))}` : ""
    } ${
      postForm(
        view,
        path,
        `${hidden("action", "remove")}${
          hidden("id", passkey.id)
        }<button type="submit" class="secondary">${words.removePasskey}</button>`,
      )
    }</li>`
  );
  return [
    '<section aria-labelledby="passkeys">',
    `<h2 id="passkeys">${words.passkeys}</h2>`,
    `<p>${words.passkeysLead}</p>`,
    items.length
      ? `<ul class="passkey-list">${items.join("\n")}</ul>`
      : `<p>${words.noPasskeys}</p>`,
    renderPasskeyForm(view.locale, {
      kind: "register",
      fields: `${hidden("form_token", view.formToken)}${hidden("action", "register")}`,
      button: `<button type="submit">${words.addPasskey}</button>`,
    }),
    `<p class="small" data-passkey-fallback>${words.passkeyNeedsScript}</p>`,
    "</section>",
  ].join("\n");
}

function renderAudit(view: DeskView, entries: AuditEntry[]): string {
  const words = DESK_WORDS[view.locale];
  const items = entries.map((entry) => {
    const when = formatTime(Date.parse(entry.at), view.locale, view.timeZone);
    const details = entry.details
      ? ` (${Object.entries(entry.details).map(([key, value]) => `${key}: ${value}`).join(", ")})`
      : "";
    // HTML's valid date-time allows three digits of a second at most; the clock may give nine.
    const at = Temporal.Instant.from(entry.at).toString({ smallestUnit: "millisecond" });
    return `<li><time datetime="${at}">${escapeHtml(when)}</time> · ${escapeHtml(entry.actor)} ${
      words.auditActions[entry.action]
    }${entry.subject ? ` <code>${escapeHtml(entry.subject)}</code>` : ""}${
      escapeHtml(details)
    }</li>`;
  });
  return [
    '<section aria-labelledby="audit">',
    `<h2 id="audit">${words.audit}</h2>`,
    items.length ? `<ul>${items.join("\n")}</ul>` : `<p>${words.noAudit}</p>`,
    "</section>",
  ].join("\n");
}

/** The top of the desk: the title, who is signed in, sign-out, the notice and the search. */
function renderDeskHead(view: DeskView, search: string | undefined): string {
  const words = DESK_WORDS[view.locale];
  const paths = TEAM_PATHS[view.locale];
  return [
    `<h1>${words.deskTitle}</h1>`,
    '<div class="desk-session">',
    `<p>${escapeHtml(words.signedInAs(view.email))}</p>`,
    postForm(
      view,
      paths.signOut,
      `<button type="submit" class="secondary">${words.signOut}</button>`,
    ),
    postForm(
      view,
      paths.signOut,
      `${
        hidden("everywhere", "yes")
      }<button type="submit" class="secondary">${words.signOutEverywhere}</button>`,
    ),
    "</div>",
    view.notice ? `<p class="notice ok" role="status">${words.notices[view.notice]}</p>` : "",
    `<form method="get" action="${paths.desk}" role="search" class="desk-search">`,
    `<div class="field"><label for="search">${words.searchLabel}</label>`,
    `<input id="search" name="q" type="search" value="${escapeHtml(search ?? "")}"></div>`,
    `<button type="submit">${words.search}</button>`,
    "</form>",
    search
      ? `<p>${
        escapeHtml(words.searching(search))
      } <a href="${paths.desk}">${words.clearSearch}</a></p>`
      : "",
  ].filter(Boolean).join("\n");
}

/**
 * The desk: inquiries, bookings (pending, upcoming, past), personal data and the calendar feed
 * where they are offered, and the audit trail.
 *
 * @param view The language, zone, member, form token, notice and offered sections.
 * @param data What the store holds.
 * @param nowEpochMs The current time.
 * @returns The content of `<main>`.
 */
export function renderDesk(view: DeskView, data: DeskData, nowEpochMs: number): string {
  const words = DESK_WORDS[view.locale];
  const sections: Array<[string, string]> = [
    ["inquiries", words.inquiries],
    ["bookings", words.bookings],
    ...(view.personalData.canExport || view.personalData.canErase
      ? [["personal-data", words.personalData] as [string, string]]
      : []),
    ...(view.calendarFeed ? [["calendar-feed", words.calendarFeed] as [string, string]] : []),
    ["passkeys", words.passkeys],
    ["audit", words.audit],
  ];
  return [
    renderDeskHead(view, data.search),
    `<nav class="desk-nav" aria-label="${words.sections}"><ul>${
      sections.map(([id, title]) => `<li><a href="#${id}">${title}</a></li>`).join("")
    }</ul></nav>`,
    '<section class="desk-records" aria-labelledby="inquiries">',
    `<h2 id="inquiries">${words.inquiries} (${data.inquiries.length})</h2>`,
    data.inquiries.length
      ? data.inquiries.map((record) => renderInquiry(view, record)).join("\n")
      : `<p>${words.noInquiries}</p>`,
    "</section>",
    '<section class="desk-records" aria-labelledby="bookings">',
    `<h2 id="bookings">${words.bookings}</h2>`,
    renderBookingList(view, words.pending, data.pending, nowEpochMs),
    renderBookingList(view, words.upcoming, data.upcoming, nowEpochMs),
    renderBookingList(view, words.past, data.past, nowEpochMs),
    "</section>",
    renderPersonalData(view),
    renderCalendarFeed(view),
    renderPasskeys(view),
    renderAudit(view, data.audit),
  ].filter(Boolean).join("\n");
}
