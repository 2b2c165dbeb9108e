// Adapter with side effects: sends mail over SMTP with nodemailer (which uses node:net/node:tls).
// It is injected by the composition roots; nothing in lib/ or routes/ imports it otherwise.
/**
 * An SMTP mailer built on nodemailer.
 *
 * @module
 */
import type { Transporter } from "nodemailer";
import type { Mailer, OutgoingMail } from "../lib/mail/mail.ts";
import { loadOnce } from "../lib/load_once.ts";
import { addToCounter, withSpan } from "../lib/telemetry/telemetry.ts";

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
  // nodemailer is slow to load: a service that sends no mail never pays for it, and one that does
  // pays at its first message rather than at start-up.
  const open = loadOnce(async (): Promise<Transporter> => {
    const { default: nodemailer } = await import("nodemailer");
    return nodemailer.createTransport({
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
    });
  });
  // Whether a message asked for the transport, which close() then closes: a mailer that sent
  // nothing has none to close.
  let opened = false;
  // The delivery's span names the server, never the URL (it may hold the account's password).
  const server = readServer(url);
  /** Hands one message to the server. */
  async function deliver(mail: OutgoingMail): Promise<void> {
    opened = true;
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
  }
  return {
    async send(mail: OutgoingMail) {
      try {
        await withSpan("smtp send", server, () => deliver(mail), "client");
      } catch (error) {
        addToCounter("deliveryFailures");
        throw error;
      }
    },
    close() {
      if (opened) void open().then((transport) => transport.close(), () => {});
    },
  };
}

/**
 * The SMTP server of a URL as the span's attributes (`server.address`, `server.port`, the
 * general semantic conventions'), without its user and password.
 */
function readServer(url: string): Record<string, string | number> {
  try {
    const parsed = new URL(url);
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === "smtps:" ? 465 : 587;
    return { "server.address": parsed.hostname, "server.port": port };
  } catch {
    return {};
  }
}
