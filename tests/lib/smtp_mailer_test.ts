import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import { createSmtpMailer } from "../../lib/smtp_mailer.ts";
import type { OutgoingMail } from "../../lib/mail.ts";
import { startSmtpServer } from "../_smtp.ts";

function buildMail(index: number): OutgoingMail {
  return {
    messageId: `handover-${index}@studio.example`,
    from: "site@studio.example",
    to: ["inbox@studio.example"],
    subject: `Message ${index}`,
    text: `Olá ${index}\r\n.\r\nA line with only a dot stays in the message.`,
  };
}

test("createSmtpMailer() awaits beforeEnd before completing the message: the server has it only after", async () => {
  const smtp = await startSmtpServer();
  const mailer = createSmtpMailer(smtp.url);
  try {
    const order: string[] = [];
    await mailer.send(buildMail(1), {
      async beforeEnd() {
        order.push("beforeEnd");
        // The whole message but its end has been sent; without the end the server waits.
        await delay(300);
        assert.equal(smtp.messages.length, 0, "not received before beforeEnd resolves");
        order.push("resolved");
      },
    });
    order.push("sent");
    assert.deepEqual(order, ["beforeEnd", "resolved", "sent"]);
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail.parsed.messageId, "<handover-1@studio.example>");
    assert.match(mail.parsed.text ?? "", /^\.$/m, "dot-stuffing undone by the server");
  } finally {
    mailer.close();
    await smtp.stop();
  }
});

test("createSmtpMailer() leaves the message unfinished when beforeEnd rejects: the server discards it and the pool goes on", async () => {
  const smtp = await startSmtpServer();
  const mailer = createSmtpMailer(smtp.url);
  try {
    await assert.rejects(
      mailer.send(buildMail(2), { beforeEnd: () => Promise.reject(new Error("lease lost")) }),
      /lease lost/,
    );
    await delay(500);
    assert.equal(smtp.messages.length, 0, "the unfinished message never arrives");
    await mailer.send(buildMail(3));
    const received = await smtp.waitFor(1);
    await delay(200);
    assert.deepEqual(received.map((mail) => mail.parsed.messageId), [
      "<handover-3@studio.example>",
    ]);
  } finally {
    mailer.close();
    await smtp.stop();
  }
});
