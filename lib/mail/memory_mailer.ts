/**
 * A mailer that keeps every message in memory: `createHandler`'s default mailer and a test double
 * (exported by the package's `./testing`).
 *
 * @module
 */
import type { Mailer, OutgoingMail } from "./mail.ts";

/** A mailer that keeps every message in memory. */
export interface MemoryMailer extends Mailer {
  /** The messages sent, oldest first, each a copy of the message as it was sent. */
  readonly sent: OutgoingMail[];
}

/**
 * Creates a mailer that keeps what it is given: every message is accepted at once and a copy is
 * appended to `sent`.
 *
 * @returns The mailer, with no message sent yet.
 * @throws {DOMException} From `send`, when the message cannot be copied by `structuredClone`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoryMailer } from "./memory_mailer.ts";
 *
 * const mailer = createMemoryMailer();
 * await mailer.send({ messageId: "1@x", from: "a@x", to: ["b@x"], subject: "Hi", text: "Hello" });
 * assert.equal(mailer.sent.length, 1);
 * assert.equal(mailer.sent[0].subject, "Hi");
 * ```
 */
export function createMemoryMailer(): MemoryMailer {
  const sent: OutgoingMail[] = [];
  return {
    sent,
    send(mail) {
      sent.push(structuredClone(mail));
      return Promise.resolve();
    },
  };
}
