/**
 * Outgoing e-mail: the message shape the service stores in its outbox and the mailer port that
 * sends it (the in-memory mailer is in `memory_mailer.ts`).
 *
 * @module
 */

/** The addresses of the service's mail: From, the studio's inbox, the domain of Message-IDs. */
export interface MailAddresses {
  /** From address of every e-mail, e.g. `Studio <studio@example.pt>`. */
  from: string;
  /** The studio's inbox for inquiries and booking notices. */
  inbox: string;
  /** The domain of generated `Message-ID`s and iCalendar `UID`s, e.g. `studio.example`. */
  messageIdDomain: string;
}

/** A file attached to a message. */
export interface MailAttachment {
  /** File name, e.g. `invite.ics`. */
  filename: string;
  /** Media type, e.g. `application/ics`. */
  contentType: string;
  /** The content as text (UTF-8). */
  content: string;
}

/**
 * One message, complete and ready to send: the outbox keeps it as it is, so a delivery after a
 * restart sends exactly what was accepted.
 */
export interface OutgoingMail {
  /** The RFC 5322 Message-ID without angle brackets, stable across retries. */
  messageId: string;
  /** From: an address, optionally with a display name (`Studio <studio@example.pt>`). */
  from: string;
  /** Recipients' addresses. */
  to: string[];
  /** Reply-To: a validated bare address only. */
  replyTo?: string;
  /** Subject, free of control characters. */
  subject: string;
  /** The plain-text body. */
  text: string;
  /** An HTML alternative, with every interpolated value escaped. */
  html?: string;
  /**
   * An invite, sent as iMIP (RFC 6047): a `text/calendar; method=…` alternative part and the same
   * content as an `.ics` attachment (`invite.ics`, or `cancel.ics` for CANCEL).
   */
  calendar?: { method: "REQUEST" | "CANCEL"; content: string };
  /** Attachments. */
  attachments?: MailAttachment[];
}

/** Sends messages. `send` resolves once the server accepted the message and rejects otherwise. */
export interface Mailer {
  /**
   * Sends one message.
   *
   * @throws Any error when the message was not accepted (the outbox retries it later).
   */
  send(mail: OutgoingMail): Promise<void>;
}

/**
 * Makes a value safe for a header line: every control character (CR and LF included, which could
 * otherwise add or split headers) becomes a space, runs of spaces shrink to one, and the result
 * is trimmed and cut to `maxLength` code points.
 *
 * @param value Untrusted text.
 * @param maxLength The most code points to keep. @default {200}
 */
export function toHeaderText(value: string, maxLength = 200): string {
  // deno-lint-ignore no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
    // Invisible formatting characters that reorder or hide the text (see lib/contract/fields.ts).
    .replace(/[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, "")
    .replace(/ {2,}/g, " ").trim();
  return [...clean].slice(0, maxLength).join("");
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/**
 * The address of a mailbox written with a display name (`Studio <studio@example.pt>` →
 * `studio@example.pt`); a bare address is returned as it is.
 *
 * @param mailbox An RFC 5322 mailbox, as `STUDIO_MAIL_FROM` and `STUDIO_INBOX` take it.
 * @returns The address alone.
 */
export function toBareAddress(mailbox: string): string {
  return /<([^<>]+)>\s*$/.exec(mailbox)?.[1] ?? mailbox;
}
