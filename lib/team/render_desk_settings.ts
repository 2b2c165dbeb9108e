/**
 * The desk's pages of tools: personal data (export, and erasure behind a required confirmation),
 * the team's calendar feed (its secret address and its renewal), and the member's passkeys and
 * sessions (save or remove a passkey, sign out everywhere).
 *
 * @module
 */
import { escapeHtml } from "../mail/mail.ts";
import type { PasskeyRecord } from "./passkey_records.ts";
import { DESK_WORDS } from "./desk_words.ts";
import {
  type DeskView,
  formatTime,
  hidden,
  postForm,
  renderNotice,
  renderPasskeyForm,
} from "./render_desk.ts";
import { TEAM_PATHS } from "./team.ts";

/** An e-mail field of the personal-data forms. */
function renderEmailField(id: string, label: string): string {
  return `<div class="field"><label for="${id}">${label}</label><input id="${id}" name="email" type="email" autocomplete="off" required></div>`;
}

/**
 * The personal-data page: export an address's data (a JSON download), and erase it, a destructive
 * action that a required checkbox confirms.
 *
 * @param view The language, zone, member, form token and notice.
 * @param offered Which of the two the service offers.
 * @returns The page's content.
 */
export function renderPersonalDataPage(
  view: DeskView,
  offered: { canExport: boolean; canErase: boolean },
): string {
  const words = DESK_WORDS[view.locale];
  const path = TEAM_PATHS[view.locale].personalData;
  return [
    `<h1>${words.personalData}</h1>`,
    renderNotice(view),
    `<p class="lead">${words.personalDataLead}</p>`,
    offered.canExport
      ? `<section class="panel" aria-labelledby="export"><h2 id="export">${words.exportButton}</h2>${
        postForm(
          view,
          path,
          `${hidden("action", "export")}${renderEmailField("export-email", words.exportLabel)}` +
            `<button type="submit">${words.exportButton}</button>`,
        )
      }</section>`
      : "",
    offered.canErase
      ? `<section class="panel danger-zone" aria-labelledby="erase"><h2 id="erase">${words.dangerZone}</h2><p>${words.eraseLead}</p>${
        postForm(
          view,
          path,
          `${hidden("action", "erase")}${renderEmailField("erase-email", words.eraseLabel)}` +
            `<div class="field check"><label><input type="checkbox" name="confirm" value="yes" required> ${words.eraseConfirm}</label></div>` +
            `<div class="field check"><label><input type="checkbox" name="discard" value="yes"> ${words.eraseDiscard}</label></div>` +
            `<button type="submit" class="danger">${words.eraseButton}</button>`,
        )
      }</section>`
      : "",
  ].filter(Boolean).join("\n");
}

/**
 * The calendar feed's page: its secret address, or that it has none, and the renewal's form.
 *
 * @param view The language, zone, member, form token and notice.
 * @param url The feed's current address, if it has one.
 * @returns The page's content.
 */
export function renderCalendarFeedPage(view: DeskView, url: string | undefined): string {
  const words = DESK_WORDS[view.locale];
  return [
    `<h1>${words.calendarFeed}</h1>`,
    renderNotice(view),
    `<p class="lead">${words.calendarLead}</p>`,
    url ? `<p class="secret"><code>${escapeHtml(url)}</code></p>` : `<p>${words.noFeed}</p>`,
    postForm(
      view,
      TEAM_PATHS[view.locale].calendarFeed,
      `<button type="submit" class="secondary">${words.renewFeed}</button>`,
    ),
  ].filter(Boolean).join("\n");
}

/**
 * The passkeys' page: the member's passkeys, each with its remove button, the form that saves a
 * new one (shown by its script), and signing out on every device.
 *
 * @param view The language, zone, member, form token and notice.
 * @param passkeys The member's passkeys.
 * @returns The page's content.
 */
export function renderPasskeysPage(view: DeskView, passkeys: readonly PasskeyRecord[]): string {
  const words = DESK_WORDS[view.locale];
  const path = TEAM_PATHS[view.locale].passkey;
  const at = (iso: string) => escapeHtml(formatTime(Date.parse(iso), view.locale, view.timeZone));
  const items = passkeys.map((passkey) =>
    `<li><span>${words.passkeyCreated(at(passkey.createdAt))}${
      passkey.lastUsedAt ? `, ${words.passkeyUsed(at(passkey.lastUsedAt))}` : ""
    }</span> ${
      postForm(
        view,
        path,
        `${hidden("action", "remove")}${
          hidden("id", passkey.id)
        }<button type="submit" class="secondary small-button">${words.removePasskey}</button>`,
      )
    }</li>`
  );
  return [
    `<h1 id="passkeys">${words.passkeys}</h1>`,
    renderNotice(view),
    `<p class="lead">${words.passkeysLead}</p>`,
    items.length
      ? `<ul class="passkey-list">${items.join("\n")}</ul>`
      : `<p>${words.noPasskeys}</p>`,
    renderPasskeyForm(view.locale, {
      kind: "register",
      fields: `${hidden("form_token", view.formToken)}${hidden("action", "register")}`,
      button: `<button type="submit">${words.addPasskey}</button>`,
    }),
    `<p class="small" data-passkey-fallback>${words.passkeyNeedsScript}</p>`,
    `<section class="panel" aria-labelledby="sessions"><h2 id="sessions">${words.sessions}</h2><p>${words.sessionsLead}</p>${
      postForm(
        view,
        TEAM_PATHS[view.locale].signOut,
        `${
          hidden("everywhere", "yes")
        }<button type="submit" class="secondary">${words.signOutEverywhere}</button>`,
      )
    }</section>`,
  ].join("\n");
}
