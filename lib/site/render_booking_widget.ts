/**
 * The booking widget of the booking pages: markup that stays hidden until its script
 * (`content/assets/booking.js`) runs, lists a month's free times and books one through the API.
 * Without JavaScript the page's own text points to the contact form and the API.
 *
 * @module
 */
import { BOOKING_FIELDS, getOperation } from "../contract/contract.ts";
import type { Corpus, Language } from "./corpus.ts";
import { escapeHtml } from "../mail/mail.ts";

/**
 * Renders the booking widget with its configuration block.
 *
 * @param corpus The corpus, for the language's text.
 * @param language The page's language, also the booking's `locale`.
 * @returns The widget's HTML.
 */
export function renderBookingWidget(corpus: Corpus, language: Language): string {
  const settings = corpus.languages[language];
  const text = settings.booking;
  const optional = ` <span class="opt">(${escapeHtml(text.optional)})</span>`;
  // A JSON data block is never executed, so the page's Content-Security-Policy allows it; "<" is
  // escaped so no text can close the element.
  const config = JSON.stringify({ tag: settings.tag, locale: language, text })
    .replace(/</g, "\\u003c");
  const field = (id: string, label: string, input: string, hint?: string) =>
    `<div class="field"><label for="${id}">${label}</label>${
      hint ? `<span class="hint" id="${id}-hint">${escapeHtml(hint)}</span>` : ""
    }${input}</div>`;
  return [
    '<section class="booking" id="booking" aria-labelledby="booking-title" hidden>',
    `<h2 id="booking-title">${escapeHtml(text.chooseTime)}</h2>`,
    `<p class="small">${escapeHtml(text.timeZone)}</p>`,
    '<div class="month-bar">',
    `<button type="button">← ${escapeHtml(text.previousMonth)}</button>`,
    '<span class="month-name" aria-live="polite"></span>',
    `<button type="button">${escapeHtml(text.nextMonth)} →</button>`,
    "</div>",
    '<p class="slots-status" role="status"></p>',
    `<form method="post" action="${getOperation("createBooking").path}">`,
    "<fieldset>",
    `<legend>${escapeHtml(text.days)}</legend>`,
    '<ul class="days"></ul>',
    '<div class="field-row">',
    field(
      "b-name",
      escapeHtml(text.name),
      `<input id="b-name" name="name" autocomplete="name" required minlength="${BOOKING_FIELDS.name.minLength}" maxlength="${BOOKING_FIELDS.name.maxLength}">`,
    ),
    field(
      "b-email",
      escapeHtml(text.email),
      `<input id="b-email" name="email" type="email" autocomplete="email" required maxlength="${BOOKING_FIELDS.email.maxLength}">`,
    ),
    "</div>",
    field(
      "b-company",
      escapeHtml(text.company) + optional,
      `<input id="b-company" name="company" autocomplete="organization" maxlength="${BOOKING_FIELDS.company.maxLength}">`,
    ),
    field(
      "b-topic",
      escapeHtml(text.topic),
      `<textarea id="b-topic" name="topic" rows="4" required minlength="${BOOKING_FIELDS.topic.minLength}" maxlength="${BOOKING_FIELDS.topic.maxLength}" aria-describedby="b-topic-hint"></textarea>`,
      text.topicHint,
    ),
    // A field people never see: software that fills every input is refused by the API.
    '<div hidden><label for="b-website">Website</label>' +
    '<input id="b-website" name="website" tabindex="-1" autocomplete="off"></div>',
    "</fieldset>",
    `<button type="submit">${escapeHtml(text.submit)}</button>`,
    '<p class="booking-result" role="status" tabindex="-1"></p>',
    "</form>",
    "</section>",
    `<script type="application/json" id="booking-config">${config}</script>`,
  ].join("\n");
}
