/**
 * The booking e-mails a test server sent, found by kind and attendee: an attendee's e-mail goes
 * to them, a studio's e-mail goes to the inbox with Reply-To them. Internal to tests/.
 *
 * @module
 */
import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import type { ReceivedMail, TestSmtpServer } from "../_smtp.ts";

/** The studio's inbox of the e2e servers. */
export const TEST_INBOX = "inbox@studio.example";

/** The e-mails whose Message-ID starts with `<kind>-` about `attendee`'s booking. */
export function findMails(
  smtp: TestSmtpServer,
  kind: string,
  attendee: string,
  inbox: string = TEST_INBOX,
): ReceivedMail[] {
  return smtp.messages.filter((mail) => {
    if (!(mail.parsed.messageId ?? "").startsWith(`<${kind}-`)) return false;
    if (kind.startsWith("attendee-")) return mail.envelopeTo.join() === attendee;
    return mail.envelopeTo.join() === inbox && mail.parsed.replyTo?.[0]?.address === attendee;
  });
}

/** Waits for the one e-mail of `kind` about `attendee`'s booking; fails if two arrived. */
export async function receiveMail(
  smtp: TestSmtpServer,
  kind: string,
  attendee: string,
  inbox: string = TEST_INBOX,
): Promise<ReceivedMail> {
  const deadline = Date.now() + 15_000;
  while (!findMails(smtp, kind, attendee, inbox).length && Date.now() < deadline) await delay(20);
  const found = findMails(smtp, kind, attendee, inbox);
  assert.equal(found.length, 1, `one ${kind} e-mail about ${attendee}`);
  return found[0];
}
