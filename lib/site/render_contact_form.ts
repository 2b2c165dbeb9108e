/**
 * The contact form of the contact pages: it works without JavaScript, posting
 * `multipart/form-data` to the page's own path with two `Name` inputs (first and last name, joined
 * by the contact service), the other ContactInquiry fields and hidden campaign fields. After a
 * failed submission it is shown again with the person's values and a message per field.
 *
 * @module
 */
import { paramAttribute, toolAttributes } from "./webmcp.ts";
import { ATTRIBUTION_FIELDS, CONTACT_FIELDS } from "../contract/contract.ts";
import type { ContactFormText } from "./corpus.ts";
import type { FieldProblem } from "../contract/fields.ts";
import type { Attribution } from "../contact/first_touch.ts";
import { escapeHtml } from "../mail/mail.ts";

/** What the form shows: the person's values and the problems of a failed submission. */
export interface ContactFormState {
  /** First name. */
  firstName?: string;
  /** Last name. */
  lastName?: string;
  /** The other fields by their ContactInquiry name. */
  values?: Partial<Record<"Email" | "Message" | "Category", string>>;
  /** Campaign parameters for the hidden fields. */
  attribution?: Attribution;
  /** Problems to show, one per field at most. */
  problems?: readonly FieldProblem[];
  /**
   * What happened to a submission refused as a whole (unreadable, too large, limited, refused,
   * failed), shown above the fields: its title, and its text already rendered to HTML.
   */
  notice?: { title: string; html: string };
}

// The two Name inputs are joined with one space, so together they may hold the field's bound.
const FIRST_NAME_MAX = Math.ceil((CONTACT_FIELDS.Name.maxLength - 1) / 2);
const LAST_NAME_MAX = Math.floor((CONTACT_FIELDS.Name.maxLength - 1) / 2);

/**
 * Builds a person-readable message for a field problem, in the form's language.
 *
 * @param text The form's text.
 * @param problem The problem, as the contact service reports it.
 */
export function describeProblem(text: ContactFormText, problem: FieldProblem): string {
  const field = CONTACT_FIELDS[problem.field as keyof typeof CONTACT_FIELDS];
  return text.problems[problem.problem]
    .replace("{min}", String(field && "minLength" in field ? field.minLength : 0))
    .replace("{max}", String(field?.maxLength ?? ""));
}

/** The message of each field with a problem, the first problem of a field only. */
type FieldMessages = ReadonlyMap<string, string>;

/** The attributes that tie an input to its hint and error. */
function describedBy(messages: FieldMessages, id: string, field: string, hint?: boolean): string {
  const ids = [hint ? `${id}-hint` : "", messages.has(field) ? `${id}-error` : ""]
    .filter(Boolean);
  return (ids.length ? ` aria-describedby="${ids.join(" ")}"` : "") +
    (messages.has(field) ? ' aria-invalid="true"' : "");
}

/** A field's error message, or nothing. */
function renderError(messages: FieldMessages, id: string, field: string): string {
  return messages.has(field)
    ? `<p class="error" id="${id}-error">${escapeHtml(messages.get(field) ?? "")}</p>`
    : "";
}

/** An input's `value` attribute, or nothing. */
function valueAttribute(value?: string): string {
  return value ? ` value="${escapeHtml(value)}"` : "";
}

/** The notice of a submission refused as a whole, where the summary of problems would be. */
function renderNotice(notice: NonNullable<ContactFormState["notice"]>): string[] {
  return [
    '<div class="notice" id="form-errors" role="alert" tabindex="-1">',
    `<h2>${escapeHtml(notice.title)}</h2>`,
    `<p>${notice.html}</p>`,
    "</div>",
  ];
}

/** The summary above the form of what to fix, each item linking to its field. */
function renderErrorSummary(text: ContactFormText, messages: FieldMessages): string[] {
  if (!messages.size) return [];
  const labels: Record<string, [string, string]> = {
    Name: [text.firstName, "f-first"],
    Email: [text.email, "f-email"],
    Category: [text.category, "f-category"],
    Message: [text.message, "f-message"],
  };
  return [
    '<div class="notice" id="form-errors" role="alert" tabindex="-1">',
    `<h2>${escapeHtml(text.errorSummary)}</h2>`,
    "<ul>",
    ...[...messages].map(([field, message]) => {
      const [label, id] = labels[field] ?? [field, "f-message"];
      return `<li><a href="#${id}">${escapeHtml(label)}</a>: ${escapeHtml(message)}</li>`;
    }),
    "</ul>",
    "</div>",
  ];
}

/** The fields a person fills in: the two names, e-mail, category and message. */
function renderFields(
  text: ContactFormText,
  state: ContactFormState,
  messages: FieldMessages,
): string[] {
  const values = state.values ?? {};
  const required = ` <span class="req">(${escapeHtml(text.required)})</span>`;
  const options = [
    `<option value="">${escapeHtml(text.categoryNone)}</option>`,
    ...text.categories.map((category) =>
      `<option value="${escapeHtml(category.value)}"${
        values.Category === category.value ? " selected" : ""
      }>${escapeHtml(category.label)}</option>`
    ),
  ];
  return [
    '<div class="field-row">',
    `<div class="field"><label for="f-first">${escapeHtml(text.firstName)}${required}</label>`,
    `<input id="f-first" name="Name" autocomplete="given-name" required maxlength="${FIRST_NAME_MAX}"${
      valueAttribute(state.firstName)
    }${describedBy(messages, "f-first", "Name")}${paramAttribute(CONTACT_FIELDS, "Name")}>${
      renderError(messages, "f-first", "Name")
    }</div>`,
    `<div class="field"><label for="f-last">${escapeHtml(text.lastName)}</label>`,
    `<input id="f-last" name="Name" autocomplete="family-name" maxlength="${LAST_NAME_MAX}"${
      valueAttribute(state.lastName)
    }></div>`,
    "</div>",
    `<div class="field"><label for="f-email">${escapeHtml(text.email)}${required}</label>`,
    `<input id="f-email" name="Email" type="email" autocomplete="email" required maxlength="${CONTACT_FIELDS.Email.maxLength}"${
      valueAttribute(values.Email)
    }${describedBy(messages, "f-email", "Email")}${paramAttribute(CONTACT_FIELDS, "Email")}>${
      renderError(messages, "f-email", "Email")
    }</div>`,
    `<div class="field"><label for="f-category">${escapeHtml(text.category)}</label>`,
    `<select id="f-category" name="Category"${describedBy(messages, "f-category", "Category")}${
      paramAttribute(CONTACT_FIELDS, "Category")
    }>${options.join("")}</select>${renderError(messages, "f-category", "Category")}</div>`,
    `<div class="field"><label for="f-message">${escapeHtml(text.message)}${required}</label>`,
    `<span class="hint" id="f-message-hint">${escapeHtml(text.messageHint)}</span>`,
    `<textarea id="f-message" name="Message" rows="8" required maxlength="${CONTACT_FIELDS.Message.maxLength}"${
      describedBy(messages, "f-message", "Message", true)
    }${paramAttribute(CONTACT_FIELDS, "Message")}>${escapeHtml(values.Message ?? "")}</textarea>${
      renderError(messages, "f-message", "Message")
    }</div>`,
  ];
}

/**
 * Renders the contact form.
 *
 * @param text The form's labels and messages.
 * @param action The path the form posts to (the contact page's own).
 * @param state Values, and the problems or the notice to show (`{}` for an empty form).
 * @param renderInlineMarkdown The site's inline Markdown renderer (`Site.renderInlineMarkdown`),
 * for the privacy line.
 * @returns The form's HTML.
 */
export function renderContactForm(
  text: ContactFormText,
  action: string,
  state: ContactFormState,
  renderInlineMarkdown: (markdown: string) => string,
): string {
  const messages = new Map<string, string>();
  for (const problem of state.problems ?? []) {
    if (!messages.has(problem.field)) messages.set(problem.field, describeProblem(text, problem));
  }
  const hidden = ATTRIBUTION_FIELDS.map((name) =>
    `<input type="hidden" name="${name}"${valueAttribute(state.attribution?.[name])}>`
  );
  return [
    `<form class="contact-form" method="post" action="${escapeHtml(action)}" ` +
    `enctype="multipart/form-data" accept-charset="utf-8"${
      toolAttributes("send_inquiry", "createContactInquiry", true)
    }>`,
    ...(state.notice ? renderNotice(state.notice) : renderErrorSummary(text, messages)),
    "<fieldset>",
    `<legend>${escapeHtml(text.legend)}</legend>`,
    ...renderFields(text, state, messages),
    ...hidden,
    "</fieldset>",
    `<button type="submit">${escapeHtml(text.submit)}</button>`,
    `<p class="small">${renderInlineMarkdown(text.privacy)}</p>`,
    "</form>",
  ].join("\n");
}
