import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Mailer, OutgoingMail } from "../../../lib/mail/mail.ts";
import {
  createOutbox,
  DUE_PREFIX,
  fromStoredMail,
  OUTBOX_PREFIX,
  SENT_PREFIX,
  toStoredMail,
} from "../../../lib/mail/outbox.ts";
import type { KvEntry, Store } from "../../../lib/store/store.ts";
import { openKvFile } from "../../_kv.ts";
import { createRecordingLogger } from "../../_support.ts";
import { createFixedClock, createMemoryStore } from "../../../testing.ts";

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

const folders: string[] = [];

after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A new KV file, as the service keeps its outbox. */
async function openOutboxFile(): Promise<Store> {
  const folder = mkdtempSync(join(tmpdir(), "studio-outbox-"));
  folders.push(folder);
  return await openKvFile(join(folder, "outbox.kv"));
}

/**
 * A mailer whose sending waits until the test answers it: `started` resolves once a message is
 * being sent; `answer` lets the mail server accept or refuse it.
 */
function createGatedMailer() {
  let start = () => {};
  let answer: (outcome: "accept" | "refuse") => void = () => {};
  const started = new Promise<void>((resolve) => start = resolve);
  const outcome = new Promise<"accept" | "refuse">((resolve) => answer = resolve);
  const accepted: OutgoingMail[] = [];
  const mailer: Mailer = {
    async send(mail) {
      start();
      if (await outcome === "refuse") throw new Error("451 Try again later");
      accepted.push(mail);
    },
  };
  return { mailer, started, answer, accepted };
}

/** The entries under a prefix (`Array.fromAsync` is not in Node 20). */
async function listEntries<T>(store: Store, prefix: readonly string[]): Promise<KvEntry<T>[]> {
  const entries: KvEntry<T>[] = [];
  for await (const entry of store.list<T>({ prefix })) entries.push(entry);
  return entries;
}

/** Every key under the outbox's three prefixes. */
async function listOutboxKeys(store: Store): Promise<string[]> {
  const keys: string[] = [];
  for (const prefix of [OUTBOX_PREFIX, DUE_PREFIX, SENT_PREFIX]) {
    for await (const entry of store.list({ prefix })) keys.push(JSON.stringify(entry.key));
  }
  return keys;
}

for (const outcome of ["refuse", "accept"] as const) {
  test(
    `createOutbox() writes nothing back for a message deleted while it was sent, when the server ${
      outcome === "accept" ? "accepts" : "refuses"
    } it`,
    async () => {
      const clock = createFixedClock("2026-11-21T10:00:00Z");
      const store = await openOutboxFile();
      try {
        const gated = createGatedMailer();
        const logger = createRecordingLogger();
        const outbox = createOutbox({ store, mailer: gated.mailer, clock, logger });
        await enqueue(store, outbox, 1);
        const pass = outbox.deliverDue();
        await gated.started;
        // What an erasure does meanwhile: it deletes the message and the due key it read (the one
        // before the lease; the lease's own due key is left for the outbox to clean up).
        const [message] = await listEntries(store, OUTBOX_PREFIX);
        await store.delete(message.key);
        gated.answer(outcome);
        assert.deepEqual(await pass, { sent: 0, failed: 0, skipped: 1 });
        assert.deepEqual(await listOutboxKeys(store), [], "no message, due key or delivery record");
        assert.equal(gated.accepted.length, outcome === "accept" ? 1 : 0);
        assert.ok(logger.records.some((record) => /left the outbox/.test(record.message)));
        assert.ok(!logger.records.some((record) => record.level === "error"));
        clock.advance({ hours: 1 });
        assert.deepEqual(await outbox.deliverDue(), { sent: 0, failed: 0, skipped: 0 });
        assert.deepEqual(await listOutboxKeys(store), []);
      } finally {
        store.close();
      }
    },
  );
}

test("createOutbox() leaves a message leased again after its lease ran out to the process that holds it", async () => {
  const clock = createFixedClock("2026-11-21T10:00:00Z");
  const store = await openOutboxFile();
  try {
    const slow = createGatedMailer();
    const quick = createSwitchableMailer();
    const logger = createRecordingLogger();
    const one = createOutbox({ store, mailer: slow.mailer, clock, logger, leaseSeconds: 60 });
    const two = createOutbox({ store, mailer: quick.mailer, clock, logger, leaseSeconds: 60 });
    await enqueue(store, one, 1);
    const first = one.deliverDue();
    await slow.started;
    clock.advance({ seconds: 61 });
    assert.deepEqual(await two.deliverDue(), { sent: 1, failed: 0, skipped: 0 });
    slow.answer("refuse");
    assert.deepEqual(await first, { sent: 0, failed: 0, skipped: 1 });
    const sent = await listEntries<{ attempts: number }>(store, SENT_PREFIX);
    assert.equal(sent.length, 1, "the second process's delivery is recorded");
    assert.equal(sent[0].value.attempts, 1, "the first one's failure is not counted");
    assert.equal(await countKeys(store, [...OUTBOX_PREFIX]), 0, "not rescheduled by the first");
    assert.equal(await countKeys(store, [...DUE_PREFIX]), 0);
    assert.equal(quick.accepted.length, 1);
  } finally {
    store.close();
  }
});

test("createOutbox() deletes a due key whose message is gone, so that it does not hold up others", async () => {
  const clock = createFixedClock("2026-11-21T10:00:00Z");
  const store = await openOutboxFile();
  try {
    const { mailer, accepted } = createSwitchableMailer();
    const outbox = createOutbox({ store, mailer, clock, logger: createRecordingLogger() });
    // More due keys without their message than one read of the index takes.
    const orphans = store.atomic();
    for (let index = 0; index < 70; index++) {
      const id = `01ORPHAN${String(index).padStart(18, "0")}`;
      orphans.set([...DUE_PREFIX, clock.now().epochMilliseconds - 1000, id], id);
    }
    assert.equal((await orphans.commit()).ok, true);
    await enqueue(store, outbox, 1);
    assert.deepEqual(await outbox.deliverDue(), { sent: 1, failed: 0, skipped: 0 });
    assert.equal(accepted.length, 1);
    assert.equal(await countKeys(store, [...DUE_PREFIX]), 0, "the orphaned due keys are gone");
    assert.equal(await countKeys(store, [...OUTBOX_PREFIX]), 0);
    assert.equal(await countKeys(store, [...SENT_PREFIX]), 1);
  } finally {
    store.close();
  }
});
