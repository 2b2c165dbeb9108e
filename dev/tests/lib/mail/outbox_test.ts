import { test } from "node:test";
import assert from "node:assert/strict";
import type { Mailer, OutgoingMail } from "../../../../lib/mail/mail.ts";
import {
  createOutbox,
  DUE_PREFIX,
  fromStoredMail,
  OUTBOX_PREFIX,
  SENT_PREFIX,
  toStoredMail,
} from "../../../../lib/mail/outbox.ts";
import type { Store } from "../../../../lib/store/store.ts";
import { createRecordingLogger } from "../../_support.ts";
import { createFixedClock, createMemoryStore } from "../../../../testing.ts";

function buildMail(index: number): OutgoingMail {
  return {
    messageId: `m${index}@studio.example`,
    from: "site@studio.example",
    to: ["inbox@studio.example"],
    subject: `Message ${index}`,
    text: `Olá ${index} “”`,
  };
}

/** A mailer that fails while `down` is true and records what it accepted. */
function createSwitchableMailer(options: { delayMs?: number } = {}) {
  const accepted: OutgoingMail[] = [];
  const state = { down: false, calls: 0 };
  const mailer: Mailer = {
    async send(mail) {
      state.calls++;
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      if (state.down) throw new Error("connect ECONNREFUSED");
      accepted.push(mail);
    },
  };
  return { mailer, accepted, state };
}

async function enqueue(store: Store, outbox: ReturnType<typeof createOutbox>, count: number) {
  const operation = store.atomic();
  outbox.add(
    operation,
    Array.from({ length: count }, (_, index) => ({
      topic: "test",
      recordId: `r${index}`,
      mail: buildMail(index),
    })),
  );
  assert.equal((await operation.commit()).ok, true);
}

async function countKeys(store: Store, prefix: readonly string[]): Promise<number> {
  let count = 0;
  for await (const _ of store.list({ prefix })) count++;
  return count;
}

test("toStoredMail() and fromStoredMail() give back the message that was accepted", () => {
  const mail: OutgoingMail = {
    ...buildMail(1),
    html: "<p>Olá “”</p>",
    calendar: { method: "REQUEST", content: "BEGIN:VCALENDAR\r\nEND:VCALENDAR" },
  };
  const stored = toStoredMail(mail);
  assert.ok(stored.text instanceof Uint8Array);
  assert.deepEqual(fromStoredMail(stored), mail);
});

test("createOutbox() delivers due messages once and keeps a sent record", async () => {
  const clock = createFixedClock("2026-11-21T10:00:00Z");
  const store = createMemoryStore();
  const { mailer, accepted } = createSwitchableMailer();
  const outbox = createOutbox({ store, mailer, clock, logger: createRecordingLogger() });
  await enqueue(store, outbox, 5);
  const report = await outbox.deliverDue();
  assert.deepEqual(report, { sent: 5, failed: 0, skipped: 0 });
  assert.deepEqual(
    accepted.map((mail) => mail.subject).sort(),
    [0, 1, 2, 3, 4].map((index) => `Message ${index}`),
  );
  assert.equal(await countKeys(store, [...OUTBOX_PREFIX]), 0);
  assert.equal(await countKeys(store, [...DUE_PREFIX]), 0);
  assert.equal(await countKeys(store, [...SENT_PREFIX]), 5);
  assert.deepEqual(await outbox.deliverDue(), { sent: 0, failed: 0, skipped: 0 });
  assert.equal(accepted.length, 5, "nothing is sent twice");
});

test("createOutbox() retries a failed message with doubling backoff until it is accepted", async () => {
  const clock = createFixedClock("2026-11-21T10:00:00Z");
  const store = createMemoryStore();
  const { mailer, accepted, state } = createSwitchableMailer();
  const logger = createRecordingLogger();
  const outbox = createOutbox({ store, mailer, clock, logger, retryBaseSeconds: 2 });
  await enqueue(store, outbox, 1);
  state.down = true;
  assert.deepEqual(await outbox.deliverDue(), { sent: 0, failed: 1, skipped: 0 });
  clock.advance({ seconds: 1 });
  assert.deepEqual(await outbox.deliverDue(), { sent: 0, failed: 0, skipped: 0 }, "not due yet");
  clock.advance({ seconds: 1 });
  assert.deepEqual(await outbox.deliverDue(), { sent: 0, failed: 1, skipped: 0 }, "due after 2 s");
  clock.advance({ seconds: 3 });
  assert.deepEqual(await outbox.deliverDue(), { sent: 0, failed: 0, skipped: 0 }, "next after 4 s");
  state.down = false;
  clock.advance({ seconds: 1 });
  assert.deepEqual(await outbox.deliverDue(), { sent: 1, failed: 0, skipped: 0 });
  assert.equal(accepted.length, 1);
  assert.equal(state.calls, 3);
  const warnings = logger.records.filter((record) => record.level === "warn");
  assert.deepEqual(warnings.map((record) => record.fields?.retryInSeconds), [2, 4]);
});

test("createOutbox() lets only one of two outboxes on one store send a message", async () => {
  const clock = createFixedClock("2026-11-21T10:00:00Z");
  const store = createMemoryStore();
  const first = createSwitchableMailer({ delayMs: 20 });
  const second = createSwitchableMailer({ delayMs: 20 });
  const logger = createRecordingLogger();
  const one = createOutbox({ store, mailer: first.mailer, clock, logger });
  const two = createOutbox({ store, mailer: second.mailer, clock, logger });
  await enqueue(store, one, 12);
  await Promise.all([one.deliverDue(), two.deliverDue()]);
  const subjects = [...first.accepted, ...second.accepted].map((mail) => mail.subject);
  assert.equal(subjects.length, 12);
  assert.equal(new Set(subjects).size, 12, "no message was sent by both");
});

test("createOutbox() keeps mail waiting without a mailer and says so once", async () => {
  const clock = createFixedClock("2026-11-21T10:00:00Z");
  const store = createMemoryStore();
  const logger = createRecordingLogger();
  const outbox = createOutbox({ store, clock, logger });
  await enqueue(store, outbox, 2);
  await outbox.deliverDue();
  await outbox.deliverDue();
  assert.equal(await countKeys(store, [...OUTBOX_PREFIX]), 2);
  const told = logger.records.filter((record) => /STUDIO_SMTP_URL is unset/.test(record.message));
  assert.equal(told.length, 1);
});

test("createOutbox() stop() leaves messages not yet begun due for the next start", async () => {
  const clock = createFixedClock("2026-11-21T10:00:00Z");
  const store = createMemoryStore();
  const slow = createSwitchableMailer({ delayMs: 30 });
  const outbox = createOutbox({
    store,
    mailer: slow.mailer,
    clock,
    logger: createRecordingLogger(),
    concurrency: 1,
  });
  await enqueue(store, outbox, 10);
  const pass = outbox.deliverDue();
  await new Promise((resolve) => setTimeout(resolve, 45));
  await outbox.stop();
  await pass;
  assert.ok(slow.accepted.length >= 1 && slow.accepted.length < 10, `${slow.accepted.length}`);
  assert.equal(await countKeys(store, [...OUTBOX_PREFIX]), 10 - slow.accepted.length);
  const again = createOutbox({
    store,
    mailer: slow.mailer,
    clock,
    logger: createRecordingLogger(),
  });
  await again.deliverDue();
  assert.equal(slow.accepted.length, 10);
  assert.equal(new Set(slow.accepted.map((mail) => mail.subject)).size, 10);
});
