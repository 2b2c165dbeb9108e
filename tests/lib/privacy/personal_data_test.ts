import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSmtpMailer } from "../../../adapters/smtp_mailer.ts";
import type { BookingRecord } from "../../../lib/booking/booking_mail.ts";
import type { IdempotencyRecord } from "../../../lib/booking/bookings.ts";
import { ApiError } from "../../../lib/contract/api_error.ts";
import { createKvRateLimiter } from "../../../lib/http/kv_rate_limit.ts";
import {
  erasePersonalData,
  exportPersonalData,
  listErasures,
  type PersonalDataExport,
} from "../../../lib/privacy/personal_data.ts";
import type { Store } from "../../../lib/store/store.ts";
import { createMemoryStore } from "../../../testing.ts";
import { readInvite } from "../../_booking.ts";
import { openKvFile } from "../../_kv.ts";
import { findTraces, scanStore, tracesOf } from "../../_personal_data.ts";
import { startSmtpServer, type TestSmtpServer } from "../../_smtp.ts";
import {
  book,
  createStudioApp,
  INBOX,
  listSlots,
  sendInquiry,
  type StudioApp,
} from "../../_studio_app.ts";

/** The person who asks for erasure: every trace of these must go. */
const ANA = { name: "Ana Erasmo", email: "ana.erasmo@example.pt" };
/** Another person, whose data must stay as it was. */
const RITA = { name: "Rita Lopes", email: "rita@example.pt" };

let smtp: TestSmtpServer;
let mailer: ReturnType<typeof createSmtpMailer>;
const folders: string[] = [];
const opened: Array<{ app: StudioApp; store: Store }> = [];

before(async () => {
  smtp = await startSmtpServer();
  mailer = createSmtpMailer(smtp.url, { timeoutSeconds: 5 });
});

after(async () => {
  for (const { app, store } of opened) {
    await app.outbox.stop();
    store.close();
  }
  mailer.close();
  await smtp.stop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A studio over a new KV file, with its rate-limit counters in the file too. */
async function openStudio(): Promise<StudioApp> {
  const folder = mkdtempSync(join(tmpdir(), "studio-privacy-"));
  folders.push(folder);
  const store = await openKvFile(join(folder, "studio.kv"));
  const app = createStudioApp(store, mailer, { rateLimiter: createKvRateLimiter({ store }) });
  opened.push({ app, store });
  return app;
}

/** Delivers what is due and waits until the outbox is idle. */
async function deliver(app: StudioApp): Promise<void> {
  await app.outbox.idle();
  await app.outbox.deliverDue();
}

/** What each seeded booking of Ana starts at. */
interface Seeded {
  app: StudioApp;
  /** A booking of Ana's that has taken place. */
  past: string;
  /** A booking of Ana's still ahead. */
  upcoming: string;
}

/**
 * Ana and Rita each send an inquiry and book (Ana twice, with Idempotency-Keys and in other
 * cases of her address); their mail is delivered; the clock passes Ana's first meeting; Ana's
 * second inquiry is sent while the mail server is down, so its mail waits in the outbox for a
 * retry (not due while the clock stands still).
 */
async function seed(): Promise<Seeded> {
  const app = await openStudio();
  await sendInquiry(app, {
    Name: ANA.name,
    Email: "Ana.Erasmo@Example.PT",
    Message: "Queremos um site novo para a loja de cerâmica.",
  });
  await sendInquiry(app, {
    Name: RITA.name,
    Email: RITA.email,
    Message: "A site for our bakery, in two languages.",
  });
  const [past] = await listSlots(app, "2026-11");
  const december = await listSlots(app, "2026-12");
  const upcoming = december.find((start) => start.startsWith("2026-12-10"));
  const ritas = december.find((start) => start.startsWith("2026-12-11"));
  assert.ok(past && upcoming && ritas);
  // A client may choose any Idempotency-Key, the address included.
  await book(app, past, ANA, `${ANA.email}-1`);
  await book(app, upcoming, { ...ANA, email: "ANA.ERASMO@example.pt" }, "ana-second-booking");
  await book(app, ritas, RITA, "rita-booking");
  await deliver(app);
  app.clock.set("2026-11-30T12:00:00Z");
  await smtp.stop();
  await sendInquiry(app, {
    Name: ANA.name,
    Email: ANA.email,
    Message: "Esqueci-me de dizer: também vendemos online.",
  });
  await deliver(app);
  await smtp.start();
  return { app, past, upcoming };
}

/** An export without its time, to compare two exports. */
function withoutTime(document: PersonalDataExport): Omit<PersonalDataExport, "exportedAt"> {
  const { exportedAt: _time, ...rest } = document;
  return rest;
}

test("exportPersonalData() returns every kind of record held about an address, and no other's", async () => {
  const { app, past, upcoming } = await seed();
  const document = await exportPersonalData(app.services, "  Ana.Erasmo@EXAMPLE.pt ");
  assert.equal(document.kind, "personal-data-export");
  assert.equal(document.address, ANA.email);
  assert.equal(document.exportedAt, "2026-11-30T12:00:00Z");
  assert.equal(document.inquiries.length, 2);
  assert.deepEqual(
    document.inquiries.map((inquiry) => inquiry.fields.Email.toLowerCase()),
    [ANA.email, ANA.email],
  );
  assert.ok(document.inquiries.every((inquiry) => inquiry.clientAddress === "203.0.113.7"));
  assert.deepEqual(document.bookings.map((booking) => booking.start).sort(), [past, upcoming]);
  assert.deepEqual(document.bookings.map((booking) => booking.status), ["accepted", "accepted"]);
  // Each inquiry's mail to the studio and each booking's two: five sent, one waiting.
  const waiting = document.mail.filter((mail) => mail.state === "waiting");
  const sent = document.mail.filter((mail) => mail.state === "sent");
  assert.equal(waiting.length, 1);
  assert.equal(waiting[0].topic, "inquiry");
  assert.deepEqual(waiting[0].to, [INBOX]);
  assert.equal(waiting[0].attempts, 1);
  assert.equal(sent.length, 5);
  assert.equal(sent.filter((mail) => mail.to.includes(ANA.email)).length, 1);
  assert.equal(sent.filter((mail) => mail.to.includes("ANA.ERASMO@example.pt")).length, 1);
  const recordIds = new Set([...document.inquiries, ...document.bookings].map((item) => item.id));
  assert.ok(document.mail.every((mail) => recordIds.has(mail.recordId)));
  assert.deepEqual(document.quota, [{ day: "2026-11-21", bookings: 2 }]);
  assert.deepEqual(
    document.idempotency.map((record) => record.bookingId).sort(),
    document.bookings.map((booking) => booking.id).sort(),
  );
  const text = JSON.stringify(document).toLowerCase();
  assert.ok(!text.includes(RITA.email) && !text.includes("rita lopes"), "nothing of Rita's");
  assert.ok(!/sig=/.test(text), "no signed link");
});

test("erasePersonalData() cancels an upcoming booking with a CANCEL invite, then leaves no trace of the address in the KV file", async () => {
  const { app, upcoming } = await seed();
  const ritaBefore = await exportPersonalData(app.services, RITA.email);
  const before = await exportPersonalData(app.services, ANA.email);
  const ahead = before.bookings.find((booking) => booking.start === upcoming) as BookingRecord;
  // A record written before idempotency records named their booking is found by its commit.
  const legacy = await app.store.get<IdempotencyRecord>(["idempotency", "ana-second-booking"]);
  assert.ok(legacy.value?.bookingId);
  const { bookingId: _named, ...unnamed } = legacy.value;
  await app.store.set(legacy.key, unnamed);
  const traces = await tracesOf(ANA);
  const scanBefore = await scanStore(app.store);
  assert.ok(findTraces(scanBefore, traces).length >= 10, "the scan sees Ana's records");
  assert.ok(
    scanBefore.some((entry) => entry.includes(traces[2])),
    "the scan sees the quota's digest",
  );
  const received = smtp.messages.length;

  const record = await erasePersonalData(app.services, "ANA.erasmo@example.pt", {
    actor: "rui@studio.example",
  });

  // The cancellation went out to both sides before the erasure ended.
  const cancels = smtp.messages.slice(received);
  assert.equal(cancels.length, 2);
  const toAna = cancels.find((mail) => mail.envelopeTo.includes("ANA.ERASMO@example.pt"));
  const toStudio = cancels.find((mail) => mail.envelopeTo.includes(INBOX));
  assert.ok(toAna && toStudio, "CANCEL to the attendee and to the studio");
  for (const mail of [toAna, toStudio]) {
    const invite = readInvite(mail, "CANCEL");
    assert.equal(invite.uid, ahead.uid);
    assert.equal(invite.sequence, ahead.sequence + 1);
    assert.equal(invite.status, "CANCELLED");
  }
  assert.ok((await listSlots(app, "2026-12")).includes(upcoming), "the slot is free again");

  assert.deepEqual(record.counts, {
    inquiries: 2,
    bookings: 2,
    cancelledBookings: 1,
    queuedMail: 1,
    deliveryRecords: 7,
    quotaRecords: 1,
    idempotencyRecords: 2,
  });
  assert.equal(record.actor, "rui@studio.example");
  assert.equal(record.erasedAt, "2026-11-30T12:00:00Z");
  assert.deepEqual(await listErasures(app.store), [record]);
  const idempotencyKeys = [];
  for await (const entry of app.store.list({ prefix: ["idempotency"] })) {
    idempotencyKeys.push(entry.key[1]);
  }
  assert.deepEqual(idempotencyKeys, ["rita-booking"]);

  const scan = await scanStore(app.store);
  assert.deepEqual(findTraces(scan, traces), [], "no key or value holds Ana");
  assert.ok(findTraces(scan, await tracesOf(RITA)).length >= 4, "Rita's records are there");
  const ritaAfter = await exportPersonalData(app.services, RITA.email);
  assert.deepEqual(withoutTime(ritaAfter), withoutTime(ritaBefore));
  const empty = await exportPersonalData(app.services, ANA.email);
  assert.deepEqual(
    [empty.inquiries, empty.bookings, empty.mail, empty.quota, empty.idempotency],
    [[], [], [], [], []],
  );
});

test("erasePersonalData() erases nothing while the cancellations cannot be delivered, unless told to discard them", async () => {
  const { app, upcoming } = await seed();
  await smtp.stop();
  try {
    await assert.rejects(
      erasePersonalData(app.services, ANA.email, {
        actor: "Rui",
        deliveryTimeoutMilliseconds: 300,
      }),
      (error) => error instanceof ApiError && error.status === 503 && error.code === "no-backend",
    );
    const kept = await exportPersonalData(app.services, ANA.email);
    assert.equal(kept.inquiries.length, 2, "nothing erased");
    const ahead = kept.bookings.find((booking) => booking.start === upcoming);
    assert.equal(ahead?.status, "cancelled", "the booking stays cancelled");
    assert.equal(kept.mail.filter((mail) => mail.state === "waiting").length, 3);
    assert.deepEqual(await listErasures(app.store), []);

    const record = await erasePersonalData(app.services, ANA.email, {
      actor: "Rui",
      deliveryTimeoutMilliseconds: 300,
      discardUndelivered: true,
    });
    assert.ok(
      app.logger.records.some((line) => line.message === "Erasure discards undelivered mail"),
    );
    assert.equal(record.counts.cancelledBookings, 0, "cancelled by the first attempt");
    assert.equal(record.counts.queuedMail, 3);
    assert.deepEqual(findTraces(await scanStore(app.store), await tracesOf(ANA)), []);
  } finally {
    await smtp.start();
  }
});

test("erasePersonalData() refuses an invalid address, and an actor that names the erased address", async () => {
  const app = createStudioApp(createMemoryStore(), mailer);
  opened.push({ app, store: app.store });
  await assert.rejects(
    erasePersonalData(app.services, "not an address", { actor: "Rui" }),
    (error) =>
      error instanceof ApiError && error.status === 400 && /e-mail address/.test(error.message),
  );
  await assert.rejects(
    erasePersonalData(app.services, ANA.email, { actor: `Ana <${ANA.email.toUpperCase()}>` }),
    (error) => error instanceof ApiError && error.status === 400 && /actor/.test(error.message),
  );
  await assert.rejects(
    erasePersonalData(app.services, ANA.email, { actor: "  " }),
    (error) => error instanceof ApiError && error.status === 400,
  );
  await assert.rejects(
    exportPersonalData(app.services, "ana@"),
    (error) => error instanceof ApiError && error.status === 400,
  );
  assert.deepEqual(await listErasures(app.store), []);
});

/** A visitor whose inquiry's notice is being sent when the erasure runs. */
const ZELIA = { name: "Zélia Quaresma", email: "zelia@example.pt" };

for (const answer of ["refuse", "accept"] as const) {
  test(
    `erasePersonalData() leaves no trace of the notice the outbox is sending meanwhile, when the mail server then ${
      answer === "accept" ? "accepts" : "refuses"
    } it`,
    async () => {
      const app = await openStudio();
      const held = smtp.hold();
      const received = smtp.messages.length;
      await sendInquiry(app, {
        Name: ZELIA.name,
        Email: ZELIA.email,
        Message: "Liguem-me, por favor, sobre o site da quinta.",
      });
      // The outbox has leased the studio's notice and waits for the server's answer.
      await held.arrived;
      const record = await erasePersonalData(app.services, ZELIA.email, { actor: "Rui" });
      assert.equal(record.counts.inquiries, 1);
      assert.equal(record.counts.queuedMail, 1);
      held.release(answer);
      await app.outbox.idle();
      // Later passes find nothing to send again or to record.
      app.clock.set("2026-11-21T12:00:00Z");
      await deliver(app);
      assert.equal(smtp.messages.length - received, answer === "accept" ? 1 : 0);
      assert.deepEqual(findTraces(await scanStore(app.store), await tracesOf(ZELIA)), []);
      for (const prefix of ["outbox", "outbox_due", "outbox_sent"]) {
        for await (const entry of app.store.list({ prefix: [prefix] })) {
          assert.fail(`${JSON.stringify(entry.key)} is left`);
        }
      }
      assert.ok(app.logger.records.some((line) => /left the outbox/.test(line.message)));
    },
  );
}

test("erasePersonalData() and exportPersonalData() refuse the studio's own addresses, which receive every visitor's notices", async () => {
  const app = await openStudio();
  await sendInquiry(app, { Name: RITA.name, Email: RITA.email, Message: "A site, please." });
  await deliver(app);
  const before = await scanStore(app.store);
  for (const address of [INBOX, "SITE@studio.example", "ana@studio.example"]) {
    const services = {
      ...app.services,
      team: { ...app.services.team, members: new Set(["ana@studio.example"]) },
    };
    await assert.rejects(
      erasePersonalData(services, address, { actor: "Rui" }),
      (error) =>
        error instanceof ApiError && error.status === 400 &&
        /is the studio's own address/.test(error.message) &&
        /visitor's data/.test(error.hint ?? ""),
    );
    await assert.rejects(
      exportPersonalData(services, address),
      (error) => error instanceof ApiError && error.status === 400,
    );
  }
  assert.deepEqual(await scanStore(app.store), before, "Rita's notice and its record stay");
  assert.deepEqual(await listErasures(app.store), []);
});

test("erasePersonalData() takes an actor whose address merely contains the erased one, and writes its commit's additions with the record", async () => {
  const app = await openStudio();
  await sendInquiry(app, { Name: "Na Lee", Email: "na@studio-client.example", Message: "Hello." });
  await deliver(app);
  const record = await erasePersonalData(app.services, "na@studio-client.example", {
    actor: "Ana <ana@studio-client.example>",
    withCommit: (operation, written) => {
      operation.set(["test_audit", written.id], { counts: written.counts });
    },
  });
  assert.equal(record.actor, "Ana <ana@studio-client.example>");
  assert.equal(record.counts.inquiries, 1);
  const stored = await app.store.get(["erasure", record.id]);
  const added = await app.store.get<{ counts: unknown }>(["test_audit", record.id]);
  assert.deepEqual(added.value?.counts, record.counts);
  assert.ok(stored.versionstamp, "the record is stored");
  assert.equal(added.versionstamp, stored.versionstamp, "in the same commit");
  for (
    const actor of [
      "na@studio-client.example",
      "NA@Studio-Client.example (Na)",
      "mailto:na@studio-client.example",
    ]
  ) {
    await assert.rejects(
      erasePersonalData(app.services, "na@studio-client.example", { actor }),
      (error) => error instanceof ApiError && error.status === 400 && /actor/.test(error.message),
      actor,
    );
  }
});
