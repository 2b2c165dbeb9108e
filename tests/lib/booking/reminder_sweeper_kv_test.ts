/**
 * createReminderSweeper() on a real KV file (Deno KV on Deno, `@deno/kv` on Node and Bun), as
 * two instances of the service on one store: sweepers racing for the same due reminders queue
 * each exactly once, delivered to a real SMTP server; a sweep whose commit fails leaves the
 * reminder due for the next one.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openKvFile } from "../../_kv.ts";
import { startSmtpServer, type TestSmtpServer } from "../../_smtp.ts";
import { findRescheduleLink } from "../../_booking.ts";
import { createFixedClock } from "../../../testing.ts";
import { createSmtpMailer } from "../../../adapters/smtp_mailer.ts";
import type { AtomicOperation, Store } from "../../../lib/store/store.ts";
import type { BookingRecord } from "../../../lib/booking/booking_mail.ts";
import { book, close, createStudio, listReminders, NOW, type Studio } from "./_reminder_studio.ts";

let smtp: TestSmtpServer;
let mailer: ReturnType<typeof createSmtpMailer>;
const folder = mkdtempSync(join(tmpdir(), "studio-reminders-"));

before(async () => {
  smtp = await startSmtpServer();
  mailer = createSmtpMailer(smtp.url, { timeoutSeconds: 5 });
});

after(async () => {
  mailer.close();
  await smtp.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** The reminders the SMTP server received, by booking id. */
function receivedReminders(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const mail of smtp.messages) {
    const match = /^<attendee-reminder-([0-9A-Z]{26})-\d+@/.exec(mail.parsed.messageId ?? "");
    if (match) counts.set(match[1], (counts.get(match[1]) ?? 0) + 1);
  }
  return counts;
}

test("two sweepers on one KV file racing for 12 due reminders queue each exactly once", async () => {
  const path = join(folder, "race.kv");
  const clock = createFixedClock(NOW);
  const studios: Studio[] = [];
  for (let index = 0; index < 2; index++) {
    // A lead of two days: every reminder is due on Wednesday morning, before any start.
    const store = await openKvFile(path);
    studios.push(createStudio({ store, clock, mailer, reminderLeadMinutes: 2880 }));
  }
  try {
    // Twelve bookings on Wednesday and Thursday, made through both instances.
    const starts = ["2026-11-25", "2026-11-26"].flatMap((day) =>
      ["09:00", "10:00", "11:00", "14:00", "15:00", "16:00"].map((time) =>
        `${day}T${time}:00+00:00`
      )
    );
    const bookings: BookingRecord[] = [];
    for (const [index, start] of starts.entries()) {
      bookings.push(await book(studios[index % 2], start, { email: `a${index}@example.pt` }));
    }
    assert.equal((await listReminders(studios[0].store)).length, 12);
    const before = smtp.messages.length;

    // Wednesday 08:30: every reminder is due (two days before), no booking has started.
    clock.set("2026-11-25T08:30:00Z");
    const reports = await Promise.all(
      [0, 1, 0, 1, 0, 1].map((index) => studios[index].sweeper.sweepDue()),
    );
    assert.equal(reports.reduce((sum, report) => sum + report.queued, 0), 12, "12 queued in all");
    assert.equal(reports.reduce((sum, report) => sum + report.skipped, 0), 0);
    const counted = studios.map((studio) => studio.sweeper.counts().queued);
    assert.equal(counted[0] + counted[1], 12, `each counted by the process that queued it`);
    assert.deepEqual(await listReminders(studios[0].store), []);

    await Promise.all(studios.map((studio) => studio.services.outbox.deliverDue()));
    await smtp.waitFor(before + 12);
    // Give a second delivery, if there were one, the time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const received = receivedReminders();
    assert.deepEqual(
      [...received.entries()].sort(),
      bookings.map((booking) => [booking.id, 1]).sort(),
      "one reminder per booking",
    );
    const mail = smtp.messages.find((item) =>
      item.parsed.messageId?.includes(bookings[0].id) &&
      item.parsed.messageId.startsWith("<attendee-reminder-")
    );
    assert.ok(mail && findRescheduleLink(mail), "the reminder carries the reschedule link");
    assert.deepEqual(mail.envelopeTo, ["a0@example.pt"]);
  } finally {
    for (const studio of studios) await close(studio);
  }
});

/** The store, whose commits that delete a reminder fail `failures` times. */
function failingReminderCommits(store: Store, failures: { left: number }): Store {
  return {
    ...store,
    get: (key) => store.get(key),
    set: (key, value, options) => store.set(key, value, options),
    delete: (key) => store.delete(key),
    list: (selector, options) => store.list(selector, options),
    close: () => store.close(),
    atomic(): AtomicOperation {
      const operation = store.atomic();
      let remindersTouched = false;
      const wrapper: AtomicOperation = {
        check(...checks) {
          operation.check(...checks);
          return wrapper;
        },
        set(key, value, options) {
          operation.set(key, value, options);
          return wrapper;
        },
        delete(key) {
          if (key[0] === "reminder") remindersTouched = true;
          operation.delete(key);
          return wrapper;
        },
        commit() {
          if (remindersTouched && failures.left > 0) {
            failures.left--;
            return Promise.reject(new Error("connection reset"));
          }
          return operation.commit();
        },
      };
      return wrapper;
    },
  };
}

test("a sweep whose commit fails leaves the reminder due: the next sweep queues it, once", async () => {
  const path = join(folder, "crash.kv");
  const failures = { left: 1 };
  const studio = createStudio({
    store: failingReminderCommits(await openKvFile(path), failures),
    mailer,
  });
  try {
    const booking = await book(studio, "2026-11-25T10:00:00+00:00", { email: "eva@example.pt" });
    studio.clock.set("2026-11-24T10:00:00Z");
    assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 0, skipped: 0 });
    assert.ok(studio.logger.records.some((line) => line.message === "Reminder sweep failed"));
    assert.equal((await listReminders(studio.store)).length, 1, "still due");
    assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 1, skipped: 0 });
    assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 0, skipped: 0 });
    await studio.services.outbox.deliverDue();
    const deadline = Date.now() + 10_000;
    while (!receivedReminders().has(booking.id) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(receivedReminders().get(booking.id), 1);
  } finally {
    await close(studio);
  }
});
