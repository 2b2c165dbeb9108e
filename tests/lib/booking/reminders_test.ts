/**
 * Booking reminders on an in-memory store with a fixed clock: when `createBooking()`,
 * `applyBookingAction()`, `moveBooking()` and `erasePersonalData()` schedule and delete them
 * (`lib/booking/reminders.ts`), what `createReminderSweeper().sweepDue()` queues, and the
 * e-mail the attendee gets. The schedule is this file's own, so that the studio's content does
 * not move its slots.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServices } from "../../../compose/create_handler.ts";
import type { OutgoingMail } from "../../../lib/mail/mail.ts";
import { applyBookingAction } from "../../../lib/booking/bookings.ts";
import { moveBooking } from "../../../lib/booking/move_booking.ts";
import { buildReminderDue, REMINDER_PREFIX } from "../../../lib/booking/reminders.ts";
import { erasePersonalData } from "../../../lib/privacy/personal_data.ts";
import { toZoneName } from "../../../lib/availability/to_zone_name.ts";
import {
  book,
  close,
  createStudio,
  epochMs,
  findBooking,
  listReminders,
  NOW,
  type Studio,
} from "./_reminder_studio.ts";
import { ConfigError, readConfig } from "../../../lib/config.ts";

/** Wednesday 10:00 in Lisbon: two days and two hours after NOW. */
const WEDNESDAY = "2026-11-25T10:00:00+00:00";
/** Its reminder, with the default lead of 1440 minutes: Tuesday 10:00. */
const WEDNESDAY_DUE = "2026-11-24T10:00:00Z";

/** The reminders the mailer was given, once the outbox has delivered what is due. */
async function deliveredReminders(studio: Studio): Promise<OutgoingMail[]> {
  await studio.services.outbox.deliverDue();
  return studio.mailer.sent.filter((mail) => mail.messageId.startsWith("attendee-reminder-"));
}

test("createBooking() schedules one reminder a lead before the start; sweepDue() queues it at the due time, once", async () => {
  const studio = createStudio();
  try {
    const booking = await book(studio, WEDNESDAY, { email: "ana@example.pt", locale: "en" });
    assert.equal(booking.reminderDueEpochMs, epochMs(WEDNESDAY_DUE));
    assert.deepEqual(await listReminders(studio.store), [
      [
        epochMs(WEDNESDAY_DUE),
        booking.id,
        { bookingId: booking.id, sequence: 0, startEpochMs: epochMs(WEDNESDAY) },
      ],
    ]);

    studio.clock.set("2026-11-24T09:59:59.999Z");
    assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 0, skipped: 0 }, "not yet due");
    studio.clock.set(WEDNESDAY_DUE);
    assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 1, skipped: 0 });
    assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 0, skipped: 0 }, "only once");
    assert.deepEqual(studio.sweeper.counts(), { queued: 1, skipped: 0 });
    assert.deepEqual(await listReminders(studio.store), []);

    const [reminder, ...more] = await deliveredReminders(studio);
    assert.equal(more.length, 0);
    assert.deepEqual(reminder.to, ["ana@example.pt"]);
    assert.equal(reminder.messageId, `attendee-reminder-${booking.id}-0@studio.example`);
    assert.match(reminder.subject, /^Reminder: conversation with the studio: Wednesday/);
    assert.equal(reminder.calendar, undefined, "no invite: nothing changed");
    const links = studio.services.linkSigner;
    const base = "https://studio.example";
    assert.ok(reminder.text.includes(await links.buildRescheduleUrl(base, booking.id, 0)));
    assert.ok(reminder.text.includes(await links.buildUrl(base, "cancel", booking.id)));
    assert.match(
      reminder.text,
      /When: Wednesday,? 25 November 2026 at 10:00 \(Western European Time\)/,
    );
    assert.doesNotMatch(reminder.text, /Studio time/, "one zone when the booking names none");

    const stored = await findBooking(studio, "ana@example.pt");
    assert.equal(stored.reminderDueEpochMs, undefined);
    assert.equal(stored.mailIds.length, booking.mailIds.length + 1, "the reminder is its mail");
    const logged = studio.logger.records.filter((line) => line.message === "Reminder queued");
    assert.deepEqual(logged.map((line) => line.fields), [{ id: booking.id }], "the id, no more");
  } finally {
    await close(studio);
  }
});

test("the reminder names the attendee's zone when the booking has one, and the studio's, in Portuguese", async () => {
  const studio = createStudio();
  try {
    const booking = await book(studio, WEDNESDAY, { email: "rita@example.com.br", locale: "pt" });
    const key = ["booking", booking.id];
    await studio.store.set(key, { ...booking, timeZone: "America/Sao_Paulo" });
    studio.clock.set(WEDNESDAY_DUE);
    assert.equal((await studio.sweeper.sweepDue()).queued, 1);
    const [reminder] = await deliveredReminders(studio);
    const at = Temporal.Instant.from(WEDNESDAY);
    const brasilia = toZoneName("America/Sao_Paulo", { locale: "pt-PT", at });
    const lisbon = toZoneName("Europe/Lisbon", { locale: "pt-PT", at });
    assert.match(reminder.subject, /^Lembrete: conversa com o estúdio: quarta-feira/);
    assert.ok(reminder.subject.includes("07:00"), reminder.subject);
    assert.ok(
      reminder.text.includes(`Quando: quarta-feira, 25 de novembro de 2026 às 07:00 (${brasilia})`),
    );
    assert.ok(
      reminder.text.includes(
        `Hora do estúdio: quarta-feira, 25 de novembro de 2026 às 10:00 (${lisbon})`,
      ),
    );
    assert.match(reminder.text, /Para mudar para outra hora/);
    assert.match(reminder.text, /Para cancelar/);
  } finally {
    await close(studio);
  }
});

test("a booking made less than the lead before its start gets no reminder, and lead 0 gives none", async () => {
  const late = createStudio();
  const off = createStudio({ reminderLeadMinutes: 0 });
  try {
    // Monday 16:00 is eight hours away: its due time, a day before, has passed.
    const soon = await book(late, "2026-11-23T16:00:00+00:00");
    assert.equal(soon.reminderDueEpochMs, undefined);
    const ahead = await book(off, WEDNESDAY);
    assert.equal(ahead.reminderDueEpochMs, undefined);
    for (const studio of [late, off]) {
      assert.deepEqual(await listReminders(studio.store), []);
      studio.clock.set("2026-11-23T15:59:00Z");
      assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 0, skipped: 0 });
      assert.deepEqual(await deliveredReminders(studio), []);
    }
    assert.equal(
      buildReminderDue(ahead, { leadMinutes: 1440, nowEpochMs: epochMs(NOW) }),
      epochMs(WEDNESDAY_DUE),
    );
    assert.equal(
      buildReminderDue(ahead, { leadMinutes: 1440, nowEpochMs: epochMs(WEDNESDAY_DUE) }),
      undefined,
      "due now is too late",
    );
  } finally {
    await close(late);
    await close(off);
  }
});

test("cancelling deletes the reminder in the cancel's commit, and a sweep drops one its booking no longer stands for", async () => {
  const studio = createStudio();
  try {
    const booking = await book(studio, WEDNESDAY);
    const [[due, , entry]] = await listReminders(studio.store);
    const outcome = await applyBookingAction(studio.services, "cancel", booking.id);
    assert.equal(outcome.kind, "done");
    assert.deepEqual(await listReminders(studio.store), []);
    assert.equal((await findBooking(studio, booking.email)).reminderDueEpochMs, undefined);

    // A reminder left behind (as if written before the cancel) is dropped, not sent.
    await studio.store.set([...REMINDER_PREFIX, due, booking.id], entry);
    studio.clock.set(WEDNESDAY_DUE);
    assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 0, skipped: 1 });
    assert.deepEqual(await listReminders(studio.store), []);
    assert.deepEqual(await deliveredReminders(studio), []);
  } finally {
    await close(studio);
  }
});

test("a pending request gets no reminder; confirming schedules it, declining leaves none, confirming after the due time none", async () => {
  const studio = createStudio({ confirmation: "manual" });
  try {
    const confirmed = await book(studio, WEDNESDAY, { email: "ana@example.pt" });
    const declined = await book(studio, "2026-11-25T11:00:00+00:00", { email: "rui@example.pt" });
    const late = await book(studio, "2026-11-23T17:00:00+00:00", { email: "eva@example.pt" });
    assert.deepEqual(await listReminders(studio.store), [], "pending: none yet");

    assert.equal((await applyBookingAction(studio.services, "decline", declined.id)).kind, "done");
    assert.equal((await applyBookingAction(studio.services, "confirm", late.id)).kind, "done");
    assert.equal((await applyBookingAction(studio.services, "confirm", confirmed.id)).kind, "done");
    const reminders = await listReminders(studio.store);
    assert.deepEqual(reminders.map(([due, id]) => [due, id]), [
      [epochMs(WEDNESDAY_DUE), confirmed.id],
    ]);

    studio.clock.set("2026-11-24T10:00:30Z");
    assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 1, skipped: 0 });
    const sent = await deliveredReminders(studio);
    assert.deepEqual(sent.map((mail) => mail.to), [["ana@example.pt"]]);
  } finally {
    await close(studio);
  }
});

test("moveBooking() moves the reminder to the new start's due time, with the new reschedule link", async () => {
  const studio = createStudio();
  try {
    const booking = await book(studio, WEDNESDAY);
    const friday = "2026-11-27T15:00:00+00:00";
    const outcome = await moveBooking(studio.services, {
      bookingId: booking.id,
      sequence: 0,
      start: Temporal.Instant.from(friday),
    });
    assert.equal(outcome.kind, "moved");
    const fridayDue = epochMs("2026-11-26T15:00:00Z");
    assert.deepEqual(await listReminders(studio.store), [
      [fridayDue, booking.id, {
        bookingId: booking.id,
        sequence: 1,
        startEpochMs: epochMs(friday),
      }],
    ]);

    studio.clock.set(WEDNESDAY_DUE);
    assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 0, skipped: 0 }, "old time: none");
    studio.clock.set("2026-11-26T15:00:20Z");
    assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 1, skipped: 0 });
    const [reminder, ...more] = await deliveredReminders(studio);
    assert.equal(more.length, 0);
    assert.equal(reminder.messageId, `attendee-reminder-${booking.id}-1@studio.example`);
    const link = await studio.services.linkSigner.buildRescheduleUrl(
      "https://studio.example",
      booking.id,
      1,
    );
    assert.ok(reminder.text.includes(link), "signed for SEQUENCE 1");
    assert.match(reminder.text, /sexta-feira, 27 de novembro de 2026 às 15:00/);

    // Moved to a time whose due time has passed: no reminder for it.
    const moved = await moveBooking(studio.services, {
      bookingId: booking.id,
      sequence: 1,
      start: Temporal.Instant.from("2026-11-27T09:00:00+00:00"),
    });
    assert.equal(moved.kind, "moved");
    assert.deepEqual(await listReminders(studio.store), []);
  } finally {
    await close(studio);
  }
});

test("erasePersonalData() removes the address's waiting reminders, a stale one of a started booking included", async () => {
  const studio = createStudio();
  try {
    await book(studio, "2026-11-30T10:00:00+00:00", { email: "ana@example.pt" });
    // A booking that started while no sweeper ran still has its reminder's key.
    await book(studio, "2026-11-26T09:00:00+00:00", { email: "ana@example.pt" });
    const other = await book(studio, "2026-12-02T10:00:00+00:00", { email: "rui@example.pt" });
    assert.equal((await listReminders(studio.store)).length, 3);
    studio.clock.set("2026-11-26T09:10:00Z");

    await erasePersonalData(studio.services, "ana@example.pt", { actor: "rui@studio.example" });

    assert.deepEqual((await listReminders(studio.store)).map(([, id]) => id), [other.id]);
    assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 0, skipped: 0 });
  } finally {
    await close(studio);
  }
});

test("a sweep after the start drops the reminder: it is not sent late", async () => {
  const studio = createStudio();
  try {
    await book(studio, WEDNESDAY);
    studio.clock.set("2026-11-25T10:00:00Z");
    assert.deepEqual(await studio.sweeper.sweepDue(), { queued: 0, skipped: 1 });
    assert.deepEqual(await deliveredReminders(studio), []);
    assert.deepEqual(studio.sweeper.counts(), { queued: 0, skipped: 1 });
  } finally {
    await close(studio);
  }
});

test("readConfig() reads STUDIO_REMINDER_LEAD_MINUTES: 1440 by default, 0 turns reminders off, others refused by name", () => {
  assert.equal(readConfig({}).reminderLeadMinutes, 1440);
  assert.equal(readConfig({ STUDIO_REMINDER_LEAD_MINUTES: "0" }).reminderLeadMinutes, 0);
  assert.equal(readConfig({ STUDIO_REMINDER_LEAD_MINUTES: " 90 " }).reminderLeadMinutes, 90);
  assert.equal(readConfig({ STUDIO_REMINDER_LEAD_MINUTES: "43200" }).reminderLeadMinutes, 43200);
  for (const value of ["-5", "1.5", "a day", "43201"]) {
    assert.throws(
      () => readConfig({ STUDIO_REMINDER_LEAD_MINUTES: value }),
      (error: unknown) =>
        error instanceof ConfigError && error.variable === "STUDIO_REMINDER_LEAD_MINUTES" &&
        error.message ===
          `Invalid STUDIO_REMINDER_LEAD_MINUTES: "${value}" is not a whole number of minutes from 0 (no reminders) to 43200 (30 days)`,
      value,
    );
  }
  assert.throws(
    () => createServices({ reminderLeadMinutes: -1 }),
    /^RangeError: Invalid reminderLeadMinutes: -1 is not a whole number from 0 to 43200$/,
  );
});
