// Adapter with side effects: sends mail over SMTP with nodemailer (which uses node:net/node:tls).
// It is injected by the composition roots; nothing in lib/ or routes/ imports it otherwise.
/**
 * An SMTP mailer built on nodemailer.
 *
 * @module
 */
import type { Transporter } from "nodemailer";
import type { Mailer, OutgoingMail } from "../lib/mail/mail.ts";

/** Options of {@linkcode createSmtpMailer}. */
export interface SmtpMailerOptions {
  /** Seconds to wait for the connection, the greeting and each reply. @default {15} */
  timeoutSeconds?: number;
  /** Connections kept open to the server at most. @default {4} */
  maxConnections?: number;
}

/**
 * Creates a mailer that sends through the SMTP server of `url`.
 *
 * @param url `smtp://[user:pass@]host[:port]` (STARTTLS when offered) or `smtps://…` (TLS).
 * @param options Timeouts.
 * @returns A mailer whose `send` rejects when the server refuses or cannot be reached.
 */
export function createSmtpMailer(url: string, options: SmtpMailerOptions = {}): Mailer & {
  close(): void;
} {
  const timeout = (options.timeoutSeconds ?? 15) * 1000;
  // nodemailer costs about 50 ms to load: a service that sends no mail never pays it, and one
  // that does pays it at its first message rather than at start-up.
  let transport: Promise<Transporter> | undefined;
  const open = () =>
    transport ??= import("nodemailer").then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url,
        // Reuse a few connections instead of a TCP and SMTP handshake per message.
        pool: true,
        maxConnections: options.maxConnections ?? 4,
        maxMessages: 100,
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
        disableFileAccess: true,
        disableUrlAccess: true,
      })
    );
  return {
    async send(mail: OutgoingMail) {
      await (await open()).sendMail({
        messageId: `<${mail.messageId}>`,
        from: mail.from,
        to: mail.to,
        replyTo: mail.replyTo,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        // nodemailer sends icalEvent both as the text/calendar alternative and as an attachment.
        icalEvent: mail.calendar
          ? {
            method: mail.calendar.method,
            content: mail.calendar.content,
            filename: mail.calendar.method === "CANCEL" ? "cancel.ics" : "invite.ics",
          }
          : undefined,
        attachments: mail.attachments?.map((attachment) => ({
          filename: attachment.filename,
          contentType: attachment.contentType,
          content: attachment.content,
        })),
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    },
    close() {
      void transport?.then((opened) => opened.close());
    },
  };
}
