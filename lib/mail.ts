/**
 * Outgoing e-mail: the message shape the service stores in its outbox, the mailer port that sends
 * it, and an in-memory mailer for tests and the library's defaults.
 *
 * @module
 */

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
   * @param mail The message.
   * @param options `beforeEnd`, when given, is awaited once the whole message except its end
   * has gone to the server — for SMTP, before the `<CRLF>.<CRLF>` that makes the server take
   * it (RFC 5321, section 4.1.1.4) — so the outbox can record the message as sent before the
   * server can have it. If `beforeEnd` rejects, the message must not be completed (the SMTP
   * mailer closes the connection instead, and the server discards the unfinished message) and
   * `send` rejects. A mailer that cannot do this may ignore it; the outbox then records the
   * message after `send` resolves, so a crash in between can send it twice.
   * @throws Any error when the message was not accepted (the outbox retries it later).
   */
  send(mail: OutgoingMail, options?: SendOptions): Promise<void>;
}

/** Options of {@linkcode Mailer.send}. */
export interface SendOptions {
  /** Awaited before the message is completed; see {@linkcode Mailer.send}. */
  beforeEnd?: () => Promise<void>;
}

/** A mailer that keeps every message in memory. */
export interface MemoryMailer extends Mailer {
  /** The messages sent, oldest first. */
  readonly sent: OutgoingMail[];
}

/**
 * Creates a mailer that keeps what it is given: the library's default and a test double.
 *
 * @example
 * ```ts
 * import { createMemoryMailer } from "./mail.ts";
 * const mailer = createMemoryMailer();
 * await mailer.send({ messageId: "1@x", from: "a@x", to: ["b@x"], subject: "Hi", text: "Hello" });
 * console.log(mailer.sent.length); // 1
 * ```
 */
export function createMemoryMailer(): MemoryMailer {
  const sent: OutgoingMail[] = [];
  return {
    sent,
    async send(mail, options) {
      const copy = structuredClone(mail);
      await options?.beforeEnd?.();
      sent.push(copy);
    },
  };
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
    .replace(/ {2,}/g, " ").trim();
  return [...clean].slice(0, maxLength).join("");
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}
