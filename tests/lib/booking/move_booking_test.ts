/**
 * moveBooking() on a real KV file (Deno KV on Deno, `@deno/kv` on Node and Bun), delivering to a
 * real SMTP server: the atomic move, its e-mails, its refusals, and races for one slot between
 * services opened on the same file, as two instances of the service would be.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openKvFile } from "../../_kv.ts";
import { STUDIO_DEFAULTS } from "../../_studio_defaults.ts";
import { createRecordingLogger } from "../../_support.ts";
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from "../../_smtp.ts";
import { findRescheduleLink, hasCalendar, readInvite } from "../../_booking.ts";
import { createFixedClock, type FixedClock } from "../../../testing.ts";
import { resolveServices } from "../../../lib/resolve_services.ts";
import type { Services } from "../../../lib/services.ts";
import { createSmtpMailer } from "../../../adapters/smtp_mailer.ts";
import type { BookingRecord } from "../../../lib/booking/booking_mail.ts";
import type { SlotHold } from "../../../lib/availability/slot_holds.ts";
import { applyBookingAction, createBooking } from "../../../lib/booking/bookings.ts";
import { moveBooking, type MoveOutcome } from "../../../lib/booking/move_booking.ts";
import type { Store } from "../../../lib/store/store.ts";

/** A Saturday in winter: December 2026 is listed with plenty of free weekdays. */
const NOW = "2026-11-21T10:00:00Z";
const SECRET = "move-booking-test-secret-0123456789abcdef";
const INBOX = "inbox@studio.example";

let smtp: TestSmtpServer;
let mailer: ReturnType<typeof createSmtpMailer>;
const folder = mkdtempSync(join(tmpdir(), "studio-move-"));
const opened: Array<{ store: Store; services: Services }> = [];

before(async () => {
  smtp = await startSmtpServer();
  mailer = createSmtpMailer(smtp.url, { timeoutSeconds: 5 });
});

after(async () => {
  for (const { store, services } of opened) {
    await services.outbox.stop();
    store.close();
  }
  mailer.close();
  await smtp.stop();
  rmSync(folder, { recursive: true, force: true });
});

/**
 * Opens `count` stores on one new KV file, each with its own resolved services and one fixed
 * clock, as `count` instances of the service on one store.
 */
async function openInstances(
  name: string,
  options: { count?: number; confirmation?: "auto" | "manual" } = {},
): Promise<{ instances: Services[]; clock: FixedClock; store: Store }> {
  const path = join(folder, `${name}.kv`);
  const clock = createFixedClock(NOW);
  const instances: Services[] = [];
  let first: Store | undefined;
  for (let index = 0; index < (options.count ?? 1); index++) {
    const store = await openKvFile(path);
    first ??= store;
    const services = resolveServices({
      store,
      clock,
      mailer,
      secret: SECRET,
      logger: createRecordingLogger(),
      mailFrom: "Studio <site@studio.example>",
      inbox: INBOX,
      rateLimits: { write: 100_000, booking: 100_000 },
      confirmation: options.confirmation ?? "auto",
      bookingsPerAttendee: 1000,
    }, STUDIO_DEFAULTS);
    opened.push({ store, services });
    instances.push(services);
  }
  if (!first) throw new Error("No instance");
  return { instances, clock, store: first };
}

/** The free starts of December 2026, as the listing gives them. */
async function listStarts(services: Services): Promise<string[]> {
  return (await services.slotFinder.listMonth("2026-12", "booking")).map((slot) => slot.start);
}

/** Books `start` for `email` and returns the stored booking. */
async function bookAt(services: Services, start: string, email: string): Promise<BookingRecord> {
  const result = await createBooking(services, {
    start,
    name: "Ana Sousa",
    email,
    topic: "Um novo site para a nossa marca de cerâmica",
    locale: "pt",
  }, { origin: { clientAddress: "203.0.113.7" } });
  assert.equal(result.start, start);
  return await findBooking(services, email);
}

async function findBooking(services: Services, email: string): Promise<BookingRecord> {
  const found: BookingRecord[] = [];
  for await (const entry of services.store.list<BookingRecord>({ prefix: ["booking"] })) {
    if (entry.value.email === email) found.push(entry.value);
  }
  assert.equal(found.length, 1, `one booking for ${email}`);
  return found[0];
}

async function readHold(store: Store, start: string): Promise<SlotHold | null> {
  return (await store.get<SlotHold>(["slot", Temporal.Instant.from(start).epochMilliseconds]))
    .value;
}

function move(services: Services, record: BookingRecord, start: string): Promise<MoveOutcome> {
  return moveBooking(services, {
    bookingId: record.id,
    sequence: record.sequence,
    start: Temporal.Instant.from(start),
  });
}

/** The e-mails of a booking named `<kind>-<sequence>`, once those expected have arrived. */
async function receiveMails(
  services: Services,
  record: BookingRecord,
  expected: string[],
): Promise<Record<string, ReceivedMail>> {
  const pattern = new RegExp(`^<([a-z-]+)-${record.id}-(\\d+)@localhost>$`);
  const named = () =>
    Object.fromEntries(smtp.messages.flatMap((mail) => {
      const match = pattern.exec(mail.parsed.messageId ?? "");
      return match ? [[`${match[1]}-${match[2]}`, mail] as const] : [];
    }));
  const deadline = Date.now() + 10_000;
  while (!expected.every((name) => name in named()) && Date.now() < deadline) {
    await services.outbox.idle();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await services.outbox.idle();
  assert.deepEqual(Object.keys(named()).sort(), [...expected].sort(), "exactly these e-mails");
  return named();
}

test("moveBooking() holds the new slot, frees the old one and sends both sides a REQUEST with SEQUENCE + 1", async () => {
  const { instances: [services], store } = await openInstances("moved");
  const [first, , third] = await listStarts(services);
  const record = await bookAt(services, first, "moved@example.pt");
  const booked = await receiveMails(services, record, ["attendee-booked-0", "studio-new-0"]);
  const link = findRescheduleLink(booked["attendee-booked-0"]);
  assert.ok(link, "the attendee's e-mail carries the reschedule link");
  assert.match(link, new RegExp(`\\?id=${record.id}&seq=0&sig=`));
  assert.equal(findRescheduleLink(booked["studio-new-0"]), undefined, "not the studio's");
  const uid = readInvite(booked["attendee-booked-0"], "REQUEST").uid;

  const outcome = await move(services, record, third);
  assert.equal(outcome.kind, "moved");
  const moved = await findBooking(services, "moved@example.pt");
  assert.equal(moved.start, third);
  assert.equal(moved.sequence, 1);
  assert.equal(moved.status, "accepted");
  assert.equal(moved.previousStartEpochMs, record.startEpochMs);
  assert.equal(moved.uid, record.uid);
  assert.deepEqual(outcome.kind === "moved" ? outcome.record : undefined, moved);
  assert.equal(await readHold(store, first), null, "the old slot is released");
  assert.equal((await readHold(store, third))?.bookingId, record.id, "the new slot is held");
  const starts = await listStarts(services);
  assert.ok(starts.includes(first) && !starts.includes(third));

  const mails = await receiveMails(services, record, [
    "attendee-booked-0",
    "studio-new-0",
    "attendee-moved-1",
    "studio-moved-1",
  ]);
  const attendee = mails["attendee-moved-1"];
  const studio = mails["studio-moved-1"];
  assert.deepEqual(attendee.envelopeTo, ["moved@example.pt"]);
  assert.deepEqual(studio.envelopeTo, [INBOX]);
  assert.match(attendee.parsed.subject ?? "", /^Conversa mudada: /);
  assert.match(attendee.parsed.text ?? "", /^Antes: .*2026/m);
  assert.match(studio.parsed.subject ?? "", /^Conversa mudada: Ana Sousa — /);
  for (const mail of [attendee, studio]) {
    const invite = readInvite(mail, "REQUEST");
    assert.equal(invite.uid, uid, "the same UID");
    assert.equal(invite.sequence, 1, "SEQUENCE + 1");
    assert.equal(invite.startEpochMs, Temporal.Instant.from(third).epochMilliseconds);
  }
  assert.match(findRescheduleLink(attendee) ?? "", /&seq=1&sig=/, "a link for the new SEQUENCE");
});

test("moveBooking() refuses a link of an earlier SEQUENCE, the same start, and a time not listed", async () => {
  const { instances: [services] } = await openInstances("refusals");
  const [first, second, third] = await listStarts(services);
  const record = await bookAt(services, first, "refusals@example.pt");
  const unchanged = await move(services, record, first);
  assert.equal(unchanged.kind, "unchanged");
  const unlisted = await move(services, record, "2026-12-05T10:00:00Z");
  assert.equal(unlisted.kind, "taken", "a Saturday is never free");
  const other = await bookAt(services, second, "other@example.pt");
  assert.equal((await move(services, record, second)).kind, "taken", "another's slot");
  assert.equal((await move(services, record, third)).kind, "moved");
  const stale = await move(services, record, first);
  assert.deepEqual(stale.kind === "refused" ? stale.reason : stale.kind, "superseded");
  assert.equal((await findBooking(services, "refusals@example.pt")).start, third);
  assert.equal((await findBooking(services, "other@example.pt")).start, other.start);
});

test("moveBooking() refuses cancelled, declined, lapsed and started bookings, changing nothing", async () => {
  const { instances: [services], clock } = await openInstances("closed", {
    confirmation: "manual",
  });
  const [first, second, third, fourth, free] = await listStarts(services);
  const cancelled = await bookAt(services, first, "cancelled@example.pt");
  assert.equal((await applyBookingAction(services, "cancel", cancelled.id)).kind, "done");
  const declined = await bookAt(services, second, "declined@example.pt");
  assert.equal((await applyBookingAction(services, "decline", declined.id)).kind, "done");
  const confirmed = await bookAt(services, third, "started@example.pt");
  assert.equal((await applyBookingAction(services, "confirm", confirmed.id)).kind, "done");
  const lapsing = await bookAt(services, fourth, "lapsed@example.pt");

  const reasonOf = (outcome: MoveOutcome) =>
    outcome.kind === "refused" ? outcome.reason : outcome.kind;
  // The links were signed before the change: SEQUENCE 0.
  assert.equal(reasonOf(await move(services, cancelled, free)), "cancelled");
  assert.equal(reasonOf(await move(services, declined, free)), "declined");
  clock.advance({ hours: 49 });
  assert.equal(reasonOf(await move(services, lapsing, free)), "lapsed");
  clock.set(Temporal.Instant.from(third).add({ minutes: 1 }));
  assert.equal(reasonOf(await move(services, confirmed, free)), "started");
  assert.equal((await findBooking(services, "started@example.pt")).start, third);
});

test("moveBooking() of a pending request keeps it pending and its hold's lapse, and invites no one yet", async () => {
  const { instances: [services], store } = await openInstances("pending", {
    confirmation: "manual",
  });
  const starts = await listStarts(services);
  const [first, later] = [starts[0], starts[starts.length - 1]];
  const record = await bookAt(services, first, "pending@example.pt");
  assert.equal((await move(services, record, later)).kind, "moved");
  const moved = await findBooking(services, "pending@example.pt");
  assert.equal(moved.status, "pending");
  assert.equal(moved.holdUntilEpochMs, record.holdUntilEpochMs, "the team's time is unchanged");
  assert.equal((await readHold(store, later))?.lapsesAtEpochMs, record.holdUntilEpochMs);
  const mails = await receiveMails(services, record, [
    "attendee-pending-0",
    "studio-new-0",
    "attendee-moved-1",
    "studio-moved-1",
  ]);
  assert.equal(hasCalendar(mails["attendee-moved-1"]), false, "no invite before confirmation");
  assert.match(mails["attendee-moved-1"].parsed.text ?? "", /A equipa vai confirmá-lo/);
  const studio = mails["studio-moved-1"];
  assert.equal(readInvite(studio, "REQUEST").sequence, 1);
  assert.match(studio.parsed.text ?? "", /^Confirmar: http/m);
  assert.match(studio.parsed.subject ?? "", /^Conversa mudada a confirmar: /);
});

test("moveBooking() and createBooking() racing for one slot from two instances on one KV file: exactly one wins", async () => {
  const { instances, store } = await openInstances("race-book", { count: 2 });
  const starts = await listStarts(instances[0]);
  for (let round = 0; round < 6; round++) {
    const [from, target] = [starts[2 * round], starts[2 * round + 1]];
    const record = await bookAt(instances[0], from, `mover${round}@example.pt`);
    const [moved, booked] = await Promise.allSettled([
      move(instances[round % 2], record, target),
      createBooking(instances[(round + 1) % 2], {
        start: target,
        name: "Rui Alves",
        email: `booker${round}@example.pt`,
        topic: "A brand for our bakery in Setúbal",
        locale: "en",
      }, { origin: { clientAddress: "198.51.100.9" } }),
    ]);
    assert.equal(moved.status, "fulfilled");
    const moveWon = moved.status === "fulfilled" && moved.value.kind === "moved";
    const bookWon = booked.status === "fulfilled";
    assert.ok(moveWon !== bookWon, `round ${round}: exactly one wins`);
    if (!moveWon) assert.equal(moved.status === "fulfilled" && moved.value.kind, "taken");
    if (!bookWon) assert.equal((booked.reason as { status?: number }).status, 409);
    const hold = await readHold(store, target);
    const winner = moveWon
      ? record.id
      : (await findBooking(instances[0], `booker${round}@example.pt`)).id;
    assert.equal(hold?.bookingId, winner, "the slot is held by the winner");
    assert.equal((await readHold(store, from))?.bookingId, moveWon ? undefined : record.id);
  }
});

test("moveBooking() of two bookings to one slot at once from two instances: exactly one moves", async () => {
  const { instances, store } = await openInstances("race-move", { count: 2 });
  const starts = await listStarts(instances[0]);
  for (let round = 0; round < 6; round++) {
    const [a, b, target] = starts.slice(3 * round, 3 * round + 3);
    const first = await bookAt(instances[0], a, `first${round}@example.pt`);
    const second = await bookAt(instances[1], b, `second${round}@example.pt`);
    const outcomes = await Promise.all([
      move(instances[0], first, target),
      move(instances[1], second, target),
    ]);
    const kinds = outcomes.map((outcome) => outcome.kind).sort();
    assert.deepEqual(kinds, ["moved", "taken"], `round ${round}`);
    const winner = outcomes[0].kind === "moved" ? first : second;
    const loser = winner === first ? second : first;
    assert.equal((await readHold(store, target))?.bookingId, winner.id);
    assert.equal((await readHold(store, loser.start))?.bookingId, loser.id, "the loser keeps");
    assert.equal(await readHold(store, winner.start), null, "the winner's old slot is free");
    const stored = await findBooking(instances[0], loser.email);
    assert.equal(stored.start, loser.start);
    assert.equal(stored.sequence, 0);
  }
});
