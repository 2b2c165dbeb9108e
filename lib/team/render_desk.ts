/**
 * The HTML of the team's pages, the content of `<main>` in the site's template: the sign-in form,
 * the page of an e-mailed link (one button that POSTs it), a message's page, and the pieces every
 * page of the desk shares (times, status badges, forms that POST with the session's token, the
 * notice after a redirect). The desk's own pages are in `render_desk_lists.ts` (the overview and
 * the lists), `render_desk_records.ts` (a record's page) and `render_desk_settings.ts` (personal
 * data, the calendar feed, passkeys); every action is a plain form that works without JavaScript.
 *
 * @module
 */
import { escapeHtml } from "../mail/mail.ts";
import { DESK_WORDS, type DeskNotice } from "./desk_words.ts";
import { TEAM_PATHS, type TeamLocale } from "./team.ts";

/** What every page of the desk needs besides its data. */
export interface DeskView {
  /** The page's language. */
  locale: TeamLocale;
  /** The schedule's zone, for times. */
  timeZone: string;
  /** The signed-in member's address. */
  email: string;
  /** The session's form token, carried by every form. */
  formToken: string;
  /** The current time, epoch milliseconds. */
  nowEpochMs: number;
  /** The outcome to report, after a redirect. */
  notice?: DeskNotice;
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

/**
 * A `<time>` element of an instant in the desk's words.
 *
 * @param iso The instant, ISO 8601 (a clock may give nine digits of a second).
 * @param view The language and zone.
 */
export function renderTime(iso: string, view: Pick<DeskView, "locale" | "timeZone">): string {
  // HTML's valid date-time allows three digits of a second at most.
  const at = Temporal.Instant.from(iso).toString({ smallestUnit: "millisecond" });
  const text = formatTime(Date.parse(iso), view.locale, view.timeZone);
  return `<time datetime="${at}">${escapeHtml(text)}</time>`;
}

/** Text whose line breaks show, escaped. */
export function toLines(text: string): string {
  return escapeHtml(text).replace(/\r?\n/g, "<br>");
}

/** A hidden field. */
export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

/**
 * A form that POSTs to one of the desk's paths with the session's token.
 *
 * @param view The session's form token.
 * @param path The action's path.
 * @param fields The form's fields and buttons, already HTML.
 * @param className A class of the form, e.g. `inline`.
 */
export function postForm(
  view: Pick<DeskView, "formToken">,
  path: string,
  fields: string,
  className?: string,
): string {
  return `<form method="post" action="${path}"${className ? ` class="${className}"` : ""}>${
    hidden("form_token", view.formToken)
  }${fields}</form>`;
}

/**
 * A status badge: a word in a tinted pill, its tone by kind (`pending`, `accepted`, `open` …).
 *
 * @param tone The badge's kind, which names its colour (see `lib/site/style/desk.css`).
 * @param text Its words.
 */
export function renderBadge(tone: string, text: string): string {
  return `<span class="badge badge-${tone}">${escapeHtml(text)}</span>`;
}

/** The notice after a redirect, announced as a status; none without one. */
export function renderNotice(view: Pick<DeskView, "locale" | "notice">): string {
  if (!view.notice) return "";
  const bad = ["lapsed", "not-allowed", "not-found", "passkey-refused"].includes(view.notice);
  return `<p class="notice${bad ? "" : " ok"}" role="status">${
    DESK_WORDS[view.locale].notices[view.notice]
  }</p>`;
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
export function renderPasskeyForm(
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

/**
 * A page that says something and leads back: to the desk, or to ask for a new link.
 *
 * @param locale The page's language.
 * @param message Its title and text, and where it leads back to.
 */
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
