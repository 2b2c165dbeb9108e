/**
 * Booking reminders end to end: the real service, twice on one KV file, with a reminder lead
 * chosen so that the reminder of the first free slot falls due about a minute after the booking;
 * exactly one reminder reaches the real SMTP server, within 60 s of its due time, with the
 * reschedule and cancel links, and restarting both processes sends no second one.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUNTIME, withKvFile } from "../_kv.ts";
import { type RunningServer, startServer } from "./_server.ts";
import { startSmtpServer, type TestSmtpServer } from "../_smtp.ts";
import {
  buildBookingBody,
  findLink,
  findRescheduleLink,
  openSignedLink,
  sendTo,
} from "../_booking.ts";
import { findMails, receiveMail, TEST_INBOX } from "./_booking_mail.ts";
import { listStudioMonths } from "./_studio.ts";

const BASE_URL = "https://studio.example";
const ATTENDEE = "reminded@e2e.example";

function buildEnv(
  kvPath: string,
  smtp: TestSmtpServer,
  leadMinutes: number,
): Record<string, string> {
  return {
    STUDIO_KV_PATH: kvPath,
    STUDIO_SMTP_URL: smtp.url,
    STUDIO_BASE_URL: BASE_URL,
    STUDIO_INBOX: TEST_INBOX,
    STUDIO_LOG: "quiet",
    STUDIO_REMINDER_LEAD_MINUTES: String(leadMinutes),
  };
}

/** The earliest free start the service lists this month or next (the studio's months). */
async function findFirstStart(server: RunningServer): Promise<Temporal.Instant> {
  const starts: Temporal.Instant[] = [];
  for (const asked of listStudioMonths(1)) {
    const response = await fetch(`${server.origin}/api/v1/booking/slots?month=${asked}`);
    if (response.status !== 200) {
      await response.body?.cancel();
      continue;
    }
    const body: { slots: Record<string, Array<{ start: string }>> } = await response.json();
    starts.push(
      ...Object.values(body.slots).flat().map((slot) => Temporal.Instant.from(slot.start)),
    );
  }
  assert.ok(starts.length, "a free slot this month or next");
  return starts.sort(Temporal.Instant.compare)[0];
}

/** How many lines of the servers' output say a reminder was queued. */
function countQueued(servers: RunningServer[]): number {
  return servers.map((server) => server.output().match(/"message":"Reminder queued"/g)?.length ?? 0)
    .reduce((sum, count) => sum + count, 0);
}

test(`two processes on one KV file send the attendee exactly one reminder at its due time, and a restart none more (${RUNTIME})`, async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-reminders-e2e-"));
  const kvPath = join(folder, "studio.kv");
  const smtp = await startSmtpServer();
  const running: RunningServer[] = [];
  try {
    // The lead is known once the first free slot is: a process that only lists it, first.
    const lister = await startServer(buildEnv(kvPath, smtp, 0));
    running.push(lister);
    const start = await findFirstStart(lister);
    await lister.stop();
    // The reminder falls due between 45 and 105 s from now: after the booking, soon after it.
    const untilStart = start.since(Temporal.Now.instant()).total("milliseconds");
    const leadMinutes = Math.floor((untilStart - 45_000) / 60_000);
    const dueEpochMs = start.epochMilliseconds - leadMinutes * 60_000;

    const servers = await Promise.all([
      startServer(buildEnv(kvPath, smtp, leadMinutes)),
      startServer(buildEnv(kvPath, smtp, leadMinutes)),
    ]);
    running.push(...servers);
    const booked = await fetch(`${servers[0].origin}/api/v1/booking`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(
        buildBookingBody(start.toString(), { email: ATTENDEE, locale: "en" }),
      ),
    });
    assert.equal(booked.status, 201, await booked.clone().text());
    await booked.body?.cancel();
    assert.ok(Date.now() < dueEpochMs, "booked before the reminder's due time");
    await receiveMail(smtp, "attendee-booked", ATTENDEE);

    // Within 60 s of the due time: wait a little longer, then look.
    const deadline = dueEpochMs + 70_000;
    while (!findMails(smtp, "attendee-reminder", ATTENDEE).length && Date.now() < deadline) {
      await delay(100);
    }
    const arrivedEpochMs = Date.now();
    const [reminder, ...more] = findMails(smtp, "attendee-reminder", ATTENDEE);
    assert.ok(reminder, "a reminder arrived");
    assert.equal(more.length, 0, "one reminder");
    assert.ok(arrivedEpochMs >= dueEpochMs - 1000, "not before its due time");
    assert.ok(arrivedEpochMs - dueEpochMs <= 60_000, `${arrivedEpochMs - dueEpochMs} ms late`);
    assert.match(reminder.parsed.subject ?? "", /^Reminder: conversation with the studio: /);
    const reschedule = findRescheduleLink(reminder) ?? "";
    assert.ok(reschedule.startsWith(`${BASE_URL}/booking/reschedule?id=`), "the reschedule link");
    assert.ok(findLink(reminder, "cancel").startsWith(`${BASE_URL}/booking/cancel?id=`));
    // Opened as a browser opens it: the link's 303, with its cookie, to the page.
    const page = await openSignedLink(sendTo(servers[1].origin), reschedule);
    assert.equal(page.status, 200, "the reschedule link opens its page");
    await page.body?.cancel();

    // Both processes keep sweeping: still one, and one process said it queued it.
    await delay(5_000);
    assert.equal(findMails(smtp, "attendee-reminder", ATTENDEE).length, 1);
    assert.equal(countQueued(servers), 1, "one process queued it");

    await Promise.all(servers.map((server) => server.stop()));
    const restarted = await Promise.all([
      startServer(buildEnv(kvPath, smtp, leadMinutes)),
      startServer(buildEnv(kvPath, smtp, leadMinutes)),
    ]);
    running.push(...restarted);
    // The first sweep runs a second after start; give both a few.
    await delay(6_000);
    assert.equal(findMails(smtp, "attendee-reminder", ATTENDEE).length, 1, "none after restart");
    assert.equal(countQueued(restarted), 0);
    await Promise.all(restarted.map((server) => server.stop()));
    await withKvFile(kvPath, async (kv) => {
      for (const prefix of [["reminder"], ["outbox"]]) {
        const left = [];
        for await (const entry of kv.list({ prefix })) left.push(entry.key);
        assert.deepEqual(left, [], `nothing left under ${prefix}`);
      }
    });
  } finally {
    await Promise.all(running.map((server) => server.stop()));
    await smtp.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
